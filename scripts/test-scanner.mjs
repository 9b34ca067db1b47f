#!/usr/bin/env node
// Builds the test scanner (test/scanner/main.go: Eraser's scanner contract, behaviour chosen by
// environment variables, standard library only) as a static binary with the installed Go, and
// an OCI archive holding only that binary as /scanner, without Docker. Both are cached under
// .cache/test-scanner/ by a digest of the Go sources, which is also the image's tag.
//   node scripts/test-scanner.mjs        prints the archive's path
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostArch, imageManifest, sha256, tar } from './oci-archive.mjs';
import { isMain } from './process.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(repoRoot, 'test', 'scanner');
const cacheDir = path.join(repoRoot, '.cache', 'test-scanner');
export const TEST_SCANNER_REPO = 'inv.local/inv-test-scanner';

/** { binary, file (OCI archive), ref, id, reused }. */
export function buildTestScanner() {
  const h = createHash('sha256');
  for (const f of fs.readdirSync(srcDir).sort()) h.update(f).update(fs.readFileSync(path.join(srcDir, f)));
  const tag = h.digest('hex').slice(0, 12);
  const dir = path.join(cacheDir, tag);
  const binary = path.join(dir, 'inv-test-scanner');
  const file = path.join(dir, 'image.tar');
  const meta = path.join(dir, 'image.json');
  if (fs.existsSync(meta))
    return { ...JSON.parse(fs.readFileSync(meta, 'utf8')), binary, file, reused: true };
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', `${binary}.tmp`, '.'], {
    cwd: srcDir,
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`go build test/scanner failed: ${r.stderr || r.error?.message}`);
  fs.renameSync(`${binary}.tmp`, binary);
  const layer = tar([
    ...['dev/', 'etc/', 'proc/', 'sys/', 'run/'].map((name) => ({ name, type: '5', mode: 0o755 })),
    { name: 'tmp/', type: '5', mode: 0o1777 },
    { name: 'scanner', data: fs.readFileSync(binary), mode: 0o755 },
  ]);
  const layerDigest = sha256(layer);
  const ref = `${TEST_SCANNER_REPO}:${tag}`;
  const platform = { architecture: hostArch(), os: 'linux' };
  const config = Buffer.from(
    JSON.stringify({
      ...platform,
      config: { Entrypoint: ['/scanner'], Env: ['PATH=/'] },
      rootfs: { type: 'layers', diff_ids: [layerDigest] },
      history: [{ created_by: 'inv scripts/test-scanner.mjs' }],
    }),
  );
  const manifest = imageManifest(config, layerDigest, layer.length);
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: sha256(manifest),
          size: manifest.length,
          platform,
          annotations: { 'io.containerd.image.name': ref, 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
  fs.writeFileSync(
    file,
    tar([
      { name: 'oci-layout', data: Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })) },
      { name: 'index.json', data: index },
      { name: 'blobs/', type: '5' },
      { name: 'blobs/sha256/', type: '5' },
      { name: `blobs/sha256/${sha256(config).slice(7)}`, data: config },
      { name: `blobs/sha256/${sha256(manifest).slice(7)}`, data: manifest },
      { name: `blobs/sha256/${layerDigest.slice(7)}`, data: layer },
    ]),
  );
  const info = { ref, id: sha256(config), binaryBytes: fs.statSync(binary).size };
  fs.writeFileSync(meta, JSON.stringify(info));
  return { ...info, binary, file, reused: false };
}

if (isMain(import.meta.url)) {
  const r = buildTestScanner();
  process.stderr.write(`test-scanner: ${r.reused ? 'reused' : 'built'} ${r.ref} (${r.binaryBytes} bytes)\n`);
  process.stdout.write(`${r.file}\n`);
}
