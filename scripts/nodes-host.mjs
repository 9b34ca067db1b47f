// What a whole local cluster (scripts/nodes.mjs) changes on the host, and how `down` undoes it:
// the fixed-path folders the kubelet, containerd and CNI use (made as empty mount targets), the
// sysctls the kubelet changes (saved first, restored), and each node's cgroup root in every
// hierarchy (made with the parent's cpusets; removed deepest first, killing what a crash left).
import fs from 'node:fs';
import path from 'node:path';
import * as cluster from './cluster.mjs';
import { K8S_VERSIONS } from './k8s-versions.mjs';
import { log, readJson } from './nodes-layout.mjs';
import { sleep } from './process.mjs';

/**
 * Host folders that the kubelet (device plugins), containerd (runc state, shim sockets, netns
 * mounts) and CNI (result cache) use at fixed paths. Inside every node they are bind-mounted
 * from the node's own folder; on the host they exist only as empty mount targets, made by `up`
 * when missing and removed again by `down`.
 */
export const PRIVATE_HOST_DIRS = ['/var/lib/kubelet', '/var/lib/cni', '/run/netns', '/run/containerd'];

export function makeHostDirs(dir) {
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
export function removeHostDirs(dir) {
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
  // Any tested release's kubelet: a cluster of another release may run beside this one.
  const kubelets = K8S_VERSIONS.map((v) => cluster.binariesFor(v).kubelet).filter(Boolean);
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    try {
      if (kubelets.includes(fs.readlinkSync(`/proc/${ent}/exe`))) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

/** The kubelet changes these at start-up; they are saved first and restored by `down`. */
const SYSCTLS = ['vm/overcommit_memory', 'kernel/panic', 'kernel/panic_on_oops'];

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
export function createCgroupRoot(root) {
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
export async function removeCgroupRoot(root) {
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

export function saveSysctls(dir) {
  const file = path.join(dir, 'sysctls.json');
  if (fs.existsSync(file)) return; // saved before the first kubelet of this cluster started
  const saved = Object.fromEntries(SYSCTLS.map((k) => [k, fs.readFileSync(`/proc/sys/${k}`, 'utf8').trim()]));
  fs.writeFileSync(file, JSON.stringify(saved));
}

export function restoreSysctls(dir) {
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
