// Benchmark for `inv node-remove` on CRI-O (v1.34.0, built from Go modules by scripts/crio.mjs, a
// private instance started here), side by side with Eraser's remover (v1.4.1's pkg/remover,
// built from Go modules by scripts/trivy.mjs) and the bare gRPC loop, in the same run:
// - each round pulls 200 distinct images into CRI-O from the project's loopback registry
//   (scripts/oci-serve.mjs), then one of the three removes them by name;
// - inv runs as the worker image runs it (_worker-run.ts); Eraser's remover runs as its Pod runs
//   it, `remover --imagelist FILE` with CRI at /run/cri/cri.sock (a private mount namespace
//   puts the socket there), its peak RSS and CPU measured by GNU time.
// Prints figures; never fails on timing.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import {
  call,
  imageService,
  median,
  repoRoot,
  run,
  useWorkerImage,
  type CliRun,
  type Form,
} from './support/worker-run.js';

const IMAGES = 200;
const ROUNDS = 3;
const log = (m: string) => process.stderr.write(`node-remove-crio bench: ${m}\n`);

interface CriScript {
  up(
    dir: string,
    opts?: { runtime?: string; timeoutMs?: number },
  ): Promise<{ endpoint: string; address: string }>;
  down(dir: string): Promise<void>;
}
interface CrioScript {
  importImages(
    dir: string,
    images: { refs: string[]; distinct: string; digestRefs?: boolean }[],
    timeoutMs?: number,
  ): Promise<{ id: string }[]>;
}

/** The IDs CRI lists for `refs` (by repo tag). */
async function listedIds(address: string, refs: readonly string[]): Promise<string[]> {
  const client = new (imageService())(`unix://${address}`, grpc.credentials.createInsecure());
  try {
    const want = new Set(refs);
    const res = await call(client, 'ListImages', {});
    return (res.images as { id: string; repoTags?: string[] }[])
      .filter((i) => (i.repoTags ?? []).some((t) => want.has(t)))
      .map((i) => i.id);
  } finally {
    client.close();
  }
}

/** Eraser's remover as its Pod runs it, with CRI at /run/cri/cri.sock in a mount namespace of its own. */
function runEraser(remover: string, address: string, list: string, cwd: string): Promise<CliRun> {
  const started = performance.now();
  const shell =
    'mount -t tmpfs tmpfs /run && mkdir -p /run/cri && ln -s "$0" /run/cri/cri.sock && exec "$1" --imagelist "$2"';
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/time',
      [
        '-f',
        'INV_BENCH_GNU_TIME %M %U %S',
        'unshare',
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        shell,
        address,
        remover,
        list,
      ],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const ms = performance.now() - started;
        const m = /INV_BENCH_GNU_TIME (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
        resolve({
          ms,
          code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
          stdout,
          stderr,
          rssMB: m ? Math.round(Number(m[1]) / 1024) : NaN,
          cpuMs: m ? Math.round((Number(m[2]) + Number(m[3])) * 1000) : NaN,
        });
      },
    );
  });
}

/** The bare loop: one ListImages, then RemoveImage for each of `ids`. */
async function bare(address: string, ids: readonly string[]): Promise<number> {
  const started = performance.now();
  const client = new (imageService())(`unix://${address}`, grpc.credentials.createInsecure());
  try {
    const want = new Set(ids);
    const res = await call(client, 'ListImages', {});
    for (const i of (res.images as { id: string }[]).filter((x) => want.has(x.id)))
      await call(client, 'RemoveImage', { image: { image: i.id } });
  } finally {
    client.close();
  }
  return performance.now() - started;
}

