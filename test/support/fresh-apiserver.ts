// A second, private API server for tests that need a cluster where nothing of inv is installed
// (no CRDs): the run's shared server gets the CRDs from other test files. Started with the same
// scripts/cluster.mjs in its own temp directory, stopped by the returned stop().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.js';

interface ClusterScript {
  up(dir: string): Promise<{ kubeconfig: string }>;
  down(dir: string): Promise<void>;
}

export interface FreshApiServer {
  kubeconfig: string;
  stop(): Promise<void>;
}

export async function freshApiServer(): Promise<FreshApiServer> {
  const dir = fs.mkdtempSync(path.join(process.env.INV_TEST_RUN_DIR ?? os.tmpdir(), 'fresh-'));
  const cluster = (await import(path.join(repoRoot, 'scripts', 'cluster.mjs'))) as ClusterScript;
  const { kubeconfig } = await cluster.up(dir);
  return {
    kubeconfig,
    async stop() {
      await cluster.down(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
