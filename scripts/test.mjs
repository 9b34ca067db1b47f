#!/usr/bin/env node
// `npm test`: the whole suite on Node 24 LTS, then the unit tests (pure, no services) on Node 20
// and 22, each an official binary taken from the npm registry (scripts/node-runtime.mjs). A
// failure on any line fails the run. Extra arguments go to every mocha run.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from './node-runtime.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mocha = path.join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
const extra = process.argv.slice(2);

function run(line, args, env = {}) {
  const node = nodeBinary(line);
  process.stderr.write(`\n==> Node ${line} (${node}): mocha ${args.join(' ')}\n`);
  const r = spawnSync(node, [mocha, ...args, ...extra], {
    cwd: repoRoot,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return r.status ?? 1;
}

const failed = [];
if (run(24, []) !== 0) failed.push('24 (whole suite)');
for (const line of [20, 22]) {
  const unit = ['--no-config', '--timeout', '20000', '--spec', 'dist/test/unit/**/*.test.js'];
  if (run(line, unit, { INV_TEST_NO_SERVICES: '1' }) !== 0) failed.push(`${line} (unit tests)`);
}
if (failed.length) {
  process.stderr.write(`\ntests failed on Node ${failed.join(', ')}\n`);
  process.exitCode = 1;
} else {
  process.stderr.write('\nall tests passed on Node 24 (whole suite), 20 and 22 (unit tests)\n');
}
