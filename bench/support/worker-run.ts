// What the node-remove benchmarks share: `inv node-remove` run as the worker image runs it (the
// image's stripped Node 24, bundle and compile cache, unpacked here, with the worker Pod's
// NODE_OPTIONS), each run's wall time, peak RSS and CPU, and the bare gRPC loop every removal is
// compared with.
import * as grpc from '@grpc/grpc-js';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCriPackage } from '../../test/support/cri-proto-loader.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

// The bare loop's client: proto-loader, as any grpc-js program would do it.
export const imageService = () => loadCriPackage('v1').ImageService as grpc.ServiceClientConstructor;
export const runtimeService = () => loadCriPackage('v1').RuntimeService as grpc.ServiceClientConstructor;

export /** One way of running inv: the worker image's files, or a baseline checkout. */
interface Form {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  /** Called before each run (the image's compile cache back to what the image holds). */
  reset?: () => void;
}

export interface CliRun {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
  rssMB: number;
  cpuMs: number;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let node = process.execPath;
let preload = '';

/** Runs `f` with no usage report (start-up figures: the preload would count in them). */
export async function withoutPreload<T>(f: () => Promise<T>): Promise<T> {
  const saved = preload;
  preload = '';
  try {
    return await f();
  } finally {
    preload = saved;
  }
}

/** Runs `node [preload] script args`; the preload reports peak RSS and CPU at exit. */
export function run(
  script: string[],
  args: string[],
  env: NodeJS.ProcessEnv = {},
  form?: Form,
): Promise<CliRun> {
  form?.reset?.();
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      node,
      [...(preload ? ['--import', preload] : []), ...script, ...args],
      { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        const ms = performance.now() - started;
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        const m = /INV_BENCH_USAGE (\d+) (\d+) (\d+)/.exec(stderr);
        resolve({
          ms,
          code,
          stdout,
          stderr,
          rssMB: m ? Math.round(Number(m[1]) / 1024) : NaN,
          cpuMs: m ? Math.round((Number(m[2]) + Number(m[3])) / 1000) : NaN,
        });
      },
    );
  });
}

type Unary = (
  req: object,
  opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res: unknown) => void,
) => void;

export function call(client: grpc.Client, method: string, req: object): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, Unary>)[method]!;
    fn.call(client, req, { deadline: Date.now() + 30_000 }, (err, res) =>
      err ? reject(err) : resolve(res as Record<string, unknown>),
    );
  });
}

export /** The reference loop: what any removal must do at least, with nothing around it. */
async function bareLoop(address: string, ids: Set<string>): Promise<number> {
  const started = performance.now();
  const client = new (imageService())(`unix://${address}`, grpc.credentials.createInsecure());
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

/**
 * Unpacks the worker image under `tmp` and makes run() use its node, with a preload that reports
 * peak RSS and CPU at exit. Returns the image's files and environment.
 */
export async function useWorkerImage(tmp: string) {
  const { nodeBinary } = (await import(path.join(repoRoot, 'scripts', 'node-runtime.mjs'))) as {
    nodeBinary(line: number): string;
  };
  const { strippedNode } = (await import(path.join(repoRoot, 'scripts', 'strip-node.mjs'))) as {
    strippedNode(binary: string): string;
  };
  const image = await unpackWorkerImage(tmp);
  node = path.join(image.root, 'usr', 'bin', 'node');
  if (!fs.readFileSync(node).equals(fs.readFileSync(strippedNode(nodeBinary(24)))))
    throw new Error("the worker image's node is not the stripped Node 24");
  preload = path.join(tmp, 'usage.mjs');
  fs.writeFileSync(
    preload,
    // Peak RSS from /proc/self/status (VmHWM: this process's own), not resourceUsage().maxRSS:
    // Linux carries the RSS of the process image before exec into that (here, the forked copy
    // of this benchmark process), which once reported 224 MB for a run that peaked at 69.
    [
      "import { readFileSync } from 'node:fs';",
      "process.on('exit', () => { const u = process.resourceUsage(); const hwm = /VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]; process.stderr.write(`INV_BENCH_USAGE ${hwm} ${u.userCPUTime} ${u.systemCPUTime}\\n`); });",
      '',
    ].join('\n'),
  );
  return image;
}

/**
 * The worker image (scripts/worker-image.mjs) unpacked under `tmp`, and the environment a worker
 * Pod's container gets: the image's Env and the Pod's NODE_OPTIONS. `resetCache` puts the
 * image's compile cache back as the image holds it (a Pod's read-only root keeps it so).
 */
async function unpackWorkerImage(tmp: string) {
  const { buildWorkerImage } = (await import(path.join(repoRoot, 'scripts', 'worker-image.mjs'))) as {
    buildWorkerImage(): Promise<{ file: string; ref: string }>;
  };
  const { WORKER_NODE_OPTIONS } = (await import(
    path.join(repoRoot, 'dist', 'src', 'core', 'erase', 'worker', 'pod-spec.js')
  )) as { WORKER_NODE_OPTIONS: string };
  const built = await buildWorkerImage();
  const tarOut = (member: string) =>
    execFileSync('tar', ['-xOf', built.file, member], { maxBuffer: 1024 * 2 ** 20 });
  const index = JSON.parse(tarOut('index.json').toString()) as { manifests: { digest: string }[] };
  const manifest = JSON.parse(tarOut(`blobs/sha256/${index.manifests[0]!.digest.slice(7)}`).toString()) as {
    config: { digest: string };
    layers: { digest: string }[];
  };
  const config = JSON.parse(tarOut(`blobs/sha256/${manifest.config.digest.slice(7)}`).toString()) as {
    config: { Env: string[] };
  };
  const root = path.join(tmp, 'worker-root');
  fs.mkdirSync(root);
  execFileSync('tar', ['-x', '-C', root], {
    input: tarOut(`blobs/sha256/${manifest.layers[0]!.digest.slice(7)}`),
    maxBuffer: 1024 * 2 ** 20,
  });
  const env: NodeJS.ProcessEnv = { NODE_OPTIONS: WORKER_NODE_OPTIONS };
  for (const kv of config.config.Env) {
    const i = kv.indexOf('=');
    if (!kv.startsWith('PATH='))
      env[kv.slice(0, i)] = kv.slice(i + 1).replace(/^\/app\b/, path.join(root, 'app'));
  }
  const cache = path.join(root, 'app', '.node-compile-cache');
  const pristine = path.join(tmp, 'compile-cache-as-shipped');
  fs.cpSync(cache, pristine, { recursive: true });
  const resetCache = () => {
    fs.rmSync(cache, { recursive: true, force: true });
    fs.cpSync(pristine, cache, { recursive: true });
  };
  return { root, env, ref: built.ref, resetCache };
}
