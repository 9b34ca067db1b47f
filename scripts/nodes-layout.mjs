// Where a whole local cluster (scripts/nodes.mjs) keeps its things, and the names it gives them:
// its folder (the control plane's, each node's and its CRI folder), the one path every node's
// runtime socket appears at, the cluster's small id that keeps the bridges, subnets and cgroups of
// several clusters on one host apart, and the pid and JSON files read back by `up` and `down`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as cluster from './cluster.mjs';

export const defaultDir = process.env.INV_NODES_DIR || path.join(cluster.repoRoot, '.cache', 'nodes');
export const log = (msg) => process.stderr.write(`nodes: ${msg}\n`);

/** Where every node's CRI socket appears inside that node's mount namespace. */
export const runtimeSocket = (dir, runtime = 'containerd') =>
  path.join(path.resolve(dir), 'cri', runtime === 'crio' ? 'crio.sock' : 'containerd.sock');
export const nodeDir = (dir, i) => path.join(path.resolve(dir), `node-${i}`);
export const nodeCriDir = (dir, i) => path.join(nodeDir(dir, i), 'cri');

/**
 * Several whole clusters may run on one host (a developer's `npm run node:up` next to `npm test`):
 * each gets a small id, kept in its folder, that keeps its bridges, subnets and cgroups apart.
 */
export function clusterId(dir) {
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
export const bridgeName = (dir, i) => `inv${clusterId(dir)}br${i}`;
export const cgroupRoot = (dir, i) => `inv${clusterId(dir)}-node-${i}`;
export const nodeName = (i) => `inv-node-${i}`;

export function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

export function readPid(file) {
  try {
    return Number(fs.readFileSync(file, 'utf8')) || 0;
  } catch {
    return 0;
  }
}
