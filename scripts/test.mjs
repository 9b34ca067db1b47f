#!/usr/bin/env node
// `npm test`: the whole suite on Node 24 LTS and Kubernetes 1.37 (nodes on containerd 2.x), then
// the unit tests (pure, no services) on Node 20 and 22, each an official binary taken from the npm
// registry (scripts/node-runtime.mjs); the real-node suites again on CRI-O; the version-dependent
// suites on Kubernetes 1.35 (real nodes on containerd 1.6) and 1.36 (API server). A failure in
// any run fails the whole. Extra arguments go to every mocha run; INV_TEST_RUNS=k135,api136 picks
// runs by name.
//
// The runs go side by side, as many at once as there are cores (INV_TEST_JOBS overrides): the
// real-node suites (test/nodes, which share one cluster of real kubelets in their own mocha)
// spend most of their time waiting on kubelets and runtimes, so the other suites fit beside
// them. Each run's lines carry its name; at the end come a timing table per run and per file
// (scripts/mocha-timing-reporter.cjs), each run's failure report again (a CI log is read from
// its tail), and one closing line with the counts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_K8S_VERSION } from './k8s-versions.mjs';
import { nodeBinary } from './node-runtime.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mocha = path.join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
const reporter = path.join(repoRoot, 'scripts', 'mocha-timing-reporter.cjs');
const extra = process.argv.slice(2);
// What is kept of one run's failure report; the full report is in the log above it.
const REPORT_LIMIT = 64 * 1024;
// How many slowest files the table lists (the whole table is in the timings file).
const SLOWEST = 15;

const runsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-test-runs-'));
const nodeSpec = 'dist/test/nodes/**/*.test.js';
const CRIO_NODE_SUITES = [
  'erase',
  'protect',
  'threshold',
  'rollout',
  'check-nodes',
  'scope-retention',
  'scan-crio',
  'freed-space',
];
const specs = (list) => list.map((f) => `dist/test/${f}.test.js`);
// The oldest supported release (scripts/k8s-versions.mjs), on real nodes: what depends on the
// server's version. The CRDs' schemas and CEL rules (list-kind, list-limits, the docs' example
// lists), the inventory under the real controllers, erase on real kubelets, the daemon's watches
// and its Lease, and `inv check` (with --nodes, and on a cluster without inv).
const K135_SUITES = [
  'nodes/inventory',
  'nodes/erase',
  'nodes/check-nodes',
  'nodes/printer-columns',
  'install/list-kind',
  'install/first-run',
  'erase/list-limits',
  'docs/examples',
  'watch/watch',
  'watch/lease-health',
  'controller/leader-election',
];
// The middle release on the API server alone: the CRDs, scan, watch and the erase controllers.
// Not inventory/reconcile: its adoption cases leave an Image conflict on purpose, which fails the
// scan of every namespace (scan-cli, -A) when mocha runs it later.
const API136_SUITES = [
  'cli/scan-cli',
  'docs/examples',
  'erase/list-limits',
  'erase/scenarios',
  'erase/steps',
  'install/list-kind',
  'inventory/rules',
  'watch/lease-health',
  'watch/watch',
];
// Longest first: a pool of N slots finishes soonest when the long runs start first. A run marked
// `kubelets` starts a cluster of real kubelets; two such runs never go at once (their kubelets,
// runtimes and workers would compete for the same 2 cores and time out), so with two slots they
// share one and the rest of the suite takes the other.
const ALL_RUNS = [
  { name: 'suite', line: 24, args: ['--spec', 'dist/test/**/*.test.js', '--ignore', nodeSpec], env: {} },
  {
    name: 'nodes',
    line: 24,
    kubelets: true,
    args: ['--spec', nodeSpec],
    env: { INV_TEST_REAL_NODES_ONLY: '1' },
  },
  // The version-dependent suites on Kubernetes 1.35, the last release that supports containerd
  // 1.x: its nodes run Debian's containerd 1.6, so the 1.x path stays under a real kubelet (the
  // default nodes run containerd 2.x). Its own API server (the shared one's suites here) is 1.35.
  {
    name: 'k135',
    line: 24,
    kubelets: true,
    args: ['--spec', ...specs(K135_SUITES)],
    env: { INV_K8S_VERSION: 'v1.35.4', INV_TEST_NODES_RUNTIME: 'containerd' },
  },
  // The erase paths again on a cluster of CRI-O nodes (scripts/crio.mjs): named images, `*` with
  // inventory protection, thresholds, rollout waves, check --nodes naming the runtime, and scan
  // mode reading each node's CRI-O store.
  {
    name: 'crio',
    line: 24,
    kubelets: true,
    args: ['--spec', ...CRIO_NODE_SUITES.map((f) => `dist/test/nodes/${f}.test.js`)],
    env: { INV_TEST_REAL_NODES_ONLY: '1', INV_TEST_NODES_RUNTIME: 'crio' },
  },
  {
    name: 'api136',
    line: 24,
    args: ['--spec', ...specs(API136_SUITES)],
    env: { INV_K8S_VERSION: 'v1.36.3' },
  },
  ...[20, 22].map((line) => ({
    name: `unit${line}`,
    line,
    args: ['--timeout', '20000', '--spec', 'dist/test/unit/**/*.test.js'],
    env: { INV_TEST_NO_SERVICES: '1' },
  })),
];
// INV_TEST_RUNS=k135,api136 runs only those runs (for working on one of them).
const only = process.env.INV_TEST_RUNS?.split(',').filter(Boolean);
for (const n of only ?? []) {
  if (!ALL_RUNS.some((r) => r.name === n)) throw new Error(`INV_TEST_RUNS: no run named ${n}`);
}
const RUNS = only ? ALL_RUNS.filter((r) => only.includes(r.name)) : ALL_RUNS;
const jobs = Math.max(
  1,
  Number(process.env.INV_TEST_JOBS) || Math.min(os.availableParallelism(), RUNS.length),
);

