// Benchmark for `inv node-remove`: imports 200 distinct images into the private containerd and
// times removing them with the CLI (a real subprocess, start-up included) against a bare gRPC
// loop in this process (one ListImages, then RemoveImage for each), alternating rounds so both
// see the same containerd state. Also reports the CLI start-up time. Prints figures; never
// fails on timing.
import * as grpc from '@grpc/grpc-js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCriPackage } from '../test/support/cri-proto-loader.js';

// The bare loop's client: proto-loader, as any grpc-js program would do it.
const services = (api: 'v1') => ({
  ImageService: loadCriPackage(api).ImageService as grpc.ServiceClientConstructor,
});

export interface BenchContext {
  kubeconfig?: string;
  criEndpoint?: string;
  criDir?: string;
}

const IMAGES = 200;
const ROUNDS = 2;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repoRoot, 'bin', 'run.js');
const log = (m: string) => process.stderr.write(`node-remove bench: ${m}\n`);

interface OciArchive {
  writeArchive(
    file: string,
    images: { refs: string[]; distinct: string }[],
  ): { refs: string[]; id: string }[];
  importArchive(opts: { address: string; file: string; snapshotter?: string; ctr?: string }): void;
}

function run(
  args: string[],
  node = process.execPath,
  env: NodeJS.ProcessEnv = process.env,
  script: string[] = [bin],
): Promise<{ ms: number; code: number; stdout: string; stderr: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(node, [...script, ...args], { maxBuffer: 64 * 1024 * 1024, env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ ms: performance.now() - started, code, stdout, stderr });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Unary = (
  req: object,
  opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res: unknown) => void,
) => void;

function call(client: grpc.Client, method: string, req: object): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, Unary>)[method]!;
    fn.call(client, req, { deadline: Date.now() + 30_000 }, (err, res) =>
      err ? reject(err) : resolve(res as Record<string, unknown>),
    );
  });
}

/** The reference loop: what any removal must do at least, with nothing around it. */
async function bareLoop(address: string, ids: Set<string>): Promise<number> {
  const started = performance.now();
  const client = new (services('v1').ImageService)(`unix://${address}`, grpc.credentials.createInsecure());
  try {
    const res = await call(client, 'ListImages', {});
    const images = (res.images as { id: string }[]).filter((i) => ids.has(i.id));
    for (const img of images) await call(client, 'RemoveImage', { image: { image: img.id } });
    if (images.length !== ids.size) throw new Error(`bare loop saw ${images.length} of ${ids.size} images`);
  } finally {
    client.close();
  }
  return performance.now() - started;
}

interface CriScript {
  up(dir: string, opts?: { runtime?: string }): Promise<{ endpoint: string }>;
  down(dir: string): Promise<void>;
  ctrFor(dir: string): string;
}

/**
 * The figures on both runtimes: the run's containerd 1.6 (ctx) and a containerd 2.x started here
 * (runtime.v1 only), side by side in the same run.
 */
