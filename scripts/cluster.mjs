#!/usr/bin/env node
// Builds and runs the local test API server (test/cluster: embedded etcd + the upstream
// kube-apiserver). Usable as a CLI (`up`, `down`, `build`, `status`) and as a module by the
// mocha setup, the demo and the benchmarks. INV_K8S_VERSION picks the Kubernetes release
// (scripts/k8s-versions.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { K8S_BUILDS, K8S_VERSIONS, selectedK8sVersion } from './k8s-versions.mjs';
import { alive, isMain, sleep, stopPid } from './process.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(repoRoot, 'test', 'cluster');
const binDir = path.join(repoRoot, '.cache', 'bin');
export const defaultDir = process.env.INV_CLUSTER_DIR || path.join(repoRoot, '.cache', 'cluster');

const log = (msg) => process.stderr.write(`cluster: ${msg}\n`);

/** The Kubernetes release this process builds and runs (INV_K8S_VERSION; scripts/k8s-versions.mjs). */
export const k8sVersion = selectedK8sVersion();

/** Where a release's binaries are kept: one folder per release, rebuilt when its key changes. */
const k8sBinDir = (version) => path.join(binDir, `k8s-${version}`);

/** The binaries built from test/cluster for `version`: the API server launcher and the upstream components. */
export function binariesFor(version) {
  return Object.fromEntries(K8S_BUILDS[version].components.map((n) => [n, path.join(k8sBinDir(version), n)]));
}
/** This process's release's binaries (a release built without a component has no entry for it). */
export const binaries = binariesFor(k8sVersion);
export const binary = binaries.testcluster;
const packageOf = (name) => (name === 'testcluster' ? '.' : `./cmd/${name}`);

