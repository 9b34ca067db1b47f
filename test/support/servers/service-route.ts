// The local whole cluster runs no kube-proxy, and its API server listens on 127.0.0.1 only, so a
// Pod cannot reach the `kubernetes` Service (10.96.0.1:443) that in-cluster clients dial. For the
// suites that run inv itself in a Pod (the Helm chart's daemon and `helm test`), this does what
// kube-proxy would do for that one Service: a DNAT rule, for this cluster's Pod subnets only, to
// the API server's loopback port, and route_localnet (as kube-proxy sets it) so the kernel routes
// to 127.0.0.1 from the bridges; the bridges appear only with their first Pod, so it is set for
// all interfaces, and restored afterwards. The API server's certificate names 10.96.0.1, so clients verify
// it as in a real cluster. Removed by the returned function; a rule left by a crashed run (same
// comment) is replaced.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { WholeCluster } from '../nodes.js';

const SERVICE_IP = '10.96.0.1';

function iptables(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync('iptables', ['-w', '5', ...args], { encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stderr: r.stderr };
}

export function routeKubernetesService(c: WholeCluster): () => void {
  const id = Number(fs.readFileSync(path.join(c.dir, 'id'), 'utf8'));
  const port = new URL(/server:\s*(\S+)/.exec(fs.readFileSync(c.kubeconfig, 'utf8'))![1]!).port;
  const comment = `inv-nodes-${id}-kubernetes-service`;
  const rule = (to: string) => [
    'PREROUTING',
    '-s',
    `10.${87 + id}.0.0/16`,
    '-d',
    `${SERVICE_IP}/32`,
    '-p',
    'tcp',
    '--dport',
    '443',
    '-m',
    'comment',
    '--comment',
    comment,
    '-j',
    'DNAT',
    '--to-destination',
    to,
  ];
  // Stale rules of this cluster id (a crashed run): their lines name the comment.
  const listed = execFileSync('iptables', ['-w', '5', '-t', 'nat', '-S', 'PREROUTING'], { encoding: 'utf8' });
  for (const line of listed.split('\n').filter((l) => l.includes(comment))) {
    iptables([
      '-t',
      'nat',
      ...line
        .replace(/^-A /, '-D ')
        .split(/\s+/)
        .map((s) => s.replace(/^"|"$/g, '')),
    ]);
  }
  const sysctl = '/proc/sys/net/ipv4/conf/all/route_localnet';
  const saved = fs.readFileSync(sysctl, 'utf8').trim();
  fs.writeFileSync(sysctl, '1\n');
  const add = iptables(['-t', 'nat', '-I', ...rule(`127.0.0.1:${port}`)]);
  if (add.status !== 0) {
    fs.writeFileSync(sysctl, `${saved}\n`);
    throw new Error(`iptables: ${add.stderr}`);
  }
  return () => {
    iptables(['-t', 'nat', '-D', ...rule(`127.0.0.1:${port}`)]);
    fs.writeFileSync(sysctl, `${saved}\n`);
  };
}
