#!/usr/bin/env node
// Builds and runs the local test API server (test/cluster: embedded etcd + the upstream
// kube-apiserver). Usable as a CLI (`up`, `down`, `build`, `status`) and as a module by the
// mocha setup, the demo and the benchmarks.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, isMain, sleep, stopPid } from './process.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(repoRoot, 'test', 'cluster');
const binDir = path.join(repoRoot, '.cache', 'bin');
export const binary = path.join(binDir, 'testcluster');
const hashFile = `${binary}.hash`;
export const defaultDir = process.env.INV_CLUSTER_DIR || path.join(repoRoot, '.cache', 'cluster');

const log = (msg) => process.stderr.write(`cluster: ${msg}\n`);

/** The binaries built from test/cluster: the API server launcher and the upstream components. */
export const binaries = {
  testcluster: binary,
  kubelet: path.join(binDir, 'kubelet'),
  'kube-controller-manager': path.join(binDir, 'kube-controller-manager'),
  'kube-scheduler': path.join(binDir, 'kube-scheduler'),
  kubectl: path.join(binDir, 'kubectl'),
};
const packages = { testcluster: '.', kubelet: './cmd/kubelet' };
for (const name of ['kube-controller-manager', 'kube-scheduler', 'kubectl']) packages[name] = `./cmd/${name}`;

/** `go build` arguments; they are part of the cache key, like the sources. */
function buildArgs(outputDir) {
  // Stamp the real Kubernetes version, so `kubectl version`, discovery and the kubelet's
  // Node status report it.
  const k8s = /k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)/.exec(
    fs.readFileSync(path.join(srcDir, 'go.mod'), 'utf8'),
  );
  const ldflags = ['-s', '-w'];
  if (k8s) {
    for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
      ldflags.push(
        `-X ${pkg}.gitVersion=${k8s[1]}`,
        `-X ${pkg}.gitMajor=${k8s[2]}`,
        `-X ${pkg}.gitMinor=${k8s[3]}`,
      );
      ldflags.push(`-X ${pkg}.gitTreeState=clean`);
    }
  }
  // One `go build` for all mains: they share the compiled packages and link in parallel.
  return [
    'build',
    '-trimpath',
    `-ldflags=${ldflags.join(' ')}`,
    '-o',
    `${outputDir}/`,
    ...Object.values(packages),
  ];
}

