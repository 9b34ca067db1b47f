// What test/nodes/install/install-as-written.test.ts needs around the page's blocks, so that the whole
// local cluster is set up as an administrator's nodes are before they follow docs/install.md:
// a shell whose `inv`, `kubectl` and `helm` are this checkout's, the registry's CA trusted by each
// node's containerd through the hosts.toml the page shows, and the runtime socket at the path a
// stock containerd node has it (/run/containerd/containerd.sock), which the install defaults to.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeRest } from '../../../src/core/kube/rest.js';
import { tools } from '../../support/helm.js';
import { nodeCri, type WholeCluster } from '../../support/nodes.js';
import { repoRoot } from '../../support/paths.js';

/** What the page writes for a registry: its example host and containerd's hosts folder. */
export const PAGE_HOST = 'registry.example.com:5000';
export const PAGE_HOSTS_DIR = '/etc/containerd/certs.d';

interface CriScript {
  registryHostsDir(dir: string): string;
}
interface ClusterScript {
  binaries: Record<string, string>;
}

/** A folder for the PATH: `inv` runs this checkout, `kubectl` and `helm` are the tested ones. */
export async function shellBin(): Promise<{ dir: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-as-written-bin-'));
  // As `npm link` would put it: bin/run.js is the package's `inv`.
  fs.writeFileSync(
    path.join(dir, 'inv'),
    `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, 'bin', 'run.js')}" "$@"\n`,
    { mode: 0o755 },
  );
  const { binaries } = (await import(path.join(repoRoot, 'scripts', 'cluster.mjs'))) as ClusterScript;
  fs.symlinkSync(binaries.kubectl!, path.join(dir, 'kubectl'));
  fs.symlinkSync((await tools()).build('helm'), path.join(dir, 'helm'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Each node trusts the registry at `host` (127.0.0.1:PORT): the page's hosts.toml with the
 * registry's address in place of the example's and the node's hosts folder (containerd's
 * config_path, scripts/cri.mjs) in place of /etc/containerd/certs.d; the CA beside it as ca.crt.
 * Returns what undoes it.
 */
export async function trustRegistry(
  c: WholeCluster,
  host: string,
  caFile: string,
  hostsToml: string,
): Promise<() => void> {
  const cri = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
  const made: string[] = [];
  for (let i = 1; i <= c.nodes.length; i++) {
    const hostsDir = cri.registryHostsDir(path.join(c.dir, `node-${i}`, 'cri'));
    const dir = path.join(hostsDir, host);
    fs.mkdirSync(dir, { recursive: true });
    made.push(dir);
    fs.copyFileSync(caFile, path.join(dir, 'ca.crt'));
    const text = hostsToml.split(PAGE_HOSTS_DIR).join(hostsDir).split(PAGE_HOST).join(host);
    fs.writeFileSync(path.join(dir, 'hosts.toml'), text);
  }
  return () => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
}

/**
 * Each node's CRI socket also at /run/containerd/containerd.sock, as on a stock containerd node
 * (inv-erase-config's default): a symlink in the node's own /run/containerd (scripts/nodes.mjs
 * binds a folder of the node there), which the kubelet's hostPath check and containerd's mount
 * both follow. Returns what undoes it.
 */
export function defaultRuntimeSocket(c: WholeCluster): () => void {
  const links: string[] = [];
  for (let i = 1; i <= c.nodes.length; i++) {
    const link = path.join(c.dir, `node-${i}`, 'host', 'run-containerd', 'containerd.sock');
    fs.rmSync(link, { force: true });
    fs.symlinkSync(c.runtimeSocket, link);
    links.push(link);
  }
  return () => links.forEach((l) => fs.rmSync(l, { force: true }));
}

/** Whether node i's containerd holds `ref` (0-based). */
export async function nodeHas(c: WholeCluster, i: number, ref: string): Promise<boolean> {
  const cri = await nodeCri(c, i);
  try {
    return (await cri.listImages()).some((img) => img.repoTags.includes(ref));
  } finally {
    cri.close();
  }
}

export interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec: { nodeName?: string; imagePullSecrets?: { name: string }[]; containers: { image: string }[] };
  status?: {
    conditions?: { type: string; status: string }[];
    containerStatuses?: { image: string; imageID: string }[];
  };
}

export const ready = (p: Pod) =>
  !p.metadata.deletionTimestamp &&
  Boolean(p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));

export const SYSTEM_NS = 'image-inventory-system';
export const WORKERS_NS = 'image-inventory-workers';

/** The daemon's Pods (not `helm test`'s). */
export const daemonPods = async (rest: KubeRest): Promise<Pod[]> =>
  (
    await rest.list<Pod>(`/api/v1/namespaces/${SYSTEM_NS}/pods`, {
      query: { labelSelector: 'app.kubernetes.io/name=image-inventory-controller' },
    })
  ).items.filter((p) => !p.metadata.name.includes('check'));

/** The kubelet's `Pulled` Event messages for a Pod ("Successfully pulled image ..." when it pulled). */
export async function pulledEvents(rest: KubeRest, ns: string, pod: string): Promise<string[]> {
  const events = await rest.list<{ reason?: string; message?: string }>(`/api/v1/namespaces/${ns}/events`, {
    query: { fieldSelector: `involvedObject.name=${pod}` },
  });
  return events.items.filter((e) => e.reason === 'Pulled').map((e) => e.message ?? '');
}