export async function main(ctx: BenchContext): Promise<Record<string, number | string>> {
  if (!ctx.criEndpoint || !ctx.criDir)
    throw new Error('the node-remove benchmark needs the private containerd (criEndpoint)');
  const script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
  const out: Record<string, number | string> = {};
  for (const [k, v] of Object.entries(await measure(ctx.criEndpoint, ctx.criDir, script.ctrFor(ctx.criDir))))
    out[
      k.startsWith('start-up') || k === 'images removed per run' || k === 'rounds'
        ? k
        : `containerd 1.6: ${k}`
    ] = v;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-ctrd2-'));
  try {
    const dir = path.join(tmp, 'cri');
    const c2 = await script.up(dir, { runtime: 'containerd2' });
    for (const [k, v] of Object.entries(await measure(c2.endpoint, dir, script.ctrFor(dir))))
      if (!k.startsWith('start-up') && k !== 'images removed per run' && k !== 'rounds')
        out[`containerd 2.x: ${k}`] = v;
    await script.down(dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  // Start-up on Node 24 LTS (what the worker image runs), with and without the module compile
  // cache that bin/run.js turns on, against `node -e 0` on the same binary.
  const { nodeBinary } = (await import(path.join(repoRoot, 'scripts', 'node-runtime.mjs'))) as {
    nodeBinary(line: number): string;
  };
  const node24 = nodeBinary(24);
  const times = async (env: NodeJS.ProcessEnv, args: string[], script?: string[]) => {
    const xs: number[] = [];
    for (let i = 0; i < 7; i++) xs.push((await run(args, node24, env, script)).ms);
    return Math.round(median(xs));
  };
  const bare = await times(process.env, ['-e', '0'], []);
  const cached = await times(process.env, ['--version']);
  const uncached = await times({ ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' }, ['--version']);
  out['Node 24: node -e 0 (ms, median of 7)'] = bare;
  out['Node 24: inv --version, compile cache (ms)'] = cached;
  out['Node 24: inv --version, no compile cache (ms)'] = uncached;
  out['Node 24: inv --version / node -e 0'] = Number((cached / bare).toFixed(2));
  return out;
}

async function measure(
  endpoint: string,
  criDir: string,
  ctrBin: string,
): Promise<Record<string, number | string>> {
  const ctx = { criDir };
  const address = endpoint.replace(/^unix:\/\//, '');
  let snapshotter = 'overlayfs';
  try {
    snapshotter = fs.readFileSync(path.join(ctx.criDir, 'snapshotter'), 'utf8').trim();
  } catch {
    // default
  }
  const oci = (await import(path.join(repoRoot, 'scripts', 'oci-archive.mjs'))) as OciArchive;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-nr-'));
  let seq = 0;

  const seed = (): { ids: Set<string>; list: string } => {
    const round = ++seq;
    const file = path.join(tmp, `images-${round}.tar`);
    const refs = Array.from({ length: IMAGES }, (_, i) => `docker.io/bench/img-${i}:r${round}`);
    const started = performance.now();
    const built = oci.writeArchive(
      file,
      refs.map((r, i) => ({ refs: [r], distinct: `bench-${round}-${i}` })),
    );
    oci.importArchive({ address, file, snapshotter, ctr: ctrBin });
    fs.rmSync(file);
    log(`round ${round}: imported ${IMAGES} images in ${Math.round(performance.now() - started)} ms`);
    const list = path.join(tmp, `targets-${round}.json`);
    fs.writeFileSync(list, JSON.stringify(refs));
    return { ids: new Set(built.map((b) => b.id)), list };
  };

  // CRI learns about ctr imports from events; wait until all are listed before timing.
  const waitListed = async (ids: Set<string>) => {
    const client = new (services('v1').ImageService)(`unix://${address}`, grpc.credentials.createInsecure());
    try {
      for (let i = 0; i < 200; i++) {
        const res = await call(client, 'ListImages', {});
        if ((res.images as { id: string }[]).filter((x) => ids.has(x.id)).length === ids.size) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('imported images never all appeared in CRI ListImages');
    } finally {
      client.close();
    }
  };

  try {
    const cliMs: number[] = [];
    const bareMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const a = seed();
      await waitListed(a.ids);
      const res = await run([
        'node-remove',
        '--runtime-endpoint',
        endpoint,
        '--imagelist',
        a.list,
        '-o',
        'json',
      ]);
      const removed =
        res.code === 0
          ? JSON.parse(res.stdout).results.filter((x: { outcome: string }) => x.outcome === 'removed').length
          : 0;
      if (removed !== IMAGES)
        throw new Error(`inv node-remove removed ${removed}/${IMAGES} (exit ${res.code}): ${res.stderr}`);
      cliMs.push(res.ms);

      const b = seed();
      await waitListed(b.ids);
      bareMs.push(await bareLoop(address, b.ids));
    }

    const startup: number[] = [];
    const help: number[] = [];
    for (let i = 0; i < 5; i++) {
      startup.push((await run(['--version'])).ms);
      help.push((await run(['node-remove', '--help'])).ms);
    }
    const cli = median(cliMs);
    const bare = median(bareMs);
    const start = median(startup);
    return {
      'images removed per run': IMAGES,
      rounds: ROUNDS,
      'inv node-remove, subprocess (ms, median)': Math.round(cli),
      'bare gRPC loop, in-process (ms, median)': Math.round(bare),
      'ratio cli/bare (target <= 1.2)': Number((cli / bare).toFixed(2)),
      'ratio without start-up (cli - start-up)/bare': Number(((cli - start) / bare).toFixed(2)),
      'start-up: inv --version (ms, median of 5)': Math.round(start),
      'start-up: inv node-remove --help (ms, median of 5)': Math.round(median(help)),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// Also runnable alone: node dist/bench/node-remove.js [endpoint] [criDir] (defaults: .cache/cri).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const criDir = process.argv[3] ?? process.env.INV_CRI_DIR ?? path.join(repoRoot, '.cache', 'cri');
  const criEndpoint = process.argv[2] ?? `unix://${path.join(criDir, 'containerd.sock')}`;
  const figures = await main({ criEndpoint, criDir });
  console.log(JSON.stringify(figures));
}
