#!/usr/bin/env node
// Starts and stops a PRIVATE containerd for the CRI tests, the demo and the benchmarks: its own
// config, root, state and sockets under one directory, so it never touches a host containerd
// (/run/containerd) and several can run side by side. Usable as a CLI (`up`, `down`) and as a
// module (mocha global setup). Pods use host networking, so no CNI is configured.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, isMain, sleep, stopPid } from './process.mjs';
import { buildContainerd2 } from './cluster.mjs';
import { importArchive, writeArchive } from './oci-archive.mjs';
import * as crio from './crio.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const defaultDir = process.env.INV_CRI_DIR || path.join(repoRoot, '.cache', 'cri');
/** The sandbox ("pause") image: busybox sleeping, imported locally, never pulled. */
export const sandboxImage = 'inv.test/pause:1';

const log = (msg) => process.stderr.write(`cri: ${msg}\n`);

export const socketPath = (dir) => path.join(path.resolve(dir), 'containerd.sock');

/** containerd's registry `config_path` (a real node's /etc/containerd/certs.d): HOST:PORT/hosts.toml, read per pull. */
export const registryHostsDir = (dir) => path.join(path.resolve(dir), 'certs.d');

/**
 * The runtimes the tests run on: Debian's containerd 1.6 (runtime.v1 and v1alpha2, never pins an
 * image), containerd 2.x built from Go modules (runtime.v1 only, pins its sandbox image), and
 * CRI-O built from Go modules (scripts/crio.mjs: pins its pause image and pinned_images).
 */
export const RUNTIMES = ['containerd', 'containerd2', 'crio'];
export const defaultDirFor = (runtime) =>
  runtime === 'containerd2'
    ? process.env.INV_CRI2_DIR || path.join(repoRoot, '.cache', 'cri-containerd2')
    : runtime === 'crio'
      ? process.env.INV_CRIO_DIR || path.join(repoRoot, '.cache', 'cri-crio')
      : defaultDir;

/** Where the CRI socket of the runtime in `dir` is. */
export const criSocketPath = (dir) => (runtimeOf(dir) === 'crio' ? crio.socketPath(dir) : socketPath(dir));

/** Binaries of a runtime: the daemon, its ctr, and the folder to put first on PATH (its shim). */
function binaries(runtime) {
  if (runtime === 'containerd2') {
    const d = buildContainerd2();
    return { containerd: path.join(d, 'containerd'), ctr: path.join(d, 'ctr'), pathPrefix: d };
  }
  if (runtime === 'crio') return { ...crio.buildCrio(), ctr: '' };
  if (runtime !== 'containerd')
    throw new Error(`--runtime ${runtime}: must be one of ${RUNTIMES.join(', ')}`);
  return { containerd: 'containerd', ctr: 'ctr', pathPrefix: '' };
}

/** The runtime that runs (or ran) in `dir`. */
export function runtimeOf(dir) {
  try {
    return fs.readFileSync(path.join(dir, 'runtime'), 'utf8').trim() || 'containerd';
  } catch {
    return 'containerd';
  }
}

/** The ctr that matches the runtime in `dir`. */
export const ctrFor = (dir) => binaries(runtimeOf(dir)).ctr;

