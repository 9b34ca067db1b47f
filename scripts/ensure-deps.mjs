#!/usr/bin/env node
// Makes sure the host tools the CRI and real-node tests need are installed: a private containerd (started by
// scripts/cri.mjs), runc to run its containers, ctr to import test images, and a static busybox
// that the test images are built from (scripts/oci-archive.mjs). Quiet when all are present.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// iproute2 (ip), util-linux (unshare, nsenter) and tar serve the whole local cluster's nodes and
// their tests; Debian base images usually carry them already. binutils (strip) makes the worker
// image's Node binary smaller (scripts/strip-node.mjs). python3 drives the CLI through a real
// pseudo-terminal in the Ctrl-C and table-width tests (test/support/pty-run.py, its pty module).
// iptables routes the kubernetes Service to the local API server for Pods that run inv itself
// (test/support/servers/service-route.ts: the Helm chart's daemon and `helm test`).
// conmon is CRI-O's container monitor (scripts/crio.mjs builds CRI-O itself). zsh and fish load
// `inv completion` in the completion tests, on a pseudo-terminal as a person's shell does.
const packages = [
  'containerd',
  'runc',
  'conmon',
  'busybox-static',
  'iproute2',
  'util-linux',
  'tar',
  'binutils',
  'python3',
  'iptables',
  'zsh',
  'fish',
];
export const busyboxPath = '/bin/busybox';

function onPath(cmd) {
  return (process.env.PATH || '')
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, cmd)));
}

/** Names of the missing tools (empty when everything is there). */
export function missing() {
  const out = [
    'containerd',
    'runc',
    'conmon',
    'ctr',
    'ip',
    'unshare',
    'nsenter',
    'tar',
    'strip',
    'python3',
    'iptables',
    'zsh',
    'fish',
  ].filter((c) => !onPath(c));
  // The dynamically linked busybox from package "busybox" would not run in an image without libc.
  const bb = spawnSync('file', ['-L', busyboxPath], { encoding: 'utf8' });
  const isStatic =
    fs.existsSync(busyboxPath) && (bb.status !== 0 || /statically linked|static-pie/.test(bb.stdout));
  if (!isStatic) out.push('busybox-static');
  return out;
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
}

export function ensure() {
  const before = missing();
  if (before.length === 0) return;
  const canInstall = process.getuid?.() === 0 && onPath('apt-get');
  if (!canInstall) {
    throw new Error(
      `missing ${before.join(', ')}; install the packages: apt-get install -y --no-install-recommends ${packages.join(' ')}`,
    );
  }
  process.stderr.write(`ensure-deps: installing ${packages.join(' ')} (missing: ${before.join(', ')})\n`);
  run('apt-get', ['update']);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages]);
  const after = missing();
  if (after.length) throw new Error(`still missing after apt-get install: ${after.join(', ')}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  try {
    ensure();
  } catch (err) {
    process.stderr.write(`ensure-deps: ${err.message}\n`);
    process.exitCode = 1;
  }
}
