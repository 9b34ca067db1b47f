#!/usr/bin/env node
// Builds scan mode's scanner images without Docker, as OCI archives `ctr images import` reads,
// like scripts/worker-image.mjs does for the worker:
//   - inv's default scanner `inv.local/inv-trivy-scanner:<tag>`: the `inv` image's layer (Node,
//     the bundle: `inv node-scan` is in it) and a layer with the Trivy binary at /trivy (built by
//     scripts/tools.mjs) and CA certificates (Trivy fetches its DB over TLS unless told not to);
//   - Eraser's own `inv.local/eraser-trivy-scanner:<tag>`: Eraser's scanner at /trivy-scanner
//     (scripts/trivy.mjs builds it from its source), the same Trivy layer, and the folders its
//     distroless base would give it (/tmp, /var/lib/trivy, its working folder).
// Tags are digests of the layers, so a changed binary or checkout gives a new name. Cached under
// .cache/scanner/. `npm run image -- --scanner-push REF` pushes the first one for users
// (invScannerParts: the same layers and config, named REF).
//
//   node scripts/scanner-image.mjs [inv|eraser]    # prints the archive's path
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostArch, imageArchive, sha256, tar } from './oci-archive.mjs';
import { build as buildTool } from './tools.mjs';
import { eraserScanner, ERASER } from './trivy.mjs';
import { buildInvImage } from './inv-image.mjs';
import { isMain } from './process.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(repoRoot, '.cache', 'scanner');
export const INV_SCANNER_REPO = 'inv.local/inv-trivy-scanner';
export const ERASER_SCANNER_REPO = 'inv.local/eraser-trivy-scanner';
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const log = (msg) => process.stderr.write(`scanner-image: ${msg}\n`);

/** The `inv` image's layer and config (scripts/inv-image.mjs). */
async function invParts() {
  const image = await buildInvImage(repoRoot);
  const layer = { data: fs.readFileSync(image.layer.file), digest: image.layer.digest };
  return { config: JSON.parse(image.config.toString()), layer };
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

/** The config and manifest of one image over `layers` ({data, digest}). */
export function imageParts(layers, imageConfig) {
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
  return { config, manifest, layers, platform };
}

/** An OCI archive of one image over `layers`, named `repo:<digest of it all>`. */
function writeImage(repo, prefix, layers, imageConfig) {
  const { config, manifest, platform } = imageParts(layers, imageConfig);
  const tag = sha256(manifest).slice(7, 19);
  const ref = `${repo}:${tag}`;
  const file = path.join(cacheDir, `${prefix}-${tag}.tar`);
  const info = { ref, id: sha256(config), file, bytes: layers.reduce((n, l) => n + l.data.length, 0) };
  if (fs.existsSync(file)) return { ...info, reused: true };
  const archive = imageArchive({
    ref,
    manifest,
    platform,
    blobs: [[sha256(config), config], ...layers.map((l) => [l.digest, l.data])],
  });
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

/** The layers and config of inv's default scanner image (below), for `npm run image`. */
export async function invScannerParts() {
  const inv = await invParts();
  const c = inv.config.config;
  return imageParts([inv.layer, trivyLayer()], {
    Entrypoint: [...c.Entrypoint, 'node-scan'],
    Env: c.Env,
    WorkingDir: c.WorkingDir,
    User: c.User,
  });
}

/** inv's default scanner image: `inv node-scan` with Trivy at /trivy. */
export async function buildInvScannerImage() {
  const { layers, config } = await invScannerParts();
  return writeImage(INV_SCANNER_REPO, 'inv-trivy-scanner', layers, JSON.parse(config.toString()).config);
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
