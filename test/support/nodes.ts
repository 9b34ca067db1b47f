// The whole local cluster for the real-node suites: the upstream controller-manager, scheduler
// and two real kubelets, each on its own containerd (scripts/nodes.mjs). It is started once, by
// the first suite that asks for it, in the run's temp folder, and stopped by the global
// teardown. Suites that only need an API server keep using the plain one (./kube.ts): the
// garbage collector and scheduler of a whole cluster would act on their hand-made objects.
import * as k8s from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { connectCri, type CriClient } from '../../src/core/cri/index.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { waitFor } from './cri.js';
import { repoRoot } from './paths.js';

export interface WholeCluster {
  kubeconfig: string;
  nodes: { name: string; criEndpoint: string }[];
  runtimeSocket: string;
  workerImage: string;
  dir: string;
}

interface NodesScript {
  up(
    dir: string,
    opts: { nodes: number; runtime?: string },
  ): Promise<
    Omit<WholeCluster, 'dir'> & {
      readyMs?: number;
      nodeReadyMs?: number[];
      runtime: string;
      k8sVersion: string;
    }
  >;
  down(dir: string): Promise<void>;
  startKubelet(dir: string, i: number): Promise<number>;
  killKubelet(dir: string, i: number): Promise<void>;
  nodeReady(kubeconfig: string, name: string): Promise<boolean>;
}
interface ClusterScript {
  binaries: Record<string, string>;
}

const load = <T>(name: string): Promise<T> => import(path.join(repoRoot, 'scripts', name)) as Promise<T>;
export const nodesScript = (): Promise<NodesScript> => load<NodesScript>('nodes.mjs');

let starting: Promise<WholeCluster> | undefined;

/** The run's whole cluster with two Ready nodes (started on first use). */
export function wholeCluster(): Promise<WholeCluster> {
  starting ??= (async () => {
    const runDir = process.env.INV_TEST_RUN_DIR;
    if (!runDir) throw new Error('INV_TEST_RUN_DIR is not set: run the real-node suites through npm test');
    if (process.getuid?.() !== 0) throw new Error('the real-node suites need root, as a kubelet does');
    const dir = path.join(runDir, 'nodes');
    // The global teardown stops it (and cleans up even when start-up failed half-way).
    process.env.INV_TEST_NODES_DIR = dir;
    const started = Date.now();
    // INV_TEST_NODES_RUNTIME=crio (or containerd) runs the real-node suites on that runtime;
    // unset, the nodes run scripts/nodes.mjs's default (containerd 2.x). INV_K8S_VERSION picks
    // the Kubernetes release (scripts/k8s-versions.mjs).
    const runtime = process.env.INV_TEST_NODES_RUNTIME || undefined;
    const r = await (await nodesScript()).up(dir, { nodes: 2, runtime });
    process.stderr.write(
      `      (whole cluster of Kubernetes ${r.k8sVersion} with 2 nodes on ${r.runtime} Ready in ${Date.now() - started} ms; kubelet start to Ready: ${r.nodeReadyMs?.join(', ')} ms)\n`,
    );
    return { ...r, dir };
  })();
  return starting;
}

export function clusterConfig(c: WholeCluster): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(c.kubeconfig);
  return kc;
}

/** A fresh namespace in the whole cluster (its default ServiceAccount is there when this returns). */
export async function newClusterNamespace(c: WholeCluster, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  const rest = new KubeRest(clusterConfig(c));
  try {
    await ensureNamespace(rest, name);
  } finally {
    rest.close();
  }
  return name;
}

/** A CRI client on node i's containerd (0-based), reached from the host at its real path. */
export function nodeCri(c: WholeCluster, i: number): Promise<CriClient> {
  return connectCri({ endpoint: c.nodes[i]!.criEndpoint, timeoutMs: 10_000 });
}

/** Runs the same-release kubectl (built with the cluster) against the whole cluster. */
export async function kubectl(
  c: WholeCluster,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { binaries } = await load<ClusterScript>('cluster.mjs');
  return new Promise((resolve) => {
    execFile(
      binaries.kubectl!,
      ['--kubeconfig', c.kubeconfig, ...args],
      { timeout: 30_000, maxBuffer: 16 * 2 ** 20 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** Polls `check` until it returns a truthy value (the CRI helpers' waitFor, 60 s by default). */
export const until = <T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
  everyMs = 100,
): Promise<T> => waitFor(what, check, timeoutMs, everyMs);
