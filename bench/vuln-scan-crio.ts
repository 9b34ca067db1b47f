// Benchmark for scan mode's default scanner (`inv node-scan`, Trivy v0.74.0, the test DB) on CRI-O
// beside containerd, for the same images: on containerd Trivy reads each image through
// containerd's API (it exports the image to a temporary file first); on CRI-O `inv node-scan`
// serves it to Trivy from the store (layers rebuilt from tar-split and the unpacked files, on
// loopback). The images are Debian-like ones Trivy finds CVEs in, plus one extra layer of 0, 16
// and 128 MiB. Each image is scanned alone by a fresh `inv node-scan` (median of ROUNDS); an
// empty candidate list's run is the fixed cost (process start, Trivy's DB open), shown too.
// Prints figures; never fails on timing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildImagesArchive, type BuiltImage, type ImageInput } from '../test/support/oci.js';
import {
  VULNERABLE_BASH,
  debianImage,
  runNodeScan,
  testDbCache,
  trivyBinary,
  type ContractImage,
} from '../test/support/scan.js';
import { repoRoot } from '../test/support/paths.js';

const ROUNDS = 3;
const PADS_MIB = [0, 16, 128];
const log = (m: string) => process.stderr.write(`vuln-scan-crio bench: ${m}\n`);

interface CriScript {
  up(dir: string, opts?: { runtime?: string; timeoutMs?: number }): Promise<{ address: string }>;
  down(dir: string): Promise<void>;
  ctrFor(dir: string): string;
}
interface CrioScript {
  importArchiveFile(dir: string, file: string): Promise<string[]>;
}
interface OciScript {
  importArchive(o: { address: string; file: string; snapshotter?: string; ctr?: string }): void;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function main(ctx: { criEndpoint: string; criDir: string }): Promise<Record<string, string>> {
  const load = <T>(n: string) => import(path.join(repoRoot, 'scripts', n)) as Promise<T>;
  const cri = await load<CriScript>('cri.mjs');
  const crio = await load<CrioScript>('crio.mjs');
  const oci = await load<OciScript>('oci-archive.mjs');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-vuln-crio-'));
  const crioDir = path.join(tmp, 'crio');
  try {
    const crioSocket = (await cri.up(crioDir, { runtime: 'crio', timeoutMs: 15 * 60_000 })).address;
    const driver = fs.readFileSync(path.join(crioDir, 'snapshotter'), 'utf8').trim();
    if (driver !== 'overlay')
      return { skipped: `CRI-O runs the ${driver} driver here; only overlay is read` };
    const trivy = await trivyBinary();
    const cache = await testDbCache(fs.mkdtempSync(path.join(tmp, 'trivy-')));
    const inputs: ImageInput[] = PADS_MIB.map((mib) => ({
      ...debianImage([`docker.io/inv-bench/vuln-scan-${mib}m:1`], VULNERABLE_BASH, `bench-${mib}`),
      ...(mib ? { padBytes: mib * 1024 * 1024 } : {}),
    }));
    const file = path.join(tmp, 'images.tar');
    const built: BuiltImage[] = await buildImagesArchive(file, inputs);
    const containerdAddress = ctx.criEndpoint.replace(/^unix:\/\//, '');
    oci.importArchive({
      address: containerdAddress,
      file,
      snapshotter: fs.readFileSync(path.join(ctx.criDir, 'snapshotter'), 'utf8').trim(),
      ctr: cri.ctrFor(ctx.criDir),
    });
    await crio.importArchiveFile(crioDir, file);
    log(`${built.length} images in containerd and CRI-O`);
    const settings = { cacheDir: cache, skipDBUpdate: true, timeout: { total: '10m', perImage: '5m' } };
    const candidate = (b: BuiltImage, bare: boolean): ContractImage => ({
      image_id: bare ? b.id.replace(/^sha256:/, '') : b.id,
      names: b.refs.filter((r) => !r.includes('@')),
      digests: b.refs.filter((r) => r.includes('@')),
    });
    const scan = async (runtime: 'containerd' | 'crio', images: BuiltImage[]) => {
      const r = await runNodeScan({
        dir: tmp,
        trivy,
        socket: runtime === 'crio' ? crioSocket : containerdAddress,
        settings,
        candidates: images.map((b) => candidate(b, runtime === 'crio')),
        ...(runtime === 'crio' ? { args: ['--crio-store', path.join(crioDir, 'storage')] } : {}),
      });
      if (images.length && r.answer.length !== images.length)
        throw new Error(`${runtime}: expected every image answered vulnerable:\n${r.stderr.slice(-2000)}`);
      return r.ms;
    };
    const out: Record<string, string> = {};
    for (const runtime of ['containerd', 'crio'] as const) {
      const empty: number[] = [];
      for (let i = 0; i < ROUNDS; i++) empty.push(await scan(runtime, []));
      out[`${runtime}: fixed cost (empty list)`] = `${median(empty)} ms`;
    }
    for (const [i, b] of built.entries()) {
      const ms: Record<string, number> = {};
      for (const runtime of ['containerd', 'crio'] as const) {
        const runs: number[] = [];
        for (let r = 0; r < ROUNDS; r++) runs.push(await scan(runtime, [b]));
        ms[runtime] = median(runs);
        out[`${runtime}: one image, +${PADS_MIB[i]} MiB layer`] = `${ms[runtime]} ms (median of ${ROUNDS})`;
      }
      out[`crio / containerd, +${PADS_MIB[i]} MiB layer`] = (ms.crio! / ms.containerd!).toFixed(2);
    }
    for (const runtime of ['containerd', 'crio'] as const)
      out[`${runtime}: all ${built.length} images in one run`] = `${await scan(runtime, built)} ms`;
    return out;
  } finally {
    await cri.down(crioDir).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
