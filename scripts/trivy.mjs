#!/usr/bin/env node
// Scan mode's Go-built pieces, cached under .cache/trivy/ by a digest of their sources:
//   - the test vulnerability DB: scripts/trivy-testdb (trivy-db's pkg/db and bolt-fixtures, as
//     Trivy's own tests build theirs) run on test/fixtures/trivy-db/*.yaml, giving a Trivy cache
//     folder (db/trivy.db, db/metadata.json) that Trivy reads with --skip-db-update;
//   - Eraser's own Trivy scanner, built from its source at a tagged release taken from the Go
//     module proxy (eraser-dev/eraser's go.mod has replace directives, so `go install mod@v`
//     cannot build it: the module's files are copied and built as the main module).
// The Trivy binary itself is one of scripts/tools.mjs's tools; the scanner images are made by
// scripts/scanner-image.mjs.
//
//   node scripts/trivy.mjs build            # test DB and Eraser's scanner
//   node scripts/trivy.mjs db | eraser       # one of them; prints its path
//   node scripts/trivy.mjs eraser-remover    # Eraser's remover, for the benchmark; its path
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain } from './process.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = process.env.INV_TRIVY_CACHE_DIR || path.join(repoRoot, '.cache', 'trivy');
const log = (msg) => process.stderr.write(`trivy: ${msg}\n`);

/** Eraser's release whose pkg/scanners/trivy is built (its go.mod pins Trivy's library v0.51.2). */
export const ERASER = { module: 'github.com/eraser-dev/eraser', version: 'v1.4.1', minutes: 2 };

const digestOf = (files) => {
  const h = createHash('sha256');
  for (const f of files) h.update(path.relative(repoRoot, f)).update('\0').update(fs.readFileSync(f));
  return h.digest('hex').slice(0, 12);
};

function goBuild(args, cwd, env = {}) {
  const r = spawnSync('go', ['build', '-p', process.env.CI ? '2' : '1', '-trimpath', ...args], {
    cwd,
    env: { ...process.env, CGO_ENABLED: '0', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`go build ${args.join(' ')} in ${cwd} failed (exit ${r.status})`);
}

/** Moves a finished temporary folder into place (a concurrent user never sees half of it). */
function publish(tmp, dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  return dir;
}

const fixturesDir = path.join(repoRoot, 'test', 'fixtures', 'trivy-db');
const testdbSrc = path.join(repoRoot, 'scripts', 'trivy-testdb');

/** The test DB as a Trivy cache folder (holding db/); built on first use. */
export function testDb() {
  const fixtures = fs
    .readdirSync(fixturesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => path.join(fixturesDir, f));
  const program = ['go.mod', 'go.sum', 'main.go'].map((f) => path.join(testdbSrc, f));
  const dir = path.join(cacheDir, `testdb-${digestOf([...program, ...fixtures])}`);
  if (fs.existsSync(path.join(dir, 'db', 'metadata.json'))) return dir;
  const started = Date.now();
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  const bin = path.join(tmp, 'trivy-testdb');
  goBuild(['-o', bin, '.'], testdbSrc);
  const r = spawnSync(bin, ['-cache-dir', path.join(tmp, 'cache'), ...fixtures], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`trivy-testdb failed: ${r.stderr.trim()}`);
  fs.renameSync(path.join(tmp, 'cache', 'db'), path.join(tmp, 'db'));
  fs.rmSync(path.join(tmp, 'cache'), { recursive: true, force: true });
  fs.rmSync(bin);
  // Trivy opens the DB read-only, but other users of the cache (a scanner Pod's non-root user)
  // must be able to read it.
  for (const f of fs.readdirSync(path.join(tmp, 'db'))) fs.chmodSync(path.join(tmp, 'db', f), 0o644);
  publish(tmp, dir);
  log(`built the test DB in ${((Date.now() - started) / 1000).toFixed(0)}s: ${r.stderr.trim()}`);
  return dir;
}

/** Eraser's Trivy scanner binary (static), built from the module proxy's copy of its release. */
export const eraserScanner = () =>
  eraserBinary({
    pkg: './pkg/scanners/trivy',
    bin: 'trivy-scanner',
    what: "Eraser's Trivy scanner",
    ldflags: `-s -w -X main.trivyVersion=${process.env.INV_ERASER_TRIVY_VERSION ?? 'v0.74.0'}`,
  });

/**
 * Eraser's remover (pkg/remover), for the node-remove benchmark's side-by-side figures: it reads
 * an image list (--imagelist FILE) and talks CRI at /run/cri/cri.sock.
 */
export const eraserRemover = () =>
  eraserBinary({ pkg: './pkg/remover', bin: 'remover', what: "Eraser's remover", ldflags: '-s -w' });

/** One of Eraser's commands, built from the module proxy's copy of the release, cached. */
function eraserBinary({ pkg, bin: name, what, ldflags }) {
  const dir = path.join(
    cacheDir,
    name === 'trivy-scanner' ? `eraser-${ERASER.version}` : `eraser-${name}-${ERASER.version}`,
  );
  const bin = path.join(dir, name);
  if (fs.existsSync(bin)) return bin;
  if (spawnSync('go', ['version']).status !== 0) throw new Error(`Go is required to build ${what}`);
  log(
    `building ${what} ${ERASER.version} from Go modules (about ${ERASER.minutes} min on 2 cores; cached after)...`,
  );
  const started = Date.now();
  const r = spawnSync('go', ['mod', 'download', '-json', `${ERASER.module}@${ERASER.version}`], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  let info;
  try {
    info = JSON.parse(r.stdout);
  } catch {
    throw new Error(`go mod download ${ERASER.module}@${ERASER.version} failed: ${r.stderr || r.stdout}`);
  }
  if (info.Error || !info.Dir)
    throw new Error(`go mod download ${ERASER.module}@${ERASER.version}: ${info.Error}`);
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  const src = path.join(tmp, 'src');
  // The module cache is read-only; the build writes nothing there, but Go wants a writable main module.
  fs.cpSync(info.Dir, src, { recursive: true });
  spawnSync('chmod', ['-R', 'u+w', src]);
  goBuild(['-ldflags', ldflags, '-o', path.join(tmp, name), pkg], src);
  fs.rmSync(src, { recursive: true, force: true });
  publish(tmp, dir);
  log(`built ${what} in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  return bin;
}

function main() {
  const [cmd] = process.argv.slice(2);
  try {
    if (cmd === 'build') {
      testDb();
      eraserScanner();
    } else if (cmd === 'db') process.stdout.write(`${testDb()}\n`);
    else if (cmd === 'eraser') process.stdout.write(`${eraserScanner()}\n`);
    else if (cmd === 'eraser-remover') process.stdout.write(`${eraserRemover()}\n`);
    else {
      process.stderr.write('usage: trivy.mjs build | db | eraser | eraser-remover\n');
      process.exitCode = 2;
    }
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) main();
