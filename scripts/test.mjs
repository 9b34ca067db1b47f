#!/usr/bin/env node
// `npm test`: the whole suite on Node 24 LTS, then the unit tests (pure, no services) on Node 20
// and 22, each an official binary taken from the npm registry (scripts/node-runtime.mjs). A
// failure on any line fails the run. Extra arguments go to every mocha run.
//
// Each run's failure report (mocha's "N failing" section) is printed again at the very end: a CI
// log is often read from its tail, and the whole suite's failures would otherwise sit above two
// more runs' output.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from './node-runtime.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mocha = path.join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
const extra = process.argv.slice(2);
// What is kept of one run's failure report; the full report is in the log above it.
const REPORT_LIMIT = 64 * 1024;

/** Runs mocha on one Node line, streaming its output; resolves to its exit status and report. */
function run(line, args, env = {}) {
  const node = nodeBinary(line);
  process.stderr.write(`\n==> Node ${line} (${node}): mocha ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(node, [mocha, ...args, ...extra], {
      cwd: repoRoot,
      stdio: ['inherit', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let tail = '';
    let report = null;
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      if (report !== null) {
        if (report.length < REPORT_LIMIT) report += chunk.toString('utf8');
        return;
      }
      // The report starts at mocha's "  N failing" line; a line may span two chunks.
      tail = (tail + chunk.toString('utf8')).slice(-REPORT_LIMIT);
      const at = tail.search(/^ {2}\d+ failing/m);
      if (at >= 0) report = tail.slice(at);
      else tail = tail.slice(-256);
    });
    child.on('close', (code, signal) => {
      resolve({ status: code ?? (signal ? 1 : 0), report: report?.slice(0, REPORT_LIMIT) ?? null });
    });
  });
}

const failed = [];
const reports = [];
async function runLine(label, line, args, env) {
  const r = await run(line, args, env);
  if (r.status !== 0) failed.push(label);
  if (r.report) reports.push(`==> failures on Node ${label}\n${r.report}`);
}

await runLine('24 (whole suite)', 24, []);
for (const line of [20, 22]) {
  const unit = ['--no-config', '--timeout', '20000', '--spec', 'dist/test/unit/**/*.test.js'];
  await runLine(`${line} (unit tests)`, line, unit, { INV_TEST_NO_SERVICES: '1' });
}
if (failed.length) {
  for (const r of reports) process.stderr.write(`\n${r}\n`);
  process.stderr.write(`\ntests failed on Node ${failed.join(', ')}\n`);
  process.exitCode = 1;
} else {
  process.stderr.write('\nall tests passed on Node 24 (whole suite), 20 and 22 (unit tests)\n');
}
