#!/usr/bin/env node
// The whole local cluster: the test API server (scripts/cluster.mjs), the upstream
// kube-controller-manager and kube-scheduler, and N real nodes. Every node is an upstream
// kubelet on a containerd of its own (scripts/cri.mjs), both inside a private mount namespace
// where the node's CRI folder is bind-mounted over one common path, so a worker Pod that mounts
// "the runtime socket" reaches its own node's containerd. A CNI bridge per node gives Pods IPs.
//
//   node scripts/nodes.mjs up [--nodes N] [--runtime containerd|containerd2|crio]
//                                           last stdout line: one JSON object (see up)
//   node scripts/nodes.mjs down             stops everything and leaves nothing behind
//
// Both are idempotent and recover from a crash: `down` finds what is left (processes from the
// pid files and shim command lines, cgroups, bridges, mounts, saved sysctls) and removes it.
// Running it needs root (cgroups, mount namespaces, bridges), as a real node does.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import * as cluster from './cluster.mjs';
import * as cri from './cri.mjs';
import * as crio from './crio.mjs';
import { importArchive } from './oci-archive.mjs';
import { alive, freePort, isMain, sleep, stopPid } from './process.mjs';
import { buildWorkerImage } from './worker-image.mjs';

export const defaultDir = process.env.INV_NODES_DIR || path.join(cluster.repoRoot, '.cache', 'nodes');
const log = (msg) => process.stderr.write(`nodes: ${msg}\n`);

/**
 * Host folders that the kubelet (device plugins), containerd (runc state, shim sockets, netns
 * mounts) and CNI (result cache) use at fixed paths. Inside every node they are bind-mounted
 * from the node's own folder; on the host they exist only as empty mount targets, made by `up`
 * when missing and removed again by `down`.
 */
const PRIVATE_HOST_DIRS = ['/var/lib/kubelet', '/var/lib/cni', '/run/netns', '/run/containerd'];

function makeHostDirs(dir) {
  const created = [];
  for (const d of PRIVATE_HOST_DIRS) {
    if (fs.existsSync(d)) continue;
    fs.mkdirSync(d, { recursive: true });
    created.push(d);
  }
  const file = path.join(dir, 'host-dirs.json');
  const before = readJson(file) ?? [];
  fs.writeFileSync(file, JSON.stringify([...new Set([...before, ...created])]));
}

/** Removes the mount targets `up` made, unless another whole cluster's kubelet still runs. */
function removeHostDirs(dir) {
  const created = readJson(path.join(dir, 'host-dirs.json')) ?? [];
  if (!created.length || otherKubeletsRunning()) return;
  for (const d of created) {
    try {
      fs.rmdirSync(d); // only when empty: never anything someone else put there
    } catch {
      // not empty or already gone: leave it
    }
  }
}

