// Mocha global fixtures: one real kube-apiserver (with embedded etcd) and one private
// containerd for the whole run, each in its own temp directory, stopped at the end.
// Test files reach them through ./kube.ts and ./cri.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkApiWarnings } from './api-warnings.js';
import { repoRoot } from './paths.js';

interface ClusterScript {
  up(dir: string): Promise<{ kubeconfig: string; startupMs: number }>;
  down(dir: string): Promise<void>;
}
interface CriScript {
  up(dir: string, opts?: { runtime?: string }): Promise<{ endpoint: string }>;
  down(dir: string): Promise<void>;
}

const load = <T>(name: string): Promise<T> => import(path.join(repoRoot, 'scripts', name)) as Promise<T>;

let runDir = '';

// Developer shortcuts for quick local iterations only (CI sets neither):
// INV_TEST_NO_SERVICES=1 starts nothing (pure unit tests); INV_TEST_NO_CRI=1 skips containerd.
// INV_TEST_REAL_NODES_ONLY=1 (set by scripts/test.mjs for test/nodes) starts nothing shared.
export async function mochaGlobalSetup(): Promise<void> {
  if (process.env.INV_TEST_NO_SERVICES === '1') return;
  const withCri = process.env.INV_TEST_NO_CRI !== '1';
  runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-test-'));
  // The whole cluster with real nodes (./nodes.ts) starts here on first use.
  process.env.INV_TEST_RUN_DIR = runDir;
  // Every API server of the run (and of the scripts it runs) records the warnings it returned
  // here when it stops; mochaHooks below fails the run on an unexpected one (./api-warnings.ts).
  process.env.INV_API_WARNINGS_LOG = path.join(runDir, 'api-warnings.jsonl');
  // scripts/test.mjs runs the real-node suites in a mocha of their own: they bring their own
  // control plane and runtimes, so the shared API server and containerd would sit idle.
  if (process.env.INV_TEST_REAL_NODES_ONLY === '1') return;
  const cluster = await load<ClusterScript>('cluster.mjs');
  const cri = withCri ? await load<CriScript>('cri.mjs') : undefined;
  // Both runtimes: a runtime that cannot start here fails the run, it is never skipped.
  const [k, c, c2] = await Promise.all([
    cluster.up(path.join(runDir, 'cluster')),
    cri?.up(path.join(runDir, 'cri')),
    cri?.up(path.join(runDir, 'cri2'), { runtime: 'containerd2' }),
  ]);
  process.env.INV_TEST_KUBECONFIG = k.kubeconfig;
  process.env.INV_TEST_CLUSTER_DIR = path.join(runDir, 'cluster');
  if (c && c2) {
    process.env.INV_TEST_CRI_ENDPOINT = c.endpoint;
    process.env.INV_TEST_CRI_DIR = path.join(runDir, 'cri');
    process.env.INV_TEST_CRI2_ENDPOINT = c2.endpoint;
    process.env.INV_TEST_CRI2_DIR = path.join(runDir, 'cri2');
  }
}

/** Root hooks: after the last test, no API server of the run may have returned a warning. */
export const mochaHooks = {
  afterAll(): void {
    if (runDir) checkApiWarnings(runDir);
  },
};

export async function mochaGlobalTeardown(): Promise<void> {
  if (!runDir) return;
  if (process.env.INV_TEST_NODES_DIR) {
    const nodes = await load<ClusterScript>('nodes.mjs');
    await nodes.down(process.env.INV_TEST_NODES_DIR);
  }
  const cluster = await load<ClusterScript>('cluster.mjs');
  await cluster.down(path.join(runDir, 'cluster'));
  if (process.env.INV_TEST_CRI_DIR) {
    const cri = await load<CriScript>('cri.mjs');
    await cri.down(process.env.INV_TEST_CRI_DIR);
    if (process.env.INV_TEST_CRI2_DIR) await cri.down(process.env.INV_TEST_CRI2_DIR);
  }
  fs.rmSync(runDir, { recursive: true, force: true });
}