/** `go build` arguments for `version`; they are part of the cache key, like the sources. */
function buildArgs(version, outputDir) {
  const { modfile, tags, components } = K8S_BUILDS[version];
  // Stamp the real Kubernetes version, so `kubectl version`, discovery and the kubelet's
  // Node status report it.
  const k8s = /k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)/.exec(
    fs.readFileSync(path.join(srcDir, modfile ?? 'go.mod'), 'utf8'),
  );
  if (k8s?.[1] !== version)
    throw new Error(`${modfile ?? 'go.mod'} does not require k8s.io/kubernetes ${version}`);
  const ldflags = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    ldflags.push(
      `-X ${pkg}.gitVersion=${k8s[1]}`,
      `-X ${pkg}.gitMajor=${k8s[2]}`,
      `-X ${pkg}.gitMinor=${k8s[3]}`,
    );
    ldflags.push(`-X ${pkg}.gitTreeState=clean`);
  }
  // One `go build` for all mains: they share the compiled packages and link in parallel.
  return [
    'build',
    ...(modfile ? [`-modfile=${modfile}`] : []),
    ...(tags.length ? ['-tags', tags.join(',')] : []),
    '-trimpath',
    `-ldflags=${ldflags.join(' ')}`,
    '-o',
    `${outputDir}/`,
    ...components.map(packageOf),
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

function sourceHash(version) {
  const h = createHash('sha256');
  h.update(buildArgs(version, '').join('\0'));
  const { modfile } = K8S_BUILDS[version];
  const files = goSources();
  if (modfile) files.push(modfile, modfile.replace(/\.mod$/, '.sum'));
  for (const f of files) h.update(f).update(fs.readFileSync(path.join(srcDir, f)));
  return h.digest('hex');
}

/**
 * Builds `version`'s binaries (the test API server, and for a full release kubelet,
 * kube-controller-manager, kube-scheduler and kubectl) unless binaries built from the same Go
 * sources and arguments are cached. Returns the test API server's path.
 */
export function build(version = k8sVersion) {
  const want = sourceHash(version);
  const dir = k8sBinDir(version);
  const bins = binariesFor(version);
  const hashFile = path.join(dir, '.hash');
  const cached = Object.values(bins).every((b) => fs.existsSync(b));
  if (cached && fs.existsSync(hashFile) && fs.readFileSync(hashFile, 'utf8') === want) {
    return bins.testcluster;
  }
  if (spawnSync('go', ['version']).status !== 0) {
    throw new Error('Go is required to build the test cluster (test/cluster); install Go 1.26+');
  }
  log(`building Kubernetes ${version} (${Object.keys(bins).join(', ')}) from Go modules`);
  log('(6-8 minutes a release on 2 cores with an empty Go cache, measured; later builds are cached)...');
  const started = Date.now();
  fs.mkdirSync(dir, { recursive: true });
  // Build into a temporary folder, then rename: a concurrent `up` never runs a half-written binary.
  const tmp = path.join(binDir, `.build-${version}-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  const r = spawnSync('go', buildArgs(version, tmp), {
    cwd: srcDir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`go build of test/cluster for Kubernetes ${version} failed (exit ${r.status})`);
  }
  for (const [name, dest] of Object.entries(bins)) fs.renameSync(path.join(tmp, name), dest);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.writeFileSync(hashFile, want);
  log(`built Kubernetes ${version} in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  return bins.testcluster;
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
  const versionFile = path.join(dir, 'version');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    const sameRelease = fs.existsSync(versionFile) && fs.readFileSync(versionFile, 'utf8') === k8sVersion;
    if (alive(pid) && sameRelease && (await readyz(kubeconfig)))
      return { kubeconfig, pid, dir, startupMs: 0, reused: true };
    if (alive(pid)) await stopPid(pid, 20_000);
  }
  keepWarnings(dir);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(versionFile, k8sVersion);
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

/** The file in a server's folder where it records every Warning header it returns (test/cluster/warnings.go). */
export const warningsFile = (dir) => path.join(dir, 'api-warnings.jsonl');

/**
 * Before a server's folder goes: its recorded warnings are appended, each naming the folder, to
 * INV_API_WARNINGS_LOG when that is set (the tests set it: test/support/api-warnings.ts fails a
 * run on a warning it does not expect, from every server the run started and stopped).
 */
function keepWarnings(dir) {
  const log = process.env.INV_API_WARNINGS_LOG;
  if (!log || !fs.existsSync(warningsFile(dir))) return;
  const lines = fs.readFileSync(warningsFile(dir), 'utf8').split('\n').filter(Boolean);
  const tagged = lines.map((l) => JSON.stringify({ cluster: path.resolve(dir), ...JSON.parse(l) }));
  if (tagged.length) fs.appendFileSync(log, `${tagged.join('\n')}\n`);
}

/**
 * The pid in `dir`'s pid file when that process is still this folder's server: a pid file can
 * outlive its server, and its number can by then belong to another process (another test's API
 * server), which a blind SIGTERM would stop mid-test.
 */
function serverPid(dir) {
  const pidFile = path.join(dir, 'pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes(dir) ? pid : undefined;
  } catch {
    return undefined; // gone
  }
}

/** Stops the server running in `dir` and removes its data. */
export async function down(dir = defaultDir) {
  const pid = serverPid(dir);
  if (pid !== undefined) await stopPid(pid, 20_000);
  keepWarnings(dir);
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
      // --all: every tested release (scripts/k8s-versions.mjs), one after the other, as npm test needs.
      for (const v of process.argv.includes('--all') ? K8S_VERSIONS : [k8sVersion]) build(v);
      buildCni();
      buildContainerd2();
    } else if (cmd === 'up') {
      const r = await up();
      log(
        r.reused
          ? `reusing running server (pid ${r.pid})`
          : `Kubernetes ${k8sVersion} ready in ${r.startupMs} ms (pid ${r.pid})`,
      );
      process.stdout.write(`${r.kubeconfig}\n`);
    } else if (cmd === 'down') {
      await down();
      log('stopped and removed');
    } else {
      process.stderr.write('usage: cluster.mjs build [--all]|up|down  (INV_K8S_VERSION picks the release)\n');
      process.exitCode = 2;
    }
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) await main();
