#!/usr/bin/env node
// The whole local cluster: the test API server (scripts/cluster.mjs), the upstream
// kube-controller-manager and kube-scheduler, and N real nodes. Every node is an upstream
// kubelet on a containerd of its own (scripts/cri.mjs), both inside a private mount namespace
// where the node's CRI folder is bind-mounted over one common path, so a worker Pod that mounts
// "the runtime socket" reaches its own node's containerd. A CNI bridge per node gives Pods IPs.
//
//   node scripts/nodes.mjs up [--nodes N] [--runtime containerd2|containerd|crio]
//                                           last stdout line: one JSON object (see up)
//
// The nodes run containerd 2.x by default (scripts/cluster.mjs builds it): containerd 1.x is past
// its end of life and Kubernetes 1.36 and later refuse it. `--runtime containerd` is Debian's
// containerd 1.6, which Kubernetes 1.35 (INV_K8S_VERSION=v1.35.4) still runs.
//   node scripts/nodes.mjs down             stops everything and leaves nothing behind
//
// Both are idempotent and recover from a crash: `down` finds what is left (processes from the
// pid files and shim command lines, cgroups, bridges, mounts, saved sysctls) and removes it.
// Running it needs root (cgroups, mount namespaces, bridges), as a real node does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as cluster from './cluster.mjs';
import * as cri from './cri.mjs';
import * as crio from './crio.mjs';
import { cniConfig, kubeletConfig } from './nodes-config.mjs';
import {
  createCgroupRoot,
  makeHostDirs,
  PRIVATE_HOST_DIRS,
  removeCgroupRoot,
  removeHostDirs,
  restoreSysctls,
  saveSysctls,
} from './nodes-host.mjs';
import {
  bridgeName,
  cgroupRoot,
  defaultDir,
  log,
  nodeCriDir,
  nodeDir,
  nodeName,
  readJson,
  readPid,
  runtimeSocket,
} from './nodes-layout.mjs';
import { healthy, nodeReady, startControlPlane, startKubelet } from './nodes-processes.mjs';
import { importArchive } from './oci-archive.mjs';
import { freePort, isMain, sleep, stopPid } from './process.mjs';
import { buildWorkerImage } from './worker-image.mjs';

/** The nodes' runtime unless told otherwise: containerd 2.x (see the top of this file). */
export const DEFAULT_RUNTIME = 'containerd2';

// The parts live in scripts/nodes-*.mjs; what tests and scripts/demo.mjs import stays here.
export { defaultDir, nodeName, runtimeSocket } from './nodes-layout.mjs';
export { killKubelet, nodeReady, startKubelet } from './nodes-processes.mjs';

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
  { nodes = 2, timeoutMs = 180_000, runtime = DEFAULT_RUNTIME, build = buildAll, now = Date.now } = {},
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
  if (!cluster.binaries.kubelet)
    throw new Error(
      `Kubernetes ${cluster.k8sVersion} is built without a kubelet here (scripts/k8s-versions.mjs)`,
    );
  if (
    old &&
    old.nodes.length === nodes &&
    (old.runtime ?? 'containerd') === runtime &&
    (old.k8sVersion ?? cluster.k8sVersion) === cluster.k8sVersion &&
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
    k8sVersion: cluster.k8sVersion,
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
      let runtime = DEFAULT_RUNTIME;
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
            `unknown argument ${a}; usage: nodes.mjs up [--nodes N] [--runtime containerd2|containerd|crio]`,
          );
      }
      const r = await up(defaultDir, { nodes, runtime });
      log(
        r.reused
          ? 'reusing the running cluster'
          : `${nodes} node(s) of Kubernetes ${cluster.k8sVersion} on ${runtime} Ready ${r.readyMs} ms after start (kubelet start to Ready: ${r.nodeReadyMs.join(', ')} ms)`,
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
        'usage: nodes.mjs up [--nodes N] [--runtime containerd2|containerd|crio] | down  (INV_K8S_VERSION picks the release)\n',
      );
      process.exitCode = 2;
    }
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) await main();
