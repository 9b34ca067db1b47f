// Builds OCI image-layout archives (the format `ctr images import` reads) from the host's static
// busybox, with no registry, no docker and no tar dependency: a tiny ustar writer packs both the
// image layer and the archive around it. Used by scripts/cri.mjs (the sandbox image) and, through
// test/support/oci.ts, by the tests and the benchmark.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export const busyboxPath = '/bin/busybox';
const BLOCK = 512;

/** Go/OCI architecture name of this host. */
export function hostArch() {
  return (
    { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' }[process.arch] ??
    process.arch
  );
}

export const sha256 = (buf) => `sha256:${createHash('sha256').update(buf).digest('hex')}`;

// ---- ustar ----------------------------------------------------------------------------------

function octal(value, width) {
  // width includes the terminating NUL
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** One 512-byte ustar header. type: '0' file, '2' symlink, '5' directory. */
function header({ name, mode, size = 0, type, linkname = '' }) {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  if (Buffer.byteLength(linkname) > 100) throw new Error(`tar link target too long: ${linkname}`);
  const h = Buffer.alloc(BLOCK, 0);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii'); // uid
  h.write(octal(0, 8), 116, 8, 'ascii'); // gid
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(0, 12), 136, 12, 'ascii'); // mtime: fixed, so the same input gives the same digest
  h.write('        ', 148, 8, 'ascii'); // checksum is computed with this field as spaces
  h.write(type, 156, 1, 'ascii');
  h.write(linkname, 157, 100, 'utf8');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write('root', 265, 32, 'ascii');
  h.write('root', 297, 32, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return h;
}

/**
 * A complete tar stream from entries { name, data?, mode?, type?, linkname? } (type defaults
 * to a regular file when data is given).
 */
export function tar(entries) {
  const parts = [];
  for (const e of entries) {
    parts.push(...tarEntry(e));
  }
  parts.push(Buffer.alloc(BLOCK * 2)); // end-of-archive marker
  return Buffer.concat(parts);
}

/** One PAX record: "<length> <key>=<value>\n", where length counts the whole record. */
function paxRecord(key, value) {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body);
  while (String(len).length + Buffer.byteLength(body) !== len)
    len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

/**
 * The blocks of one entry. Names or link targets longer than ustar's 100 bytes (deep
 * node_modules paths in the worker image) get a PAX extended header first, which every tar
 * reader that containerd uses understands.
 */
export function tarEntry(e) {
  const parts = [];
  const data = e.data ?? Buffer.alloc(0);
  const type = e.type ?? '0';
  let name = e.name;
  let linkname = e.linkname ?? '';
  const long = Buffer.byteLength(name) > 100 || Buffer.byteLength(linkname) > 100;
  if (long) {
    let records = '';
    if (Buffer.byteLength(name) > 100) records += paxRecord('path', name);
    if (Buffer.byteLength(linkname) > 100) records += paxRecord('linkpath', linkname);
    const pax = Buffer.from(records);
    parts.push(header({ name: 'PaxHeaders/entry', mode: 0o644, size: pax.length, type: 'x' }), pax);
    const padPax = (BLOCK - (pax.length % BLOCK)) % BLOCK;
    if (padPax) parts.push(Buffer.alloc(padPax));
    name =
      Buffer.byteLength(name) > 100
        ? Buffer.from(name)
            .subarray(0, 100)
            .toString('latin1')
            .replace(/[^\x20-\x7e]/g, '_')
        : name;
    linkname = Buffer.byteLength(linkname) > 100 ? '' : linkname;
  }
  const size = type === '0' || type === 'x' ? data.length : 0;
  parts.push(
    header({
      name,
      mode: e.mode ?? (type === '5' ? 0o755 : 0o644),
      size,
      type,
      linkname,
    }),
  );
  if (size) {
    parts.push(data);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  return parts;
}

// ---- image ----------------------------------------------------------------------------------

/**
 * An OCI image manifest for `config` (bytes) over one uncompressed tar layer, or over several:
 * `more` lists further [digest, size] pairs, in order.
 */
export function imageManifest(config, layerDigest, layerSize, more = []) {
  return Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: sha256(config),
        size: config.length,
      },
      layers: [[layerDigest, layerSize], ...more].map(([digest, size]) => ({
        mediaType: 'application/vnd.oci.image.layer.v1.tar',
        digest,
        size,
      })),
    }),
  );
}