export async function main(): Promise<Record<string, number | string>> {
  const cri = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
  const crio = (await import(path.join(repoRoot, 'scripts', 'crio.mjs'))) as CrioScript;
  const { eraserRemover } = (await import(path.join(repoRoot, 'scripts', 'trivy.mjs'))) as {
    eraserRemover(): string;
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-nr-crio-'));
  const dir = path.join(tmp, 'crio');
  const empty = fs.mkdtempSync(path.join(tmp, 'eraser-cwd-'));
  try {
    const remover = eraserRemover();
    const image = await useWorkerImage(tmp);
    const inv: Form = {
      name: 'inv',
      script: path.join(image.root, 'app', 'bin', 'run.js'),
      env: image.env,
      reset: image.resetCache,
    };
    const { endpoint } = await cri.up(dir, { runtime: 'crio', timeoutMs: 12 * 60_000 });
    const address = endpoint.replace(/^unix:\/\//, '');
    let seq = 0;
    const seed = async () => {
      const round = ++seq;
      const refs = Array.from({ length: IMAGES }, (_, i) => `docker.io/bench/img-${i}:crio-r${round}`);
      const started = performance.now();
      await crio.importImages(
        dir,
        refs.map((r, i) => ({
          refs: [r],
          distinct: `bench-crio-${process.pid}-${round}-${i}`,
          digestRefs: false,
        })),
        600_000,
      );
      const ids = await listedIds(address, refs);
      if (ids.length !== IMAGES)
        throw new Error(`round ${round}: CRI-O lists ${ids.length} of ${IMAGES} images`);
      log(`round ${round}: pulled ${IMAGES} images in ${Math.round(performance.now() - started)} ms`);
      const list = path.join(tmp, `targets-${round}.json`);
      fs.writeFileSync(list, JSON.stringify(refs));
      return { refs, ids, list };
    };
    const gone = async (refs: string[], who: string, r: CliRun) => {
      const left = (await listedIds(address, refs)).length;
      if (left !== 0)
        throw new Error(`${who} left ${left}/${IMAGES} images (exit ${r.code}): ${r.stderr.slice(-2000)}`);
    };

    const runs = { inv: [] as CliRun[], eraser: [] as CliRun[] };
    const bareMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let s = await seed();
      const i = await run(
        [inv.script],
        ['node-remove', '--runtime-endpoint', endpoint, '--imagelist', s.list, '-o', 'json'],
        inv.env,
        inv,
      );
      await gone(s.refs, 'inv node-remove', i);
      runs.inv.push(i);
      s = await seed();
      const e = await runEraser(remover, address, s.list, empty);
      await gone(s.refs, "Eraser's remover", e);
      runs.eraser.push(e);
      s = await seed();
      bareMs.push(await bare(address, s.ids));
    }
    const b = median(bareMs);
    const out: Record<string, number | string> = {
      runtime: 'CRI-O v1.34.0 (a private instance started here)',
      'images removed per run': IMAGES,
      rounds: ROUNDS,
      [`bare gRPC loop, ${IMAGES} images, in-process (ms, median)`]: Math.round(b),
    };
    for (const [name, rs] of Object.entries(runs)) {
      const who = name === 'inv' ? 'inv node-remove' : "Eraser's remover v1.4.1";
      out[`${who}: ${IMAGES} images (ms, median)`] = Math.round(median(rs.map((x) => x.ms)));
      out[`${who}: ${IMAGES} images / bare loop`] = Number((median(rs.map((x) => x.ms)) / b).toFixed(2));
      out[`${who}: ${IMAGES} images, peak RSS (MB, max)`] = Math.max(...rs.map((x) => x.rssMB));
      out[`${who}: ${IMAGES} images, CPU user+sys (ms, median)`] = median(rs.map((x) => x.cpuMs));
    }
    const ratio = (f: (x: CliRun) => number) =>
      Number((median(runs.inv.map(f)) / median(runs.eraser.map(f))).toFixed(2));
    out['inv / Eraser: wall time'] = ratio((x) => x.ms);
    out['inv / Eraser: CPU user+sys'] = ratio((x) => x.cpuMs);
    out['inv / Eraser: peak RSS'] = Number(
      (Math.max(...runs.inv.map((x) => x.rssMB)) / Math.max(...runs.eraser.map((x) => x.rssMB))).toFixed(2),
    );
    return out;
  } finally {
    await cri.down(dir).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// Also runnable alone: node dist/bench/node-remove-crio.js
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  console.log(JSON.stringify(await main(), null, 1));