/** Runs one mocha, prefixing its lines with its name; resolves to its status, report and record. */
function run({ name, line, args, env }) {
  // The Kubernetes release the run's clusters are (none for the unit runs, which start nothing).
  const k8s = env.INV_TEST_NO_SERVICES ? '-' : (env.INV_K8S_VERSION ?? DEFAULT_K8S_VERSION);
  const node = nodeBinary(line);
  const timings = path.join(runsDir, `${name}.json`);
  const all = ['--reporter', reporter, '--reporter-option', `timings=${timings}`, ...args, ...extra];
  process.stderr.write(`\n==> [${name}] Node ${line} (${node}): mocha ${all.join(' ')}\n`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(node, [mocha, ...all], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let text = '';
    const prefix = `[${name}] `.padEnd(9);
    const pipe = (from, to) => {
      let partial = '';
      from.on('data', (chunk) => {
        const s = partial + chunk.toString('utf8');
        const lines = s.split('\n');
        partial = lines.pop();
        for (const l of lines) to.write(`${prefix}${l}\n`);
        if (from === child.stdout) text = (text + chunk.toString('utf8')).slice(-4 * REPORT_LIMIT);
      });
      from.on('end', () => partial && to.write(`${prefix}${partial}\n`));
    };
    pipe(child.stdout, process.stdout);
    pipe(child.stderr, process.stderr);
    child.on('close', (code, signal) => {
      // The report starts at mocha's "  N failing" line.
      const at = text.search(/^ {2}\d+ failing/m);
      let record;
      try {
        record = JSON.parse(fs.readFileSync(timings, 'utf8'));
      } catch {
        record = undefined; // mocha died before its end: the status says so
      }
      resolve({
        name,
        line,
        k8s,
        ms: Date.now() - started,
        status: code ?? (signal ? 1 : 0),
        report: at >= 0 ? text.slice(at, at + REPORT_LIMIT) : null,
        record,
      });
    });
  });
}

const queue = [...RUNS];
const results = [];
const started = Date.now();
let kubeletsBusy = false;
let waiting = [];
/** The first queued run that may start now, taken off the queue. */
const next = () => {
  const i = queue.findIndex((r) => !(r.kubelets && kubeletsBusy));
  return i < 0 ? undefined : queue.splice(i, 1)[0];
};
await Promise.all(
  Array.from({ length: jobs }, async () => {
    while (queue.length) {
      const r = next();
      if (!r) {
        // Only kubelet runs are left and one is running: wait for a run to end.
        await new Promise((resolve) => waiting.push(resolve));
        continue;
      }
      if (r.kubelets) kubeletsBusy = true;
      results.push(await run(r));
      if (r.kubelets) kubeletsBusy = false;
      const wake = waiting;
      waiting = [];
      for (const w of wake) w();
    }
  }),
);
const wall = Date.now() - started;

const secs = (ms) => `${(ms / 1000).toFixed(0)}s`;
const total = { passed: 0, failed: 0, skipped: 0 };
const lines = ['', `==> Timings (${jobs} at once; wall ${secs(wall)})`, ''];
lines.push(
  `${'run'.padEnd(8)} ${'node'.padEnd(5)} ${'k8s'.padEnd(8)} ${'time'.padStart(6)} passed failed skipped`,
);
for (const r of RUNS.map((x) => results.find((y) => y.name === x.name))) {
  const c = r.record?.counts;
  if (c) for (const k of Object.keys(total)) total[k] += c[k];
  // A run that died without its record counts as one failure at least.
  if (!c && r.status !== 0) total.failed++;
  lines.push(
    `${r.name.padEnd(8)} ${String(r.line).padEnd(5)} ${(r.k8s ?? '').padEnd(8)} ${secs(r.ms).padStart(6)} ${String(c?.passed ?? '?').padStart(6)} ${String(c?.failed ?? '?').padStart(6)} ${String(c?.skipped ?? '?').padStart(7)}`,
  );
}
const files = results
  .filter((r) => r.line === 24 && r.record)
  .flatMap((r) => Object.entries(r.record.files).map(([f, v]) => ({ f, run: r.name, ...v })))
  .sort((a, b) => b.ms - a.ms);
const table = files.map((x) => `${secs(x.ms).padStart(6)}  ${x.run.padEnd(6)} ${x.f}`);
const tableFile = path.join(runsDir, 'timings.txt');
fs.writeFileSync(tableFile, `${table.join('\n')}\n`);
lines.push('', `slowest ${Math.min(SLOWEST, files.length)} of ${files.length} files (all: ${tableFile}):`);
lines.push(...table.slice(0, SLOWEST));
process.stderr.write(`${lines.join('\n')}\n`);

const failed = results.filter((r) => r.status !== 0);
for (const r of failed) if (r.report) process.stderr.write(`\n==> failures of [${r.name}]\n${r.report}\n`);
if (failed.length) {
  process.stderr.write(`\ntests failed in ${failed.map((r) => `[${r.name}] (Node ${r.line})`).join(', ')}\n`);
  process.exitCode = 1;
} else {
  process.stderr.write(`\nall tests passed (${RUNS.map((r) => r.name).join(', ')})\n`);
}
// The plain closing line that CI reads.
process.stdout.write(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
