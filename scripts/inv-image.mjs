// The `inv` image: one definition, for the image users deploy (`npm run image`, scripts/image.mjs)
// and the worker image every test deploys (scripts/worker-image.mjs), which differ only in their
// name. Built from the checkout without Docker: one layer holding Node.js 24 LTS
// (scripts/node-runtime.mjs, from the npm registry, with its symbols stripped: the official binary
// carries 18 MB of them) with exactly the shared libraries it links, the production bundle
// (dist/bundle, made afresh from dist/src by scripts/bundle.mjs: the program and everything it
// uses, no node_modules), bin/ and the CRDs, and Node's compile cache for the worker's start
// (scripts/compile-cache.mjs: a worker Pod's read-only root cannot write one). Tests, TypeScript
// sources, benchmarks, scripts and node_modules stay out. It runs as the unprivileged user
// 65532 and works with a read-only root file system; its entry point is `inv` (the Deployment
// and the workers give the command).
//
// The tag is a digest of the image's sources (the files and the worker's Node options), so a
// changed checkout gives a new tag. The image's blobs (config, layer) are cached under
// .cache/inv-image/<tag>/: every build of one checkout gives the same bytes, which matters
// because the compile cache made from the same files differs in its bytes from build to build.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostArch, imageManifest, sha256, tarEntry } from './oci-archive.mjs';
import { nodeBinary } from './node-runtime.mjs';
import { strippedNode } from './strip-node.mjs';
import {
  COMPILE_CACHE_DIR,
  compileCacheEnv,
  workerNodeOptions,
  writeCompileCache,
} from './compile-cache.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheRoot = path.join(repoRoot, '.cache', 'inv-image');

/** Files of `dir` (recursively) as [relative path, absolute path, lstat], sorted. */
function walk(dir, { skip = () => false } = {}) {
  const out = [];
  const visit = (rel) => {
    const abs = path.join(dir, rel);
    for (const name of fs.readdirSync(abs).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r, name)) continue;
      const st = fs.lstatSync(path.join(dir, r));
      out.push([r, path.join(dir, r), st]);
      if (st.isDirectory()) visit(r);
    }
  };
  visit('');
  return out;
}

/** package.json as it ships: no scripts, no development dependencies (there are no others). */
export function shippedPackageJson(root = repoRoot) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  delete pkg.devDependencies;
  delete pkg.scripts;
  return pkg;
}