function otherKubeletsRunning() {
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    try {
      if (fs.readlinkSync(`/proc/${ent}/exe`) === cluster.binaries.kubelet) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

/** The kubelet changes these at start-up; they are saved first and restored by `down`. */
const SYSCTLS = ['vm/overcommit_memory', 'kernel/panic', 'kernel/panic_on_oops'];
/** Where every node's CRI socket appears inside that node's mount namespace. */
export const runtimeSocket = (dir, runtime = 'containerd') =>
  path.join(path.resolve(dir), 'cri', runtime === 'crio' ? 'crio.sock' : 'containerd.sock');
const nodeDir = (dir, i) => path.join(path.resolve(dir), `node-${i}`);
const nodeCriDir = (dir, i) => path.join(nodeDir(dir, i), 'cri');

/**
 * Several whole clusters may run on one host (a developer's `npm run node:up` next to `npm test`):
 * each gets a small id, kept in its folder, that keeps its bridges, subnets and cgroups apart.
 */
function clusterId(dir) {
  const file = path.join(dir, 'id');
  const kept = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : 0);
  if (kept) return kept;
  const links = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout || '';
  const cgroups = fs.existsSync('/sys/fs/cgroup/memory') ? fs.readdirSync('/sys/fs/cgroup/memory') : [];
  for (let id = 1; id <= 9; id++) {
    const used = links.includes(`inv${id}br`) || cgroups.some((c) => c.startsWith(`inv${id}-node-`));
    if (!used) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(file, String(id));
      return id;
    }
  }
  throw new Error('nine whole clusters already run on this host; stop one with its `down`');
}
const bridgeName = (dir, i) => `inv${clusterId(dir)}br${i}`;
const cgroupRoot = (dir, i) => `inv${clusterId(dir)}-node-${i}`;
export const nodeName = (i) => `inv-node-${i}`;

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function readPid(file) {
  try {
    return Number(fs.readFileSync(file, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** GET `p` on the API server with the admin token; resolves the parsed body or undefined. */
function apiGet(kubeconfig, p, timeoutMs = 5000) {
  const cfg = cluster.readKubeconfig(kubeconfig);
  return new Promise((resolve) => {
    const req = https.get(
      `${cfg.server}${p}`,
      { ca: cfg.ca, headers: { authorization: `Bearer ${cfg.token}` }, timeout: timeoutMs },
      (res) => {
        const chunks = [];
        let size = 0;
        res.on('data', (c) => {
          // A Node object is a few KB: anything near this limit is not an answer to trust.
          size += c.length;
          if (size > 4 * 2 ** 20) {
            req.destroy();
            resolve(undefined);
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) return resolve(undefined);
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
  });
}

export async function nodeReady(kubeconfig, name) {
  const node = await apiGet(kubeconfig, `/api/v1/nodes/${name}`);
  return node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

// ---- cgroups --------------------------------------------------------------------------------

/** Mount points of every cgroup hierarchy (v1 controllers, name=systemd, and v2 unified). */
function cgroupMounts() {
  const out = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!post) continue;
    const fstype = post.split(' ')[0];
    if (fstype === 'cgroup' || fstype === 'cgroup2') out.push(pre.split(' ')[4]);
  }
  return out;
}

/** Creates /<root> in every v1 hierarchy (the kubelet's cgroupRoot must exist everywhere). */
function createCgroupRoot(root) {
  for (const mnt of cgroupMounts()) {
    const d = path.join(mnt, root);
    fs.mkdirSync(d, { recursive: true });
    // A new cpuset cgroup starts with no CPUs and no memory nodes: copy the parent's.
    for (const f of ['cpuset.cpus', 'cpuset.mems']) {
      const parent = path.join(mnt, f);
      if (fs.existsSync(parent) && fs.readFileSync(path.join(d, f), 'utf8').trim() === '') {
        fs.writeFileSync(path.join(d, f), fs.readFileSync(parent, 'utf8'));
      }
    }
  }
}

/** Kills what is left in /<root> (any hierarchy) and removes its cgroups, deepest first. */
async function removeCgroupRoot(root) {
  for (const mnt of cgroupMounts()) {
    const top = path.join(mnt, root);
    if (!fs.existsSync(top)) continue;
    const dirs = [];
    const visit = (d) => {
      dirs.push(d);
      for (const e of fs.readdirSync(d, { withFileTypes: true }))
        if (e.isDirectory()) visit(path.join(d, e.name));
    };
    visit(top);
    dirs.sort((a, b) => b.length - a.length);
    for (const d of dirs) {
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          fs.rmdirSync(d);
          break;
        } catch (err) {
          if (err.code === 'ENOENT') break;
          // Still busy: kill whatever is in it (a leftover from a crash), then retry.
          for (const pid of fs
            .readFileSync(path.join(d, 'cgroup.procs'), 'utf8')
            .split('\n')
            .filter(Boolean)) {
            try {
              process.kill(Number(pid), 'SIGKILL');
            } catch {
              // gone
            }
          }
          await sleep(100);
        }
      }
    }
  }
}

// ---- sysctls --------------------------------------------------------------------------------

function saveSysctls(dir) {
  const file = path.join(dir, 'sysctls.json');
  if (fs.existsSync(file)) return; // saved before the first kubelet of this cluster started
  const saved = Object.fromEntries(SYSCTLS.map((k) => [k, fs.readFileSync(`/proc/sys/${k}`, 'utf8').trim()]));
  fs.writeFileSync(file, JSON.stringify(saved));
}

function restoreSysctls(dir) {
  const saved = readJson(path.join(dir, 'sysctls.json'));
  if (!saved) return;
  for (const [k, v] of Object.entries(saved)) {
    try {
      fs.writeFileSync(`/proc/sys/${k}`, `${v}\n`);
    } catch (err) {
      log(`could not restore ${k}=${v}: ${err.message}`);
    }
  }
  fs.rmSync(path.join(dir, 'sysctls.json'), { force: true });
}

// ---- control plane --------------------------------------------------------------------------

async function startComponent(dir, name, args) {
  const pidFile = path.join(dir, `${name}.pid`);
  const old = readPid(pidFile);
  if (old && alive(old)) await stopPid(old);
  const out = fs.openSync(path.join(dir, `${name}.log`), 'a');
  const child = spawn(cluster.binaries[name], args, { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(pidFile, String(child.pid));
  return child.pid;
}

async function startControlPlane(dir) {
  const cp = await cluster.up(path.join(dir, 'control-plane'));
  const cpDir = path.join(dir, 'control-plane');
  // Flags measured to work against the test API server: no leader election (one instance),
  // the admin credentials, fast node monitoring so a dead kubelet turns NotReady in ~10 s.
  await startComponent(dir, 'kube-controller-manager', [
    `--kubeconfig=${cp.kubeconfig}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${await freePort('0.0.0.0')}`,
    '--controllers=*',
    '--use-service-account-credentials=false',
    `--service-account-private-key-file=${path.join(cpDir, 'sa.key')}`,
    `--root-ca-file=${path.join(cpDir, 'ca.crt')}`,
    '--node-monitor-period=2s',
    '--node-monitor-grace-period=10s',
    '--node-eviction-rate=1',
    '--v=1',
  ]);
  await startComponent(dir, 'kube-scheduler', [
    `--kubeconfig=${cp.kubeconfig}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${await freePort('0.0.0.0')}`,
  ]);
  return cp.kubeconfig;
}

// ---- nodes ----------------------------------------------------------------------------------

function kubeletConfig(dir, i, ports) {
  const nd = nodeDir(dir, i);
  return {
    kind: 'KubeletConfiguration',
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    cgroupDriver: 'cgroupfs',
    cgroupRoot: `/${cgroupRoot(dir, i)}`,
    failCgroupV1: false,
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${cri.criSocketPath(nodeCriDir(dir, i))}`,
    address: '0.0.0.0',
    port: ports.port,
    healthzPort: ports.healthz,
    healthzBindAddress: '127.0.0.1',
    readOnlyPort: 0,
    // Tests only: the API server reaches the kubelet (logs, exec) without client certificates.
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    makeIPTablesUtilChains: false,
    // Image garbage collection off: images leave a node only through what the tests do.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // A small disk must never evict test Pods.
    evictionHard: {
      'memory.available': '50Mi',
      'nodefs.available': '1%',
      'nodefs.inodesFree': '1%',
      'imagefs.available': '1%',
      'imagefs.inodesFree': '1%',
    },
    fileCheckFrequency: '2s',
    syncFrequency: '10s',
    nodeStatusUpdateFrequency: '5s',
    nodeStatusReportFrequency: '5s',
    nodeLeaseDurationSeconds: 20,
    podLogsDir: path.join(nd, 'pod-logs'),
    serializeImagePulls: false,
  };
}

function cniConfig(dir, i) {
  return {
    cniVersion: '1.0.0',
    name: `inv-node-${i}`,
    plugins: [
      {
        type: 'bridge',
        bridge: bridgeName(dir, i),
        isGateway: true,
        // No masquerading: Pods only talk to the host, and no iptables is needed.
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: `10.${87 + clusterId(dir)}.${i}.0/24` }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: path.join(nodeDir(dir, i), 'ipam'),
        },
      },
      { type: 'loopback' },
    ],
  };
}

/** Starts (or restarts) node i's kubelet inside its node's mount namespace. */
export async function startKubelet(dir, i) {
  const nd = nodeDir(dir, i);
  const state = readJson(path.join(dir, 'state.json'));
  const ctrdPid = readPid(path.join(nodeCriDir(dir, i), 'pid'));
  if (!ctrdPid || !alive(ctrdPid)) throw new Error(`node ${i}: its containerd is not running`);
  const pidFile = path.join(nd, 'kubelet.pid');
  const old = readPid(pidFile);
  if (old && alive(old)) await stopPid(old);
  const out = fs.openSync(path.join(nd, 'kubelet.log'), 'a');
  // nsenter execs the kubelet, so the pid is the kubelet's own.
  const child = spawn(
    'nsenter',
    [
      '-t',
      String(ctrdPid),
      '-m',
      '--',
      cluster.binaries.kubelet,
      `--config=${path.join(nd, 'kubelet.yaml')}`,
      `--kubeconfig=${state.kubeconfig}`,
      `--root-dir=${path.join(nd, 'kubelet')}`,
      `--cert-dir=${path.join(nd, 'pki')}`,
      `--hostname-override=${nodeName(i)}`,
      '--v=1',
    ],
    { detached: true, stdio: ['ignore', out, out] },
  );
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(pidFile, String(child.pid));
  return child.pid;
}

/** Kills node i's kubelet at once (SIGKILL), as a crash would; its Pods keep running. */
export async function killKubelet(dir, i) {
  const pid = readPid(path.join(nodeDir(dir, i), 'kubelet.pid'));
  if (pid && alive(pid)) {
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(20);
  }
}

async function startNode(dir, i, workerArchive, runtime, now) {
  const nd = nodeDir(dir, i);
  const criDir = nodeCriDir(dir, i);
  fs.mkdirSync(nd, { recursive: true });
  // containerd in a mount namespace of its own, with this node's CRI folder over the common
  // path; the kubelet joins that namespace later (nsenter), so both see the same mounts.
  // The host folders a kubelet, containerd and CNI write to by fixed path get a private folder
  // of the node's own too, so nodes never share them and nothing is left on the host.
  const binds = [[criDir, path.dirname(runtimeSocket(dir))]];
  for (const hostDir of PRIVATE_HOST_DIRS) {
    const own = path.join(nd, 'host', hostDir.replace(/^\//, '').replace(/\//g, '-'));
    fs.mkdirSync(own, { recursive: true });
    binds.push([own, hostDir]);
  }
  const c = await cri.up(criDir, {
    runtime,
    wrap: (cmd, args) => [
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        '--',
        'sh',
        '-c',
        // CRI-O refuses a HostToContainer mount (the worker's imageFsPath) whose source is not
        // on a shared or slave mount, as / is on a systemd host; in this private namespace only.
        `set -e; ${runtime === 'crio' ? 'mount --make-rshared /; ' : ''}while [ "$1" != -- ]; do mount --bind "$1" "$2"; shift 2; done; shift; exec "$@"`,
        'sh',
        ...binds.flat(),
        '--',
        cmd,
        ...args,
      ],
    ],
  });
  for (const f of fs.readdirSync(cluster.cniDir)) {
    fs.copyFileSync(path.join(cluster.cniDir, f), path.join(criDir, 'cni', 'bin', f));
    fs.chmodSync(path.join(criDir, 'cni', 'bin', f), 0o755);
  }
  fs.writeFileSync(
    path.join(criDir, 'cni', 'net.d', '10-inv.conflist'),
    JSON.stringify(cniConfig(dir, i), null, 2),
  );
  // CRI-O can only pull: the worker image comes from the loopback registry (scripts/crio.mjs).
  if (runtime === 'crio') await crio.importArchiveFile(criDir, workerArchive);
  else
    importArchive({
      address: c.address,
      file: workerArchive,
      snapshotter: c.snapshotter,
      ctr: cri.ctrFor(criDir),
    });
  createCgroupRoot(cgroupRoot(dir, i));
  const ports = { port: await freePort('0.0.0.0'), healthz: await freePort('0.0.0.0') };
  fs.writeFileSync(path.join(nd, 'kubelet.yaml'), JSON.stringify(kubeletConfig(dir, i, ports), null, 2));
  await startKubelet(dir, i);
  return { name: nodeName(i), criEndpoint: c.endpoint, kubeletStarted: now() };
}

/** True when every process of the cluster in `dir` runs and every node is Ready. */
async function healthy(dir, state) {
  if (!state) return false;
  const cpPid = readPid(path.join(dir, 'control-plane', 'pid'));
  const pids = [
    cpPid,
    readPid(path.join(dir, 'kube-controller-manager.pid')),
    readPid(path.join(dir, 'kube-scheduler.pid')),
  ];
  for (let i = 1; i <= state.nodes.length; i++) {
    pids.push(
      readPid(path.join(nodeDir(dir, i), 'kubelet.pid')),
      readPid(path.join(nodeCriDir(dir, i), 'pid')),
    );
  }
  if (!pids.every((p) => p && alive(p))) return false;
  for (const n of state.nodes) if (!(await nodeReady(state.kubeconfig, n.name))) return false;
  return true;
}

/** What `up` builds before it starts anything: the binaries (cached) and the worker image. */
async function buildAll() {
  cluster.build();
  cluster.buildCni();
  return buildWorkerImage();
}

/**
 * Starts the whole cluster in `dir` with `nodes` nodes (or reuses a healthy one of that size)
 * and returns { kubeconfig, nodes: [{ name, criEndpoint }], runtimeSocket, workerImage, ... }.
 * `timeoutMs` is each node's time from its kubelet's start to Ready. `build` and `now` are for
 * tests: a build step and a clock, so that a build slower than the timeout can be played.
 */
export async function up(
  dir = defaultDir,
  { nodes = 2, timeoutMs = 180_000, runtime = 'containerd', build = buildAll, now = Date.now } = {},
) {
  dir = path.resolve(dir);
  if (process.getuid?.() !== 0) throw new Error('real nodes need root (cgroups, mount namespaces, bridges)');
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 50) {
    throw new Error(`--nodes ${nodes}: must be a whole number from 1 to 50`);
  }
  const stateFile = path.join(dir, 'state.json');
  const old = readJson(stateFile);
  if (!cri.RUNTIMES.includes(runtime))
    throw new Error(`--runtime ${runtime}: must be one of ${cri.RUNTIMES.join(', ')}`);
  if (
    old &&
    old.nodes.length === nodes &&
    (old.runtime ?? 'containerd') === runtime &&
    (await healthy(dir, old))
  )
    return { ...old, reused: true };
  await down(dir);
  const started = now();
  const worker = await build();
  fs.mkdirSync(path.join(dir, 'cri'), { recursive: true });
  saveSysctls(dir);
  makeHostDirs(dir);
  const kubeconfig = await startControlPlane(dir);
  const state = {
    kubeconfig,
    nodes: [],
    runtimeSocket: runtimeSocket(dir, runtime),
    workerImage: worker.ref,
    runtime,
  };
  // state.json first: startKubelet reads the kubeconfig from it, and `down` after a crash
  // mid-way finds the nodes' folders anyway.
  fs.writeFileSync(stateFile, JSON.stringify(state));
  const kubeletStarted = [];
  for (let i = 1; i <= nodes; i++) {
    const { kubeletStarted: at, ...node } = await startNode(dir, i, worker.file, runtime, now);
    kubeletStarted.push(at);
    state.nodes.push(node);
    fs.writeFileSync(stateFile, JSON.stringify(state));
  }
  // Kubelet start to Ready, per node (what a node costs once its containerd runs).
  // Each node's clock starts at its own kubelet's start, never before a build: on a cold
  // machine the builds above take minutes, and they are not the node's to wait for.
  const nodeReadyMs = [];
  for (const [k, n] of state.nodes.entries()) {
    while (!(await nodeReady(kubeconfig, n.name))) {
      if (now() - kubeletStarted[k] > timeoutMs) {
        throw new Error(
          `node ${n.name} not Ready ${timeoutMs} ms after its kubelet started; see ${dir}/node-*/kubelet.log`,
        );
      }
      await sleep(100);
    }
    nodeReadyMs.push(now() - kubeletStarted[k]);
  }
  return { ...state, readyMs: now() - started, nodeReadyMs, reused: false };
}

/** Indexes of the node folders present in `dir`. */
function nodeIndexes(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((f) => /^node-(\d+)$/.exec(f)?.[1])
    .filter(Boolean)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Stops the whole cluster in `dir` and removes everything it made on the host. */
export async function down(dir = defaultDir) {
  dir = path.resolve(dir);
  if (!fs.existsSync(dir)) return;
  for (const i of nodeIndexes(dir)) {
    // The kubelet first, so it restarts nothing; then containerd with every container and
    // shim it started (in the node's mount namespace, which ends with its last process and
    // takes the netns, volume and socket mounts with it).
    const kubelet = readPid(path.join(nodeDir(dir, i), 'kubelet.pid'));
    if (kubelet) await stopPid(kubelet, 5000);
    await cri.down(nodeCriDir(dir, i));
    if (!fs.existsSync(path.join(dir, 'id'))) continue; // never got as far as a bridge or cgroup
    spawnSync('ip', ['link', 'del', bridgeName(dir, i)], { stdio: 'ignore' });
    await removeCgroupRoot(cgroupRoot(dir, i));
  }
  for (const name of ['kube-scheduler', 'kube-controller-manager']) {
    const pid = readPid(path.join(dir, `${name}.pid`));
    if (pid) await stopPid(pid, 5000);
  }
  await cluster.down(path.join(dir, 'control-plane'));
  restoreSysctls(dir);
  removeHostDirs(dir);
  fs.rmSync(dir, { recursive: true, force: true });
}

async function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  try {
    if (cmd === 'up') {
      let nodes = 2;
      let runtime = 'containerd';
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i];
        if (a === '--runtime' || a.startsWith('--runtime=')) {
          runtime = a.includes('=') ? a.split('=')[1] : rest[++i];
        } else if (a === '--nodes' || a.startsWith('--nodes=')) {
          const v = a.includes('=') ? a.split('=')[1] : rest[++i];
          nodes = Number(v);
          if (!/^\d+$/.test(String(v))) throw new Error(`--nodes ${v}: must be a whole number from 1 to 50`);
        } else
          throw new Error(
            `unknown argument ${a}; usage: nodes.mjs up [--nodes N] [--runtime containerd|containerd2|crio]`,
          );
      }
      const r = await up(defaultDir, { nodes, runtime });
      log(
        r.reused
          ? 'reusing the running cluster'
          : `${nodes} node(s) Ready ${r.readyMs} ms after start (kubelet start to Ready: ${r.nodeReadyMs.join(', ')} ms)`,
      );
      const { kubeconfig, nodes: list, runtimeSocket: sock, workerImage } = r;
      process.stdout.write(
        `${JSON.stringify({ kubeconfig, nodes: list, runtimeSocket: sock, workerImage })}\n`,
      );
    } else if (cmd === 'down') {
      await down();
      log('stopped and removed');
    } else {
      process.stderr.write(
        'usage: nodes.mjs up [--nodes N] [--runtime containerd|containerd2|crio] | down\n',
      );
      process.exitCode = 2;
    }
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) await main();
