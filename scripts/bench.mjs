#!/usr/bin/env node
// `npm run bench`: starts a private containerd, and a fresh API server per benchmark, in a temp
// dir; runs each benchmark in dist/bench/ in its own process (so peak RSS is per benchmark),
// prints the figures, and stops everything. Benchmarks report; they never fail on timing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as cluster from './cluster.mjs';
import * as cri from './cri.mjs';

const only = process.argv.slice(2);
const benches = fs
  .readdirSync(path.join(cluster.repoRoot, 'dist', 'bench'))
  .filter((f) => f.endsWith('.js') && !f.startsWith('_'))
  .map((f) => f.replace(/\.js$/, ''))
  .filter((b) => only.length === 0 || only.includes(b));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-'));
let failed = false;
try {
  const c = await cri.up(path.join(dir, 'cri'));
  for (const b of benches) {
    process.stderr.write(`\n### bench ${b}\n`);
    // A fresh API server per benchmark: no benchmark sees another's objects.
    const clusterDir = path.join(dir, `cluster-${b}`);
    const k = await cluster.up(clusterDir);
    const ctx = { kubeconfig: k.kubeconfig, criEndpoint: c.endpoint, criDir: path.join(dir, 'cri') };
    const runner = `const m = await import(${JSON.stringify(path.join(cluster.repoRoot, 'dist', 'bench', `${b}.js`))});
      const r = await m.main(${JSON.stringify(ctx)});
      console.log(JSON.stringify(r));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', runner], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    });
    await cluster.down(clusterDir);
    if (r.status !== 0) {
      failed = true;
      process.stderr.write(`bench ${b} failed (exit ${r.status})\n`);
      continue;
    }
    const figures = JSON.parse(r.stdout.trim().split('\n').pop());
    console.log(`\n${b}`);
    for (const [key, v] of Object.entries(figures)) console.log(`  ${key.padEnd(44)} ${v}`);
  }
} finally {
  await cri.down(path.join(dir, 'cri'));
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
