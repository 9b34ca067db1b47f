#!/usr/bin/env node
// `npm test`: the whole suite on Node 24 LTS, then the unit tests (pure, no services) on Node 20
// and 22, each an official binary taken from the npm registry (scripts/node-runtime.mjs). A
// failure on any line fails the run. Extra arguments go to every mocha run.
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
const CRIO_NODE_SUITES = ['erase', 'protect', 'threshold', 'rollout', 'check-nodes'];
// Longest first: a pool of N slots finishes soonest when the long runs start first. With two
// slots the real-node runs (nodes, then crio) share one, so two clusters of kubelets never run
// at once; the rest of the suite takes the other.
const RUNS = [
  { name: 'suite', line: 24, args: ['--spec', 'dist/test/**/*.test.js', '--ignore', nodeSpec], env: {} },
  { name: 'nodes', line: 24, args: ['--spec', nodeSpec], env: { INV_TEST_REAL_NODES_ONLY: '1' } },
  // The erase paths again on a cluster of CRI-O nodes (scripts/crio.mjs): named images, `*` with
  // inventory protection, thresholds, rollout waves, and check --nodes naming the runtime.
  {
    name: 'crio',
    line: 24,
    args: ['--spec', ...CRIO_NODE_SUITES.map((f) => `dist/test/nodes/${f}.test.js`)],
    env: { INV_TEST_REAL_NODES_ONLY: '1', INV_TEST_NODES_RUNTIME: 'crio' },
  },
  ...[20, 22].map((line) => ({
    name: `unit${line}`,
    line,
    args: ['--timeout', '20000', '--spec', 'dist/test/unit/**/*.test.js'],
    env: { INV_TEST_NO_SERVICES: '1' },
  })),
];
const jobs = Math.max(
  1,
  Number(process.env.INV_TEST_JOBS) || Math.min(os.availableParallelism(), RUNS.length),
);

/** Runs one mocha, prefixing its lines with its name; resolves to its status, report and record. */
function run({ name, line, args, env }) {
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
await Promise.all(
  Array.from({ length: jobs }, async () => {
    for (let r = queue.shift(); r; r = queue.shift()) results.push(await run(r));
  }),
);
const wall = Date.now() - started;

const secs = (ms) => `${(ms / 1000).toFixed(0)}s`;
const total = { passed: 0, failed: 0, skipped: 0 };
const lines = ['', `==> Timings (${jobs} at once; wall ${secs(wall)})`, ''];
lines.push(`${'run'.padEnd(8)} ${'node'.padEnd(5)} ${'time'.padStart(6)} passed failed skipped`);
for (const r of RUNS.map((x) => results.find((y) => y.name === x.name))) {
  const c = r.record?.counts;
  if (c) for (const k of Object.keys(total)) total[k] += c[k];
  // A run that died without its record counts as one failure at least.
  if (!c && r.status !== 0) total.failed++;
  lines.push(
    `${r.name.padEnd(8)} ${String(r.line).padEnd(5)} ${secs(r.ms).padStart(6)} ${String(c?.passed ?? '?').padStart(6)} ${String(c?.failed ?? '?').padStart(6)} ${String(c?.skipped ?? '?').padStart(7)}`,
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
  process.stderr.write('\nall tests passed on Node 24 (whole suite), 20 and 22 (unit tests)\n');
}
// The plain closing line that CI reads.
process.stdout.write(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