function ctr(dir, args, timeoutMs = 10_000) {
  return spawnSync(ctrFor(dir), ['--address', socketPath(dir), '--timeout', '5s', ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
}

/** The part both configurations share: sockets in `d`, no debug or metrics listener, opt in `d`. */
const daemonSections = (d) => `[grpc]
  address = "${d}/containerd.sock"

[ttrpc]
  address = "${d}/containerd.sock.ttrpc"

[debug]
  address = ""
  level = "info"

[metrics]
  address = ""

[plugins]
  [plugins."io.containerd.internal.v1.opt"]
    path = "${d}/opt"
`;

/**
 * containerd 2.x configuration (version 3), with the same conventions as config(): its own
 * folders, restrict_oom_score_adj, the locally imported sandbox image (which 2.x pins), private
 * CNI folders, and no NRI socket under /var/run.
 */
function config2(dir, snapshotter) {
  const d = path.resolve(dir);
  return `version = 3
root = "${d}/root"
state = "${d}/state"
disabled_plugins = [
  "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.erofs",
  "io.containerd.snapshotter.v1.blockfile",
  "io.containerd.tracing.processor.v1.otlp",
  "io.containerd.internal.v1.tracing",
  "io.containerd.nri.v1.nri",
]

${daemonSections(d)}  [plugins."io.containerd.cri.v1.images"]
    snapshotter = "${snapshotter}"
    [plugins."io.containerd.cri.v1.images".pinned_images]
      sandbox = "${sandboxImage}"
    [plugins."io.containerd.cri.v1.images".registry]
      config_path = "${registryHostsDir(d)}"
  [plugins."io.containerd.cri.v1.runtime"]
    restrict_oom_score_adj = true
    enable_selinux = false
    [plugins."io.containerd.cri.v1.runtime".containerd]
      default_runtime_name = "runc"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.cri.v1.runtime".cni]
      bin_dirs = ["${d}/cni/bin"]
      conf_dir = "${d}/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri"]
    disable_tcp_service = true
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
`;
}

function config(dir, snapshotter) {
  const d = path.resolve(dir);
  // Why: without restrict_oom_score_adj runc fails in this kind of sandbox ("can't get final child's
  // PID from pipe"), as it may not lower the oom score below containerd's. sandbox_image is imported
  // by up(), never pulled. cni dirs point into `dir` (the CRI tests run host-network sandboxes only).
  // Unneeded snapshotters/tracing are disabled so start-up is fast and quiet.
  return `version = 2
root = "${d}/root"
state = "${d}/state"
disabled_plugins = [
  "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.zfs",
  "io.containerd.tracing.processor.v1.otlp",
  "io.containerd.internal.v1.tracing",
]

${daemonSections(d)}  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "${sandboxImage}"
    restrict_oom_score_adj = true
    disable_tcp_service = true
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
    enable_selinux = false
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "${snapshotter}"
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "${d}/cni/bin"
      conf_dir = "${d}/cni/net.d"
    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = "${registryHostsDir(d)}"
`;
}

/** Status ("ok", "skip", "error") of plugin type/id, per `ctr plugins ls`. */
function pluginStatus(dir, type, id) {
  const r = ctr(dir, ['plugins', 'ls']);
  for (const line of (r.stdout || '').split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols[0] === type && cols[1] === id) return cols[cols.length - 1];
  }
  return 'missing';
}

async function start(dir, snapshotter, timeoutMs, wrap) {
  const runtime = runtimeOf(dir);
  const bins = binaries(runtime);
  const text = runtime === 'containerd2' ? config2(dir, snapshotter) : config(dir, snapshotter);
  fs.writeFileSync(path.join(dir, 'config.toml'), text);
  const out = fs.openSync(path.join(dir, 'containerd.log'), 'a');
  const [cmd, args] = wrap(bins.containerd, ['--config', path.join(dir, 'config.toml')]);
  // containerd finds its shim on PATH: containerd 2.x must start its own, not Debian's.
  const env = bins.pathPrefix
    ? { ...process.env, PATH: `${bins.pathPrefix}:${process.env.PATH}` }
    : process.env;
  const child = spawn(cmd, args, {
    env,
    detached: true,
    stdio: ['ignore', out, out],
  });
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(path.join(dir, 'pid'), String(child.pid));
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (!alive(child.pid))
      throw new Error(`containerd exited during start-up; see ${path.join(dir, 'containerd.log')}`);
    if (fs.existsSync(socketPath(dir)) && ctr(dir, ['version']).status === 0) return child.pid;
    await sleep(100);
  }
  await stopPid(child.pid);
  throw new Error(`containerd not answering after ${timeoutMs} ms; see ${path.join(dir, 'containerd.log')}`);
}

/**
 * Starts containerd in `dir` (or reuses one already running there), imports the sandbox image
 * and returns { endpoint, address, pid, dir, snapshotter, reused }.
 * `wrap(cmd, args)` returns the [cmd, args] actually spawned; the node script uses it to start
 * containerd in a mount namespace of its own (the wrapper must exec containerd, keeping its pid).
 */
export async function up(
  dir = defaultDir,
  { timeoutMs = 60_000, wrap = (cmd, args) => [cmd, args], runtime = 'containerd', pinned = [] } = {},
) {
  binaries(runtime); // validates the name (and builds containerd 2.x or CRI-O when needed)
  dir = path.resolve(dir);
  if (runtime === 'crio') return upCrio(dir, { timeoutMs, wrap, pinned });
  const pidFile = path.join(dir, 'pid');
  const address = socketPath(dir);
  const endpoint = `unix://${address}`;
  if (Buffer.byteLength(address) > 100) throw new Error(`socket path too long for a unix socket: ${address}`);
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    if (alive(pid) && runtimeOf(dir) === runtime && ctr(dir, ['version']).status === 0) {
      const snapshotter = fs.readFileSync(path.join(dir, 'snapshotter'), 'utf8').trim();
      return { endpoint, address, pid, dir, snapshotter, runtime, reused: true };
    }
    await down(dir);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  for (const d of [path.join(dir, 'cni', 'net.d'), path.join(dir, 'cni', 'bin'), registryHostsDir(dir)])
    fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(dir, 'runtime'), runtime);

  // overlayfs is what real nodes use; when the kernel or the backing filesystem cannot do it
  // (the plugin reports "skip"/"error"), fall back to the native (copying) snapshotter.
  let snapshotter = process.env.INV_CRI_SNAPSHOTTER || 'overlayfs';
  let pid = await start(dir, snapshotter, timeoutMs, wrap);
  if (
    snapshotter === 'overlayfs' &&
    pluginStatus(dir, 'io.containerd.snapshotter.v1', 'overlayfs') !== 'ok'
  ) {
    log('overlayfs snapshotter unavailable here; falling back to native');
    await stopPid(pid);
    snapshotter = 'native';
    pid = await start(dir, snapshotter, timeoutMs, wrap);
  }
  fs.writeFileSync(path.join(dir, 'snapshotter'), snapshotter);
  const cri = pluginStatus(dir, 'io.containerd.grpc.v1', 'cri');
  if (cri !== 'ok') {
    await down(dir);
    throw new Error(`containerd CRI plugin status is "${cri}"; see ${path.join(dir, 'containerd.log')}`);
  }
  const archive = path.join(dir, 'sandbox-image.tar');
  writeArchive(archive, [{ refs: [sandboxImage], distinct: 'sandbox', cmd: ['/bin/sleep', '2147483647'] }]);
  importArchive({ address, file: archive, snapshotter, ctr: ctrFor(dir) });
  return { endpoint, address, pid, dir, snapshotter, runtime, reused: false };
}