/** Go sources of test/cluster (relative paths, sorted), including the cmd/ mains. */
function goSources(dir = srcDir, rel = '') {
  const out = [];
  for (const f of fs.readdirSync(path.join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${f}` : f;
    if (fs.statSync(path.join(dir, r)).isDirectory()) out.push(...goSources(dir, r));
    else if (f.endsWith('.go') || f === 'go.mod' || f === 'go.sum') out.push(r);
  }
  return out;
}

function sourceHash() {
  const h = createHash('sha256');
  h.update(buildArgs('').join('\0'));
  for (const f of goSources()) h.update(f).update(fs.readFileSync(path.join(srcDir, f)));
  return h.digest('hex');
}

/**
 * Builds the binaries (the test API server, kubelet, kube-controller-manager, kube-scheduler)
 * unless binaries built from the same Go sources are cached.
 */
export function build() {
  const want = sourceHash();
  const cached = Object.values(binaries).every((b) => fs.existsSync(b));
  if (cached && fs.existsSync(hashFile) && fs.readFileSync(hashFile, 'utf8') === want) {
    return binary;
  }
  if (spawnSync('go', ['version']).status !== 0) {
    throw new Error('Go is required to build the test cluster (test/cluster); install Go 1.24+');
  }
  log('building kube-apiserver + etcd, kubelet, controller-manager and scheduler from Go modules');
  log('(about 6 minutes on 2 cores with an empty Go cache, measured; later builds are cached)...');
  const started = Date.now();
  fs.mkdirSync(binDir, { recursive: true });
  // Build into a temporary folder, then rename: a concurrent `up` never runs a half-written binary.
  const tmp = path.join(binDir, `.build-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  const r = spawnSync('go', buildArgs(tmp), {
    cwd: srcDir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`go build of test/cluster failed (exit ${r.status})`);
  }
  for (const [name, dest] of Object.entries(binaries)) fs.renameSync(path.join(tmp, name), dest);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.writeFileSync(hashFile, want);
  log(`built in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  return binary;
}

/**
 * `go install`s `packages` (module@version paths) into `dir`, unless every binary in `names` is
 * there already: into a temporary folder first, so a half-built set is never used.
 */
function goInstall(dir, names, packages, { what, tags, usual } = {}) {
  if (names.every((n) => fs.existsSync(path.join(dir, n)))) return dir;
  fs.mkdirSync(binDir, { recursive: true });
  log(
    `building ${what} (${names.join(', ')}) from Go modules (about ${usual} on 2 cores with an empty Go cache; cached after)...`,
  );
  const started = Date.now();
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const r = spawnSync(
    'go',
    ['install', ...(tags ? ['-tags', tags] : []), '-trimpath', '-ldflags=-s -w', ...packages],
    {
      cwd: binDir,
      env: { ...process.env, GOBIN: tmp, CGO_ENABLED: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`go install of ${what} failed (exit ${r.status})`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  log(`built ${what} in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  return dir;
}

/**
 * containerd 2.x (daemon, runc shim, ctr) for the second runtime of the tests, built through the
 * Go module proxy with build tags that avoid C dependencies. runc stays Debian's.
 */
export const CONTAINERD2_VERSION = 'v2.4.2';
export const containerd2Dir = path.join(binDir, `containerd-${CONTAINERD2_VERSION}`);

export function buildContainerd2() {
  const names = ['containerd', 'containerd-shim-runc-v2', 'ctr'];
  return goInstall(
    containerd2Dir,
    names,
    names.map((n) => `github.com/containerd/containerd/v2/cmd/${n}@${CONTAINERD2_VERSION}`),
    { what: `containerd ${CONTAINERD2_VERSION}`, tags: 'no_btrfs no_devmapper no_zfs', usual: '3 min' },
  );
}

/** The CNI plugins the nodes' bridge network needs, built through the Go module proxy. */
export const CNI_VERSION = 'v1.6.2';
export const cniDir = path.join(binDir, `cni-${CNI_VERSION}`);
const cniPlugins = ['main/bridge', 'ipam/host-local', 'main/loopback'];

export function buildCni() {
  return goInstall(
    cniDir,
    cniPlugins.map((p) => path.basename(p)),
    cniPlugins.map((p) => `github.com/containernetworking/plugins/plugins/${p}@${CNI_VERSION}`),
    { what: `the CNI plugins ${CNI_VERSION}`, usual: '20 s' },
  );
}

export function readKubeconfig(file) {
  const text = fs.readFileSync(file, 'utf8');
  const server = /server:\s*(\S+)/.exec(text)?.[1];
  const token = /token:\s*(\S+)/.exec(text)?.[1];
  const ca = /certificate-authority-data:\s*(\S+)/.exec(text)?.[1];
  return { server, token, ca: ca ? Buffer.from(ca, 'base64') : undefined };
}

/** Resolves true when GET /readyz answers 200 with the admin credentials. */
export function readyz(kubeconfig) {
  return new Promise((resolve) => {
    let cfg;
    try {
      cfg = readKubeconfig(kubeconfig);
    } catch {
      resolve(false);
      return;
    }
    const req = https.get(
      `${cfg.server}/readyz`,
      { ca: cfg.ca, headers: { authorization: `Bearer ${cfg.token}` }, timeout: 2000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}

/**
 * Starts the server in `dir` (or reuses one already running there) and waits for /readyz.
 * Returns { kubeconfig, pid, dir, startupMs, reused }.
 */
export async function up(dir = defaultDir, { timeoutMs = 180_000 } = {}) {
  build();
  const pidFile = path.join(dir, 'pid');
  const kubeconfig = path.join(dir, 'admin.kubeconfig');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    if (alive(pid) && (await readyz(kubeconfig))) return { kubeconfig, pid, dir, startupMs: 0, reused: true };
    if (alive(pid)) await stopPid(pid, 20_000);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const out = fs.openSync(path.join(dir, 'server.log'), 'a');
  const child = spawn(binary, ['-dir', dir], { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(pidFile, String(child.pid));
  const readyFile = path.join(dir, 'ready');
  while (Date.now() - started < timeoutMs) {
    if (!alive(child.pid)) {
      throw new Error(`test API server exited during start-up; see ${path.join(dir, 'server.log')}`);
    }
    if (fs.existsSync(readyFile) && (await readyz(kubeconfig))) {
      return { kubeconfig, pid: child.pid, dir, startupMs: Date.now() - started, reused: false };
    }
    await sleep(100);
  }
  await stopPid(child.pid, 20_000);
  throw new Error(`test API server not ready after ${timeoutMs} ms; see ${path.join(dir, 'server.log')}`);
}

/** Stops the server running in `dir` and removes its data. */
export async function down(dir = defaultDir) {
  const pidFile = path.join(dir, 'pid');
  if (fs.existsSync(pidFile)) await stopPid(Number(fs.readFileSync(pidFile, 'utf8')), 20_000);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Restarts the API server process on the same data directory, port and credentials. */
export async function restart(dir = defaultDir) {
  const pidFile = path.join(dir, 'pid');
  await stopPid(Number(fs.readFileSync(pidFile, 'utf8')), 20_000);
  const port = new URL(readKubeconfig(path.join(dir, 'admin.kubeconfig')).server).port;
  fs.rmSync(path.join(dir, 'ready'), { force: true });
  const out = fs.openSync(path.join(dir, 'server.log'), 'a');
  const child = spawn(binary, ['-dir', dir, '-port', port, '-keep'], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(pidFile, String(child.pid));
  const kubeconfig = path.join(dir, 'admin.kubeconfig');
  while (!(fs.existsSync(path.join(dir, 'ready')) && (await readyz(kubeconfig)))) await sleep(100);
}

async function main() {
  const cmd = process.argv[2];
  try {
    if (cmd === 'build') {
      build();
      buildCni();
      buildContainerd2();
    } else if (cmd === 'up') {
      const r = await up();
      log(r.reused ? `reusing running server (pid ${r.pid})` : `ready in ${r.startupMs} ms (pid ${r.pid})`);
      process.stdout.write(`${r.kubeconfig}\n`);
    } else if (cmd === 'down') {
      await down();
      log('stopped and removed');
    } else {
      process.stderr.write('usage: cluster.mjs build|up|down\n');
      process.exitCode = 2;
    }
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) await main();
