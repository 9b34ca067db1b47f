#!/usr/bin/env node
// The worker image of the local cluster: the `inv` image (scripts/inv-image.mjs, the same one
// `npm run image` pushes for users) named `inv.local/inv-worker:<tag>`, as an OCI archive that
// `ctr images import` reads, cached under .cache/worker/ by that tag. Every test that deploys a
// worker, the daemon or the scanner runs this image.
//
//   node scripts/worker-image.mjs   prints the archive's path
import fs from 'node:fs';
import path from 'node:path';
import { imageArchive } from './oci-archive.mjs';
import { buildInvImage, repoRoot } from './inv-image.mjs';
import { isMain } from './process.mjs';

export { repoRoot };
const cacheDir = path.join(repoRoot, '.cache', 'worker');
export const WORKER_REPO = 'inv.local/inv-worker';
const log = (msg) => process.stderr.write(`worker-image: ${msg}\n`);

/**
 * Builds (or reuses) the worker image archive. Returns
 * { file, ref, id, layerBytes, archiveBytes, buildMs, reused }.
 */
export async function buildWorkerImage(root = repoRoot) {
  const started = Date.now();
  const image = await buildInvImage(root);
  const ref = `${WORKER_REPO}:${image.tag}`;
  const file = path.join(cacheDir, `inv-worker-${image.tag}.tar`);
  const meta = `${file}.json`;
  const known = fs.existsSync(file) && fs.existsSync(meta) && JSON.parse(fs.readFileSync(meta, 'utf8'));
  if (known?.id === image.id) return { ...known, file, reused: true, buildMs: Date.now() - started };
  const archive = imageArchive({
    ref,
    manifest: image.manifest,
    platform: image.platform,
    blobs: [
      [image.id, image.config],
      [image.layer.digest, fs.readFileSync(image.layer.file)],
    ],
  });
  fs.mkdirSync(cacheDir, { recursive: true });
  // Older builds are stale by construction; keep only this one.
  for (const f of fs.readdirSync(cacheDir)) fs.rmSync(path.join(cacheDir, f), { force: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, archive);
  fs.renameSync(tmp, file);
  const info = {
    ref,
    id: image.id,
    layerBytes: image.layer.size,
    archiveBytes: archive.length,
    buildMs: Date.now() - started,
  };
  fs.writeFileSync(meta, JSON.stringify(info));
  return { ...info, file, reused: false };
}

if (isMain(import.meta.url)) {
  try {
    const r = await buildWorkerImage();
    log(
      `${r.reused ? 'reused' : 'built'} ${r.ref} (${(r.layerBytes / 2 ** 20).toFixed(1)} MiB uncompressed) in ${r.buildMs} ms`,
    );
    process.stdout.write(`${r.file}\n`);
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}
