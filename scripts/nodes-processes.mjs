// The processes of a whole local cluster (scripts/nodes.mjs) and whether they are up: the
// upstream kube-controller-manager and kube-scheduler beside the test API server, each node's
// kubelet (started inside its containerd's mount namespace, or killed as a crash would), and the
// API server's view of a node's readiness. Each process's pid is kept in a file for `down`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import * as cluster from './cluster.mjs';
import { nodeCriDir, nodeDir, nodeName, readJson, readPid } from './nodes-layout.mjs';
import { alive, freePort, sleep, stopPid } from './process.mjs';

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

export async function startControlPlane(dir) {
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

/** True when every process of the cluster in `dir` runs and every node is Ready. */
export async function healthy(dir, state) {
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