/** Shared libraries (and the dynamic loader) that `ldd` lists for `binary`, as absolute paths. */
function sharedLibraries(binary) {
  const r = spawnSync('ldd', [binary], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ldd ${binary} failed: ${r.stderr.trim()}`);
  const libs = [];
  for (const line of r.stdout.split('\n')) {
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s/.exec(line);
    if (m) libs.push(m[1]);
  }
  return libs;
}

/** The layer's entries, in a fixed order, with their data read from disk. */
function layerEntries(root) {
  const entries = [];
  const dirs = new Set();
  const addDir = (p) => {
    const parts = p.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      if (!dirs.has(d)) {
        dirs.add(d);
        entries.push({ name: `${d}/`, type: '5', mode: d === 'tmp' ? 0o1777 : 0o755 });
      }
    }
  };
  const addFile = (name, abs, mode) => {
    addDir(path.posix.dirname(name));
    entries.push({ name, data: fs.readFileSync(abs), mode });
  };
  const addTree = (prefix, absDir, skip) => {
    addDir(prefix);
    for (const [rel, abs, st] of walk(absDir, { skip })) {
      const name = `${prefix}/${rel}`;
      if (st.isDirectory()) addDir(name);
      else if (st.isSymbolicLink())
        entries.push({ name, type: '2', linkname: fs.readlinkSync(abs), mode: 0o777 });
      else if (st.isFile()) addFile(name, abs, st.mode & 0o111 ? 0o755 : 0o644);
    }
  };

  // The runtime: the Node 24 LTS binary from the npm registry (never the host's), and what it
  // links, at the paths the loader looks them up.
  const node = nodeBinary(24);
  addFile('usr/bin/node', strippedNode(node), 0o755);
  for (const lib of sharedLibraries(node)) addFile(lib.replace(/^\//, ''), fs.realpathSync(lib), 0o755);
  addDir('tmp');
  addDir('etc');
  entries.push({
    name: 'etc/passwd',
    data: Buffer.from(
      'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n',
    ),
  });
  entries.push({ name: 'etc/group', data: Buffer.from('root:x:0:\nnonroot:x:65532:\n') });

  // The program.
  const app = (p) => path.join(root, p);
  addDir('app');
  entries.push({
    name: 'app/package.json',
    data: Buffer.from(`${JSON.stringify(shippedPackageJson(root), null, 2)}\n`),
  });
  addTree('app/bin', app('bin'));
  addTree('app/dist/bundle', app('dist/bundle'));
  addTree('app/crds', app('crds'));
  return entries;
}

/**
 * Node's compile cache for the worker's start (scripts/compile-cache.mjs), made by the image's
 * own node on a copy of the image's app directory, as entries under app/.node-compile-cache/.
 */
function compileCacheEntries(entries, nodeOptions) {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-image-app-'));
  try {
    for (const e of entries) {
      if (!e.name.startsWith('app/')) continue;
      const abs = path.join(stage, e.name);
      if (e.type === '5') fs.mkdirSync(abs, { recursive: true });
      else if (e.type === '2') fs.symlinkSync(e.linkname, abs);
      else fs.writeFileSync(abs, e.data, { mode: e.mode ?? 0o644 });
    }
    const appDir = path.join(stage, 'app');
    const files = writeCompileCache({ node: strippedNode(nodeBinary(24)), appDir, nodeOptions });
    const out = [{ name: `app/${COMPILE_CACHE_DIR}/`, type: '5', mode: 0o755 }];
    const dirs = new Set();
    for (const f of files) {
      const dir = path.posix.dirname(f);
      if (dir !== '.' && !dirs.has(dir)) {
        dirs.add(dir);
        out.push({ name: `app/${COMPILE_CACHE_DIR}/${dir}/`, type: '5', mode: 0o755 });
      }
      const data = fs.readFileSync(path.join(appDir, COMPILE_CACHE_DIR, f));
      out.push({ name: `app/${COMPILE_CACHE_DIR}/${f}`, data, mode: 0o644 });
    }
    return out;
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** The image's config: what runs, as whom, with which environment. */
function imageConfig(layerDigest) {
  const platform = { architecture: hostArch(), os: 'linux' };
  return Buffer.from(
    JSON.stringify({
      ...platform,
      config: {
        Entrypoint: ['/usr/bin/node', '/app/bin/run.js'],
        Env: [
          'PATH=/usr/bin:/bin',
          'NODE_ENV=production',
          ...Object.entries(compileCacheEnv('/app')).map(([k, v]) => `${k}=${v}`),
        ],
        WorkingDir: '/app',
        // 65532: the conventional "nonroot" UID; numeric so runAsNonRoot can verify it.
        User: '65532:65532',
      },
      rootfs: { type: 'layers', diff_ids: [layerDigest] },
      history: [{ created_by: 'inv scripts/inv-image.mjs' }],
    }),
  );
}

/**
 * Builds (or reuses) the image. Returns { tag, config (Buffer), manifest (Buffer, over the
 * uncompressed layer), id (the config's digest: the image ID a runtime reports), layer: { digest,
 * size, file }, platform, buildMs, reused }.
 */
export async function buildInvImage(root = repoRoot) {
  for (const need of ['dist/src/commands', 'node_modules']) {
    if (!fs.existsSync(path.join(root, need))) {
      throw new Error(`${need} is missing: run npm ci and npm run build first`);
    }
  }
  // The bundle is made from dist/src every time (a few seconds; esbuild's output is the same for
  // the same input, so the image tag is too), so the image never holds a stale bundle after a
  // bare tsc. bin/run.js drops a manifest older than the compiled commands: make it anew first.
  const steps = [
    ...(fs.existsSync(path.join(root, 'oclif.manifest.json')) ? [] : ['oclif-manifest.mjs']),
    'bundle.mjs',
  ];
  for (const step of steps) {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', step)], {
      cwd: root,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`scripts/${step}: ${r.stderr}`);
  }
  const started = Date.now();
  // The tag is a digest of what the image is made from: the files and the worker's Node
  // options. (The compile cache made from them differs in its bytes from build to build.)
  // The layer's blocks go through both hashes in one pass; on a cache miss only the compile
  // cache's blocks are added.
  const nodeOptions = await workerNodeOptions(root);
  const entries = layerEntries(root);
  const source = createHash('sha256').update(nodeOptions);
  const h = createHash('sha256');
  const parts = [];
  const add = (list, also) => {
    for (const e of list) {
      for (const b of tarEntry(e)) {
        also?.update(b);
        h.update(b);
        parts.push(b);
      }
    }
  };
  add(entries, source);
  const tag = source.digest('hex').slice(0, 12);
  const dir = path.join(cacheRoot, tag);
  const platform = { architecture: hostArch(), os: 'linux' };
  const result = (config, layerDigest, size, reused) => ({
    tag,
    config,
    manifest: imageManifest(config, layerDigest, size),
    id: sha256(config),
    layer: { digest: layerDigest, size, file: path.join(dir, 'layer.tar') },
    platform,
    buildMs: Date.now() - started,
    reused,
  });
  const meta = path.join(dir, 'meta.json');
  if (fs.existsSync(meta)) {
    const { layerDigest, size } = JSON.parse(fs.readFileSync(meta, 'utf8'));
    return result(fs.readFileSync(path.join(dir, 'config.json')), layerDigest, size, true);
  }
  add(compileCacheEntries(entries, nodeOptions));
  const end = Buffer.alloc(1024);
  h.update(end);
  parts.push(end);
  const layerDigest = `sha256:${h.digest('hex')}`;
  const layer = Buffer.concat(parts);
  const config = imageConfig(layerDigest);
  // Older builds are stale by construction; keep only this one. meta.json last: it marks the
  // folder complete.
  fs.rmSync(cacheRoot, { recursive: true, force: true });
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.mkdirSync(tmp, { recursive: true });
  fs.writeFileSync(path.join(tmp, 'layer.tar'), layer);
  fs.writeFileSync(path.join(tmp, 'config.json'), config);
  fs.renameSync(tmp, dir);
  fs.writeFileSync(meta, JSON.stringify({ layerDigest, size: layer.length }));
  return result(config, layerDigest, layer.length, false);
}