/**
 * The OCI image-layout archive (what `ctr images import` reads) of one image named `ref`:
 * `manifest` (bytes) and its blobs, [digest, Buffer] pairs (config and layers).
 */
export function imageArchive({ ref, manifest, platform, blobs }) {
  const tag = ref.includes('@') ? undefined : /:([^/:]+)$/.exec(ref)?.[1];
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: JSON.parse(manifest.toString()).mediaType,
          digest: sha256(manifest),
          size: manifest.length,
          platform,
          annotations: {
            'io.containerd.image.name': ref,
            ...(tag ? { 'org.opencontainers.image.ref.name': tag } : {}),
          },
        },
      ],
    }),
  );
  const seen = new Set([sha256(manifest)]);
  return tar([
    { name: 'oci-layout', data: Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })) },
    { name: 'index.json', data: index },
    { name: 'blobs/', type: '5' },
    { name: 'blobs/sha256/', type: '5' },
    { name: `blobs/sha256/${sha256(manifest).slice(7)}`, data: manifest },
    ...blobs
      .filter(([digest]) => !seen.has(digest) && seen.add(digest))
      .map(([digest, data]) => ({ name: `blobs/sha256/${digest.slice(7)}`, data })),
  ]);
}

/**
 * A layer of plain files over the busybox layer: [{ path, data, mode? }], parent folders made.
 * What the scan-mode tests put in an image for Trivy to read (/etc/os-release,
 * /var/lib/dpkg/status).
 */
export function filesLayer(files) {
  const entries = [];
  const dirs = new Set();
  for (const f of files) {
    const parts = f.path.replace(/^\/+/, '').split('/');
    for (let i = 1; i < parts.length; i++) {
      const d = `${parts.slice(0, i).join('/')}/`;
      if (!dirs.has(d)) {
        dirs.add(d);
        entries.push({ name: d, type: '5', mode: 0o755 });
      }
    }
    entries.push({ name: parts.join('/'), data: Buffer.from(f.data), mode: f.mode ?? 0o644 });
  }
  const data = tar(entries);
  return { data, digest: sha256(data) };
}

let cachedLayer;

/** The single uncompressed layer shared by every test image: busybox and a few applets. */
export function busyboxLayer() {
  if (cachedLayer) return cachedLayer;
  if (!fs.existsSync(busyboxPath)) {
    throw new Error(
      `${busyboxPath} not found: install the Debian package busybox-static (node scripts/ensure-deps.mjs)`,
    );
  }
  const dirs = ['bin/', 'dev/', 'etc/', 'proc/', 'sys/', 'tmp/'];
  const applets = ['sh', 'sleep', 'true', 'false', 'echo', 'cat', 'ls'];
  const data = tar([
    ...dirs.map((name) => ({ name, type: '5', mode: name === 'tmp/' ? 0o1777 : 0o755 })),
    { name: 'bin/busybox', data: fs.readFileSync(busyboxPath), mode: 0o755 },
    ...applets.map((a) => ({ name: `bin/${a}`, type: '2', linkname: 'busybox', mode: 0o777 })),
  ]);
  cachedLayer = { data, digest: sha256(data) };
  return cachedLayer;
}

/**
 * Builds the archive bytes for one or more images sharing the busybox layer.
 * images: [{ refs: string[], distinct: string, cmd?: string[], entrypoint?: string[], digestRefs?: boolean,
 * padBytes?: number, files?: [{ path, data, mode? }], created?: string }] (files: a second layer, see
 * filesLayer; padBytes: one more layer, a file of that size).
 * `distinct` goes into a config label and env, so images with different `distinct` values get
 * different image IDs. digestRefs also names the image `<repo>@<manifest digest>` for each
 * tagged ref, which is how containerd records a pulled image's repo digest (CRI repoDigests).
 * Returns { archive: Buffer, images: [{ refs, id, manifestDigest }] } where id is the config
 * digest (the CRI image ID) and manifestDigest is what repoDigests carry.
 */