/** up() for CRI-O: a fresh instance (or the one running in `dir`), its sandbox image pulled in. */
async function upCrio(dir, { timeoutMs, wrap, pinned }) {
  const address = crio.socketPath(dir);
  const endpoint = `unix://${address}`;
  if (Buffer.byteLength(address) > 100) throw new Error(`socket path too long for a unix socket: ${address}`);
  const pidFile = path.join(dir, 'pid');
  if (fs.existsSync(pidFile) && runtimeOf(dir) === 'crio') {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    if (alive(pid) && fs.existsSync(address)) {
      const snapshotter = fs.readFileSync(path.join(dir, 'snapshotter'), 'utf8').trim();
      return { endpoint, address, pid, dir, snapshotter, runtime: 'crio', reused: true };
    }
  }
  if (fs.existsSync(dir)) await down(dir);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'runtime'), 'crio');
  const { pid, driver } = await crio.start(dir, { sandboxImage, pinned, timeoutMs, wrap });
  fs.writeFileSync(path.join(dir, 'snapshotter'), driver);
  try {
    await crio.importImages(dir, [
      { refs: [sandboxImage], distinct: 'sandbox', cmd: ['/bin/sleep', '2147483647'] },
    ]);
  } catch (err) {
    await down(dir);
    throw err;
  }
  return { endpoint, address, pid, dir, snapshotter: driver, runtime: 'crio', reused: false };
}

/** PIDs of containerd shims that were started by the containerd listening on `address`. */
export function shimPids(address) {
  const pids = [];
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${ent}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!path.basename(argv[0] || '').startsWith('containerd-shim')) continue;
    const i = argv.indexOf('-address');
    if (i >= 0 && argv[i + 1] === address) pids.push(Number(ent));
  }
  return pids;
}

/** Mount points at or below `dir`, deepest first. */
function mountsUnder(dir) {
  const out = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const mp = line.split(' ')[4];
    if (!mp) continue;
    const p = mp.replace(/\\040/g, ' ');
    if (p === dir || p.startsWith(`${dir}/`)) out.push(p);
  }
  return out.sort((a, b) => b.length - a.length);
}

/**
 * Stops the containerd in `dir`: kills its containers (via ctr while it still answers), the
 * shims it started, then containerd itself; unmounts whatever is left under `dir`; removes `dir`.
 */
export async function down(dir = defaultDir) {
  dir = path.resolve(dir);
  if (runtimeOf(dir) === 'crio') {
    await crio.stop(dir);
    for (const mp of mountsUnder(dir)) spawnSync('umount', ['-l', mp]);
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }
  const address = socketPath(dir);
  const pidFile = path.join(dir, 'pid');
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
  if (pid && alive(pid) && ctr(dir, ['version']).status === 0) {
    const tasks = ctr(dir, ['-n', 'k8s.io', 'tasks', 'ls', '-q']).stdout || '';
    for (const id of tasks.split('\n').filter(Boolean)) {
      ctr(dir, ['-n', 'k8s.io', 'tasks', 'kill', '-a', '-s', 'SIGKILL', id]);
    }
  }
  if (pid) await stopPid(pid);
  for (const shim of shimPids(address)) {
    try {
      process.kill(shim, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const mp of mountsUnder(dir)) {
    spawnSync('umount', ['-l', mp]);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

async function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  try {
    let runtime = 'containerd';
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '--runtime') runtime = rest[++i] ?? '';
      else if (rest[i].startsWith('--runtime=')) runtime = rest[i].slice('--runtime='.length);
      else
        throw new Error(
          `unknown argument ${rest[i]}; usage: cri.mjs up|down [--runtime containerd|containerd2|crio]`,
        );
    }
    if (!RUNTIMES.includes(runtime))
      throw new Error(`--runtime ${runtime}: must be one of ${RUNTIMES.join(', ')}`);
    const dir = defaultDirFor(runtime);
    if (cmd === 'up') {
      const r = await up(dir, { runtime });
      log(
        r.reused
          ? `reusing running ${runtime} (pid ${r.pid})`
          : `${runtime} ready (pid ${r.pid}, ${r.snapshotter})`,
      );
      process.stdout.write(`${r.endpoint}\n`);
    } else if (cmd === 'down') {
      await down(dir);
      log('stopped and removed');
    } else {
      process.stderr.write('usage: cri.mjs up|down [--runtime containerd|containerd2|crio]\n');
      process.exitCode = 2;
    }
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) await main();
