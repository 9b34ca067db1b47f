// Benchmark for `inv node-remove`, as the worker runs it: the worker image's own files (built by
// scripts/worker-image.mjs and unpacked here: the stripped Node 24, the production bundle and its
// compile cache, restored before every run because a Pod cannot write it) with the worker Pod's
// NODE_OPTIONS, as a real subprocess, start-up included.
// On both runtimes (the run's containerd 1.6 and a containerd 2.x started here):
// - 200 distinct images: wall time, peak RSS and CPU of the CLI, against a bare gRPC loop in this
//   process (one ListImages, then RemoveImage for each), alternating rounds so all see the same
//   containerd state;
// - 1 image: wall time against `node -e 0` plus the same CRI calls made bare (a fresh connection,
//   Version, Status, ListImages, ListContainers, ListPodSandbox, both lists again, RemoveImage).
// Also start-up: `inv --version` and `inv node-remove --help` against `node -e 0`.
//
// INV_BENCH_BASELINE=<dir>[,<dir>...] adds built checkouts of other commits (their bin/run.js,
// on the same stripped Node, with V8's defaults) to every figure, side by side in the same run:
// how bench/README.md's before/after tables are made.
// Prints figures; never fails on timing.
import * as grpc from '@grpc/grpc-js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bareLoop,
  call,
  imageService,
  median,
  repoRoot,
  run,
  runtimeService,
  useWorkerImage,
  withoutPreload,
  type CliRun,
  type Form,
} from './support/worker-run.js';

export interface BenchContext {
  kubeconfig?: string;
  criEndpoint?: string;
  criDir?: string;
}

const IMAGES = 200;
const ROUNDS = 3;
const ONE_ROUNDS = 7;
const log = (m: string) => process.stderr.write(`node-remove bench: ${m}\n`);

interface OciArchive {
  writeArchive(
    file: string,
    images: { refs: string[]; distinct: string }[],
  ): { refs: string[]; id: string }[];
  importArchive(opts: { address: string; file: string; snapshotter?: string; ctr?: string }): void;
}

interface CriScript {
  up(dir: string, opts?: { runtime?: string }): Promise<{ endpoint: string }>;
  down(dir: string): Promise<void>;
  ctrFor(dir: string): string;
}

/** The CRI calls `inv node-remove` makes for one image, bare, on a fresh connection. */
async function bareOne(address: string, id: string): Promise<number> {
  const started = performance.now();
  const channel = new grpc.Channel(`unix://${address}`, grpc.credentials.createInsecure(), {});
  const opts = { channelOverride: channel };
  const rt = new (runtimeService())(`unix://${address}`, grpc.credentials.createInsecure(), opts);
  const img = new (imageService())(`unix://${address}`, grpc.credentials.createInsecure(), opts);
  try {
    await call(rt, 'Version', { version: '0.1.0' });
    await Promise.all([
      call(rt, 'Status', { verbose: true }),
      call(img, 'ListImages', {}),
      call(rt, 'ListContainers', {}),
      call(rt, 'ListPodSandbox', {}),
    ]);
    await Promise.all([call(rt, 'ListContainers', {}), call(rt, 'ListPodSandbox', {})]);
    await call(img, 'RemoveImage', { image: { image: id } });
  } finally {
    channel.close();
  }
  return performance.now() - started;
}

/** CPU time (user + system, in clock ticks) that process `pid` has used so far. */
function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of proc(5))
}

/** Waits until `pid` used at most 1 tick of CPU in 300 ms (at most 15 s; never fails). */
async function waitQuiet(pid: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last = cpuTicks(pid);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 300));
    const now = cpuTicks(pid);
    if (now - last <= 1) return;
    last = now;
  }
}

