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

// Names pick benchmarks; `--key value` / `--key=value` flags go to them (e.g. soak --duration 10m,
// scale --pods 30000). soak runs only when named: it takes an hour by default.
const only = [];
const flags = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith('--')) only.push(a);
  else if (a.includes('=')) flags[a.slice(2, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
  else flags[a.slice(2)] = process.argv[++i] ?? '';
}
// Long runs (an hour, 25 minutes at 10,000 namespaces) only when named: `npm run bench soak`.
const ON_REQUEST = new Set(['soak', 'scan-all']);
const benches = fs
  .readdirSync(path.join(cluster.repoRoot, 'dist', 'bench'))
  .filter((f) => f.endsWith('.js') && !f.startsWith('_'))
  .map((f) => f.replace(/\.js$/, ''))
  .filter((b) => (only.length === 0 ? !ON_REQUEST.has(b) : only.includes(b)));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-'));
let failed = false;
try {
  const c = await cri.up(path.join(dir, 'cri'));
  for (const b of benches) {
    process.stderr.write(`\n### bench ${b}\n`);
    // A fresh API server per benchmark: no benchmark sees another's objects.
    const clusterDir = path.join(dir, `cluster-${b}`);
    const k = await cluster.up(clusterDir);
    const ctx = { kubeconfig: k.kubeconfig, criEndpoint: c.endpoint, criDir: path.join(dir, 'cri'), flags };
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
