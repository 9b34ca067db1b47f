// A read-only loopback registry that serves the images of scripts/oci-archive.mjs (buildArchive)
// over the OCI distribution API, for runtimes that can only PULL an image into their store (CRI-O
// has no import): its registries.conf maps the test registries' names to this address, so an image
// keeps its own name (inv.test/app:1) and nothing leaves the machine.
import http from 'node:http';
import { buildArchive } from './oci-archive.mjs';

const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

/**
 * Serves `images` (buildArchive's input) on 127.0.0.1:`port` until close(). Resolves
 * { port, images: [{ refs, id, manifestDigest }], close }.
 */
export async function serve(images, port = 0) {
  const { archive, images: built } = buildArchive(images);
  return serveArchive(archive, port, built);
}

/**
 * Serves the images of an OCI archive (a tar Buffer, as oci-archive.mjs and worker-image.mjs
 * write them) under the names in its index; resolves { port, refs, images, close }.
 */
export async function serveArchive(archive, port = 0, built = []) {
  const { blobs, tags, refs } = contents(archive);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url || '/', 'http://x');
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    let body;
    let type = 'application/octet-stream';
    if (url.pathname === '/v2/' || url.pathname === '/v2') body = Buffer.from('{}');
    else if (m && m[2] === 'manifests') {
      const digest = m[3].startsWith('sha256:') ? m[3] : tags.get(`${m[1]}:${m[3]}`);
      body = digest && blobs.get(digest);
      type = MANIFEST;
      if (body) res.setHeader('Docker-Content-Digest', digest);
    } else if (m) body = blobs.get(m[3]);
    if (!body || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"errors":[{"code":"NAME_UNKNOWN"}]}');
      return;
    }
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: server.address().port,
    images: built,
    refs,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Blobs by digest, `repo-path:tag` -> manifest digest (the registry host stripped), tagged names. */
function contents(archive) {
  const blobs = new Map();
  let index;
  // The archive is an uncompressed tar: 512-byte headers, data padded to 512.
  for (let off = 0; off + 512 <= archive.length;) {
    const name = archive
      .subarray(off, off + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (!name) break;
    const size = parseInt(
      archive
        .subarray(off + 124, off + 136)
        .toString('utf8')
        .replace(/\0.*$/s, '')
        .trim() || '0',
      8,
    );
    const data = archive.subarray(off + 512, off + 512 + size);
    if (name.startsWith('blobs/sha256/') && size) blobs.set(`sha256:${name.slice(13)}`, data);
    if (name === 'index.json') index = JSON.parse(data.toString('utf8'));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  const tags = new Map();
  const refs = [];
  for (const m of index.manifests) {
    const ref = m.annotations['io.containerd.image.name'];
    if (ref.includes('@')) continue;
    const t = /^(.+):([^/:]+)$/.exec(ref);
    if (t) tags.set(`${repoPath(t[1])}:${t[2]}`, m.digest);
    if (t) refs.push(ref);
  }
  return { blobs, tags, refs };
}

/** The registry host of a reference (docker.io when it has none, as Docker names do). */
export function registryOf(ref) {
  const first = ref.split('/')[0];
  return ref.includes('/') && /[.:]|^localhost$/.test(first) ? first : 'docker.io';
}

/** The repository path inside its registry (library/ for docker.io short names). */
export function repoPath(repo) {
  const host = registryOf(repo);
  const rest = repo.startsWith(`${host}/`) ? repo.slice(host.length + 1) : repo;
  return host === 'docker.io' && !rest.includes('/') ? `library/${rest}` : rest;
}
