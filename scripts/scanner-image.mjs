#!/usr/bin/env node
// Builds scan mode's scanner images without Docker, as OCI archives `ctr images import` reads,
// like scripts/worker-image.mjs does for the worker:
//   - inv's default scanner `inv.local/inv-trivy-scanner:<tag>`: the worker image's layer (Node,
//     the bundle: `inv node-scan` is in it) and a layer with the Trivy binary at /trivy (built by
//     scripts/tools.mjs) and CA certificates (Trivy fetches its DB over TLS unless told not to);
//   - Eraser's own `inv.local/eraser-trivy-scanner:<tag>`: Eraser's scanner at /trivy-scanner
//     (scripts/trivy.mjs builds it from its source), the same Trivy layer, and the folders its
//     distroless base would give it (/tmp, /var/lib/trivy, its working folder).
// Tags are digests of the layers, so a changed binary or checkout gives a new name. Cached under
// .cache/scanner/. The Dockerfile's `trivy-scanner` stage is how users build the first one.
//
//   node scripts/scanner-image.mjs [inv|eraser]    # prints the archive's path
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostArch, sha256, tar } from './oci-archive.mjs';
import { build as buildTool } from './tools.mjs';
import { eraserScanner, ERASER } from './trivy.mjs';
import { buildWorkerImage } from './worker-image.mjs';
import { isMain } from './process.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(repoRoot, '.cache', 'scanner');
export const INV_SCANNER_REPO = 'inv.local/inv-trivy-scanner';
export const ERASER_SCANNER_REPO = 'inv.local/eraser-trivy-scanner';
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const log = (msg) => process.stderr.write(`scanner-image: ${msg}\n`);

/** The entries of one of our own (ustar, uncompressed) archives or layers, by name. */
function untar(buf) {
  const out = new Map();
  for (let off = 0; off + 512 <= buf.length;) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const name = h.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0', 8);
    off += 512;
    out.set(name, buf.subarray(off, off + size));
    off += Math.ceil(size / 512) * 512;
  }
  return out;
}

/** The worker image's layer and config, read back from its archive. */
async function workerParts() {
  const w = await buildWorkerImage(repoRoot);
  const files = untar(fs.readFileSync(w.file));
  const blob = (d) => files.get(`blobs/sha256/${d.replace(/^sha256:/, '')}`);
  const index = JSON.parse(files.get('index.json').toString());
  const manifest = JSON.parse(blob(index.manifests[0].digest).toString());
  const config = JSON.parse(blob(manifest.config.digest).toString());
  const layer = blob(manifest.layers[0].digest);
  return { ref: w.ref, config, layer: { data: layer, digest: manifest.layers[0].digest } };
}

const dirEntries = (...dirs) =>
  dirs.map((name) => ({ name, type: '5', mode: name === 'tmp/' ? 0o1777 : 0o755 }));

function trivyLayer() {
  const trivy = buildTool('trivy');
  const entries = [{ name: 'trivy', data: fs.readFileSync(trivy), mode: 0o755 }];
  if (fs.existsSync(CA_BUNDLE)) {
    entries.push(...dirEntries('etc/', 'etc/ssl/', 'etc/ssl/certs/'), {
      name: 'etc/ssl/certs/ca-certificates.crt',
      data: fs.readFileSync(CA_BUNDLE),
    });
  }
  entries.push(...dirEntries('tmp/', 'var/', 'var/lib/', 'var/lib/trivy/'));
  const data = tar(entries);
  return { data, digest: sha256(data) };
}

/** An OCI archive of one image over `layers` ({data, digest}), named `repo:<digest of it all>`. */
function writeImage(repo, prefix, layers, imageConfig) {
  const platform = { architecture: hostArch(), os: 'linux' };
  const config = Buffer.from(
    JSON.stringify({
      ...platform,
      config: imageConfig,
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) },
      // `created` set: Trivy v0.74.0 crashes on a history entry without one.
      history: layers.map(() => ({
        created: '1970-01-01T00:00:00Z',
        created_by: 'inv scripts/scanner-image.mjs',
      })),
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: sha256(config),
        size: config.length,
      },
      layers: layers.map((l) => ({
        mediaType: 'application/vnd.oci.image.layer.v1.tar',
        digest: l.digest,
        size: l.data.length,
      })),
    }),
  );
  const tag = sha256(manifest).slice(7, 19);
  const ref = `${repo}:${tag}`;
  const file = path.join(cacheDir, `${prefix}-${tag}.tar`);
  const info = { ref, id: sha256(config), file, bytes: layers.reduce((n, l) => n + l.data.length, 0) };
  if (fs.existsSync(file)) return { ...info, reused: true };
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
  const archive = tar([
    { name: 'oci-layout', data: Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })) },
    { name: 'index.json', data: index },
    { name: 'blobs/', type: '5' },
    { name: 'blobs/sha256/', type: '5' },
    { name: `blobs/sha256/${sha256(config).slice(7)}`, data: config },
    { name: `blobs/sha256/${sha256(manifest).slice(7)}`, data: manifest },
    ...layers.map((l) => ({ name: `blobs/sha256/${l.digest.slice(7)}`, data: l.data })),
  ]);
  fs.mkdirSync(cacheDir, { recursive: true });
  // Older builds of this image are stale by construction; keep only this one.
  for (const f of fs.readdirSync(cacheDir)) {
    if (f.startsWith(`${prefix}-`)) fs.rmSync(path.join(cacheDir, f), { force: true });
  }
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, archive);
  fs.renameSync(tmp, file);
  return { ...info, reused: false };
}

/** inv's default scanner image: `inv node-scan` with Trivy at /trivy. */
export async function buildInvScannerImage() {
  const worker = await workerParts();
  const c = worker.config.config;
  return writeImage(INV_SCANNER_REPO, 'inv-trivy-scanner', [worker.layer, trivyLayer()], {
    Entrypoint: [...c.Entrypoint, 'node-scan'],
    Env: c.Env,
    WorkingDir: c.WorkingDir,
    User: c.User,
  });
}

/** Eraser's Trivy scanner, as its Dockerfile lays it out: /trivy-scanner and /trivy. */
export function buildEraserScannerImage() {
  const bin = eraserScanner();
  const data = tar([{ name: 'trivy-scanner', data: fs.readFileSync(bin), mode: 0o755 }]);
  return writeImage(
    ERASER_SCANNER_REPO,
    'eraser-trivy-scanner',
    [trivyLayer(), { data, digest: sha256(data) }],
    {
      Entrypoint: ['/trivy-scanner'],
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
      WorkingDir: '/var/lib/trivy',
      Labels: { 'org.opencontainers.image.version': ERASER.version },
    },
  );
}

if (isMain(import.meta.url)) {
  try {
    const which = process.argv[2] ?? 'inv';
    const r = which === 'eraser' ? buildEraserScannerImage() : await buildInvScannerImage();
    log(`${r.reused ? 'reused' : 'built'} ${r.ref} (${(r.bytes / 2 ** 20).toFixed(1)} MiB uncompressed)`);
    process.stdout.write(`${r.file}\n`);
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}
