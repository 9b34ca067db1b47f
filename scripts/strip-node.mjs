#!/usr/bin/env node
// The Node.js binary without its symbol tables and debug information (`strip --strip-all`, from
// binutils, which scripts/ensure-deps.mjs installs): the official linux-x64 binary of Node 24 is
// 127 MB "with debug_info, not stripped", 109 MB stripped, and runs the same. Made once per
// binary under .cache/node-stripped/ and checked by running it: it must report the same version.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain } from './process.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(repoRoot, '.cache', 'node-stripped');

const versionOf = (bin) => {
  const r = spawnSync(bin, ['-p', 'process.version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${bin} does not run: ${r.stderr.trim() || `exit ${r.status}`}`);
  return r.stdout.trim();
};

/** Path of a stripped copy of `binary` (made if missing). */
export function strippedNode(binary) {
  const st = fs.statSync(binary);
  const version = versionOf(binary);
  const out = path.join(cacheDir, `${version}-${st.size}`, 'node');
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const r = spawnSync('strip', ['--strip-all', '-o', tmp, binary], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    fs.rmSync(tmp, { force: true });
    throw new Error(
      `strip --strip-all ${binary} failed (${r.error?.message ?? r.stderr.trim()}); install binutils (npm run pretest does)`,
    );
  }
  const got = versionOf(tmp);
  if (got !== version) throw new Error(`the stripped node reports ${got}, not ${version}`);
  fs.renameSync(tmp, out);
  return out;
}

if (isMain(import.meta.url)) {
  const { nodeBinary } = await import('./node-runtime.mjs');
  const out = strippedNode(nodeBinary(Number(process.argv[2] ?? 24)));
  process.stdout.write(`${out} ${(fs.statSync(out).size / 2 ** 20).toFixed(1)} MiB\n`);
}
