// Mocha global fixtures: one real kube-apiserver (with embedded etcd) and one private
// containerd for the whole run, each in its own temp directory, stopped at the end.
// Test files reach them through ./kube.ts and ./cri.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.js';

interface ClusterScript {
  up(dir: string): Promise<{ kubeconfig: string; startupMs: number }>;
  down(dir: string): Promise<void>;
}
interface CriScript {
  up(dir: string): Promise<{ endpoint: string }>;
  down(dir: string): Promise<void>;
}

const load = <T>(name: string): Promise<T> =>
  import(path.join(repoRoot, 'scripts', name)) as Promise<T>;

let runDir = '';

export async function mochaGlobalSetup(): Promise<void> {
  runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-test-'));
  const cluster = await load<ClusterScript>('cluster.mjs');
  const cri = await load<CriScript>('cri.mjs');
  const [k, c] = await Promise.all([
    cluster.up(path.join(runDir, 'cluster')),
    cri.up(path.join(runDir, 'cri')),
  ]);
  process.env.INV_TEST_KUBECONFIG = k.kubeconfig;
  process.env.INV_TEST_CLUSTER_DIR = path.join(runDir, 'cluster');
  process.env.INV_TEST_CRI_ENDPOINT = c.endpoint;
  process.env.INV_TEST_CRI_DIR = path.join(runDir, 'cri');
}

export async function mochaGlobalTeardown(): Promise<void> {
  if (!runDir) return;
  const cluster = await load<ClusterScript>('cluster.mjs');
  const cri = await load<CriScript>('cri.mjs');
  await Promise.allSettled([cluster.down(path.join(runDir, 'cluster')), cri.down(path.join(runDir, 'cri'))]);
  fs.rmSync(runDir, { recursive: true, force: true });
}