export function buildArchive(images) {
  const layer = busyboxLayer();
  const platform = { architecture: hostArch(), os: 'linux' };
  const blobs = new Map([[layer.digest, layer.data]]);
  const manifests = [];
  const out = [];
  for (const img of images) {
    const extra = img.files?.length ? filesLayer(img.files) : undefined;
    if (extra) blobs.set(extra.digest, extra.data);
    // padBytes: one more layer, a file of that many bytes of its own (a test image of a chosen size).
    const pad = img.padBytes
      ? (() => {
          const data = tar([{ name: 'pad', data: Buffer.alloc(img.padBytes, `${img.distinct}:`) }]);
          return { data, digest: sha256(data) };
        })()
      : undefined;
    if (pad) blobs.set(pad.digest, pad.data);
    const config = Buffer.from(
      JSON.stringify({
        ...platform,
        // The image's creation time, when the test sets one (keep-newest orders by it).
        ...(img.created ? { created: img.created } : {}),
        config: {
          Env: ['PATH=/bin', `INV_TEST_DISTINCT=${img.distinct}`],
          ...(img.entrypoint ? { Entrypoint: img.entrypoint } : {}),
          Cmd: img.cmd ?? ['/bin/sleep', '3600'],
          Labels: { 'inv.test/distinct': String(img.distinct) },
        },
        rootfs: {
          type: 'layers',
          diff_ids: [layer.digest, ...(extra ? [extra.digest] : []), ...(pad ? [pad.digest] : [])],
        },
        // Images with files are the ones Trivy scans: Trivy v0.74.0 dereferences each history
        // entry's `created` without checking it (pkg/fanal/image/daemon/containerd.go), and
        // crashes on an image without one. A fixed time keeps the digest reproducible.
        history: extra
          ? [
              { created: '1970-01-01T00:00:00Z', created_by: 'inv scripts/oci-archive.mjs' },
              { created: '1970-01-01T00:00:00Z', created_by: 'inv scripts/oci-archive.mjs (files)' },
            ]
          : [{ created_by: 'inv scripts/oci-archive.mjs' }],
      }),
    );
    const configDigest = sha256(config);
    const manifest = imageManifest(config, layer.digest, layer.data.length, [
      ...(extra ? [[extra.digest, extra.data.length]] : []),
      ...(pad ? [[pad.digest, pad.data.length]] : []),
    ]);
    const manifestDigest = sha256(manifest);
    blobs.set(configDigest, config);
    blobs.set(manifestDigest, manifest);
    // One index entry per name: containerd's importer creates one image record per entry and
    // takes the full name from io.containerd.image.name.
    const names = [...img.refs];
    if (img.digestRefs) {
      for (const ref of img.refs) {
        const repo = ref.replace(/@.*$/, '').replace(/:[^/:]+$/, '');
        const byDigest = `${repo}@${manifestDigest}`;
        if (!names.includes(byDigest)) names.push(byDigest);
      }
    }
    for (const ref of names) {
      const tag = ref.includes('@') ? undefined : /:([^/:]+)$/.exec(ref)?.[1];
      manifests.push({
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: manifestDigest,
        size: manifest.length,
        platform,
        annotations: {
          'io.containerd.image.name': ref,
          ...(tag ? { 'org.opencontainers.image.ref.name': tag } : {}),
        },
      });
    }
    out.push({ refs: names, id: configDigest, manifestDigest });
  }
  const index = Buffer.from(JSON.stringify({ schemaVersion: 2, manifests }));
  const archive = tar([
    { name: 'oci-layout', data: Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })) },
    { name: 'index.json', data: index },
    { name: 'blobs/', type: '5' },
    { name: 'blobs/sha256/', type: '5' },
    ...[...blobs].map(([digest, data]) => ({ name: `blobs/sha256/${digest.slice(7)}`, data })),
  ]);
  return { archive, images: out };
}

/** buildArchive + write to `file`. */
export function writeArchive(file, images) {
  const { archive, images: built } = buildArchive(images);
  fs.writeFileSync(file, archive);
  return built;
}

/**
 * Imports an archive into containerd's CRI namespace with ctr, unpacked for the snapshotter
 * the CRI plugin uses (otherwise containers could not be created from it).
 */
export function importArchive({
  address,
  file,
  snapshotter = 'overlayfs',
  namespace = 'k8s.io',
  ctr = 'ctr',
}) {
  const r = spawnSync(
    ctr,
    ['--address', address, '--namespace', namespace, 'images', 'import', '--snapshotter', snapshotter, file],
    // ctr 2.x prints a line per image: keep stderr for errors, with room to spare.
    { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.status !== 0) {
    throw new Error(
      `ctr images import ${file} failed (exit ${r.status ?? r.signal}): ${(r.stderr || '').trim().split('\n').slice(-3).join(' ')}`,
    );
  }
}