/** The figures on both runtimes, side by side in the same run, then start-up. */
export async function main(ctx: BenchContext): Promise<Record<string, number | string>> {
  if (!ctx.criEndpoint || !ctx.criDir)
    throw new Error('the node-remove benchmark needs the private containerd (criEndpoint)');
  const script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-nr-'));
  const image = await useWorkerImage(tmp);
  const forms: Form[] = [
    {
      name: 'inv',
      script: path.join(image.root, 'app', 'bin', 'run.js'),
      env: image.env,
      reset: image.resetCache,
    },
  ];
  // Each baseline as it ships: its bundle when it has one (INV_BUNDLE=1), else its tsc output.
  for (const dir of (process.env.INV_BENCH_BASELINE ?? '').split(',').filter(Boolean)) {
    const name = `baseline ${path.basename(dir)}`;
    const bundled = fs.existsSync(path.join(dir, 'dist', 'bundle', 'run.js'));
    forms.push({ name, script: path.join(dir, 'bin', 'run.js'), env: bundled ? { INV_BUNDLE: '1' } : {} });
  }

  const out: Record<string, number | string> = {
    node: `the worker image's (${image.ref}: stripped Node 24), NODE_OPTIONS=${image.env.NODE_OPTIONS}`,
    'images removed per run': IMAGES,
    rounds: ROUNDS,
  };
  try {
    for (const [k, v] of Object.entries(
      await measure(forms, ctx.criEndpoint, ctx.criDir, script.ctrFor(ctx.criDir), tmp),
    ))
      out[`containerd 1.6: ${k}`] = v;
    const dir = path.join(tmp, 'cri2');
    const c2 = await script.up(dir, { runtime: 'containerd2' });
    try {
      for (const [k, v] of Object.entries(await measure(forms, c2.endpoint, dir, script.ctrFor(dir), tmp)))
        out[`containerd 2.x: ${k}`] = v;
    } finally {
      await script.down(dir);
    }
    // Start-up as people run it (the npm package is the bundle, under V8's defaults), not as
    // the worker Pod does.
    const cli: Form = { name: 'inv', script: path.join(repoRoot, 'bin', 'run.js'), env: { INV_BUNDLE: '1' } };
    Object.assign(out, await startup([cli, ...forms.slice(1)]));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

/** `node -e 0`, `inv --version` and `inv node-remove --help`, interleaved, median of 7. */
async function startup(forms: Form[]): Promise<Record<string, number>> {
  const bare: number[] = [];
  const version = new Map<string, number[]>(forms.map((f) => [f.name, []]));
  const help = new Map<string, number[]>(forms.map((f) => [f.name, []]));
  await withoutPreload(async () => {
    for (let i = 0; i < 7; i++) {
      bare.push((await run([], ['-e', '0'])).ms);
      for (const f of forms) {
        version.get(f.name)!.push((await run([f.script], ['--version'], f.env, f)).ms);
        help.get(f.name)!.push((await run([f.script], ['node-remove', '--help'], f.env, f)).ms);
      }
    }
  });
  const b = median(bare);
  const out: Record<string, number> = { 'start-up: node -e 0 (ms, median of 7)': Math.round(b) };
  for (const f of forms) {
    const v = median(version.get(f.name)!);
    out[`start-up: ${f.name} --version (ms)`] = Math.round(v);
    out[`start-up: ${f.name} --version / node -e 0 (target <= 2)`] = Number((v / b).toFixed(2));
    out[`start-up: ${f.name} node-remove --help (ms)`] = Math.round(median(help.get(f.name)!));
  }
  return out;
}

async function measure(
  forms: Form[],
  endpoint: string,
  criDir: string,
  ctrBin: string,
  tmp: string,
): Promise<Record<string, number | string>> {
  const address = endpoint.replace(/^unix:\/\//, '');
  let snapshotter = 'overlayfs';
  try {
    snapshotter = fs.readFileSync(path.join(criDir, 'snapshotter'), 'utf8').trim();
  } catch {
    // default
  }
  const oci = (await import(path.join(repoRoot, 'scripts', 'oci-archive.mjs'))) as OciArchive;
  let seq = 0;
  const tag = `${path.basename(criDir)}-${process.pid}`;

  const seed = (count: number): { ids: string[]; list: string } => {
    const round = ++seq;
    const file = path.join(tmp, `images-${round}.tar`);
    const refs = Array.from({ length: count }, (_, i) => `docker.io/bench/img-${i}:${tag}-r${round}`);
    const started = performance.now();
    const built = oci.writeArchive(
      file,
      refs.map((r, i) => ({ refs: [r], distinct: `bench-${tag}-${round}-${i}` })),
    );
    oci.importArchive({ address, file, snapshotter, ctr: ctrBin });
    fs.rmSync(file);
    if (count > 1)
      log(`round ${round}: imported ${count} images in ${Math.round(performance.now() - started)} ms`);
    const list = path.join(tmp, `targets-${round}.json`);
    fs.writeFileSync(list, JSON.stringify(refs));
    return { ids: built.map((b) => b.id), list };
  };

  // CRI learns about ctr imports from events; wait until all are listed before timing.
  const waitListed = async (ids: string[]) => {
    const want = new Set(ids);
    const client = new (imageService())(`unix://${address}`, grpc.credentials.createInsecure());
    try {
      for (let i = 0; i < 400; i++) {
        const res = await call(client, 'ListImages', {});
        if ((res.images as { id: string }[]).filter((x) => want.has(x.id)).length === want.size) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('imported images never all appeared in CRI ListImages');
    } finally {
      client.close();
    }
  };

  const removeWith = async (f: Form, list: string, count: number): Promise<CliRun> => {
    const args = ['node-remove', '--runtime-endpoint', endpoint, '--imagelist', list, '-o', 'json'];
    const res = await run([f.script], args, f.env, f);
    const removed =
      res.code === 0
        ? (JSON.parse(res.stdout) as { results: { outcome: string }[] }).results.filter(
            (x) => x.outcome === 'removed',
          ).length
        : 0;
    if (removed !== count)
      throw new Error(`${f.name} node-remove removed ${removed}/${count} (exit ${res.code}): ${res.stderr}`);
    return res;
  };

  const many = new Map<string, CliRun[]>(forms.map((f) => [f.name, []]));
  const bareMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const f of forms) {
      const s = seed(IMAGES);
      await waitListed(s.ids);
      many.get(f.name)!.push(await removeWith(f, s.list, IMAGES));
    }
    const s = seed(IMAGES);
    await waitListed(s.ids);
    bareMs.push(await bareLoop(address, new Set(s.ids)));
  }

  // A single removal is mostly start-up, which a busy containerd (still collecting the content
  // of the rounds above, on the same 2 cores) slows down: each one starts once it is quiet.
  const containerdPid = Number(fs.readFileSync(path.join(criDir, 'pid'), 'utf8').trim());
  const one = new Map<string, number[]>(forms.map((f) => [f.name, []]));
  const bareOneMs: number[] = [];
  for (let r = 0; r < ONE_ROUNDS; r++) {
    for (const f of forms) {
      const s = seed(1);
      await waitListed(s.ids);
      await waitQuiet(containerdPid);
      one.get(f.name)!.push((await removeWith(f, s.list, 1)).ms);
    }
    const s = seed(1);
    await waitListed(s.ids);
    await waitQuiet(containerdPid);
    bareOneMs.push(await bareOne(address, s.ids[0]!));
  }

  const bare = median(bareMs);
  const out: Record<string, number | string> = {
    [`bare gRPC loop, ${IMAGES} images, in-process (ms, median)`]: Math.round(bare),
    'bare CRI calls for 1 image, in-process (ms, median)': Math.round(median(bareOneMs)),
  };
  for (const f of forms) {
    const runs = many.get(f.name)!;
    const ms = median(runs.map((x) => x.ms));
    out[`${f.name}: ${IMAGES} images (ms, median)`] = Math.round(ms);
    out[`${f.name}: ${IMAGES} images / bare loop (target <= 1.1)`] = Number((ms / bare).toFixed(2));
    out[`${f.name}: ${IMAGES} images, peak RSS (MB, max; target <= 60)`] = Math.max(
      ...runs.map((x) => x.rssMB),
    );
    out[`${f.name}: ${IMAGES} images, CPU user+sys (ms, median)`] = median(runs.map((x) => x.cpuMs));
    out[`${f.name}: 1 image (ms, median of ${ONE_ROUNDS})`] = Math.round(median(one.get(f.name)!));
  }
  return out;
}

// Also runnable alone: node dist/bench/node-remove.js [endpoint] [criDir] (defaults: .cache/cri).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const criDir = process.argv[3] ?? process.env.INV_CRI_DIR ?? path.join(repoRoot, '.cache', 'cri');
  const criEndpoint = process.argv[2] ?? `unix://${path.join(criDir, 'containerd.sock')}`;
  const figures = await main({ criEndpoint, criDir });
  console.log(JSON.stringify(figures));
}
