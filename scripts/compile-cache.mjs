#!/usr/bin/env node
// Node's compile cache for the worker, made when the image is built. A worker Pod's root file
// system is read-only, so Node cannot write the cache there at run time; this writes it once,
// into the image, for the modules a worker loads (V8 then skips compiling them on every node).
//
// It runs the image's own node on the image's own app directory: `inv node-remove` against a
// throwaway socket that hangs up, so it loads what a worker loads, connects, and gives up at its
// deadline. The cache is "portable" (keyed by paths relative to the cache directory, Node 24),
// so it is valid at /app in the image whatever directory it was made in; and it is made with the
// worker's NODE_OPTIONS, because V8 accepts a cache only under the flags it was made with. A
// cache that does not match (another Node, changed files) is ignored by Node, never wrong.
//
//   node scripts/compile-cache.mjs <node binary> <app dir>
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain } from './process.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The cache's directory inside the app directory (the image sets NODE_COMPILE_CACHE to it). */
export const COMPILE_CACHE_DIR = '.node-compile-cache';

/** The environment under which a process in the image finds the cache (the image's Env). */
export const compileCacheEnv = (appDir) => ({
  NODE_COMPILE_CACHE: path.posix.join(appDir, COMPILE_CACHE_DIR),
  NODE_COMPILE_CACHE_PORTABLE: '1',
});

/** The worker Pod's NODE_OPTIONS, from the controller's code (dist/src, built by tsc). */
export async function workerNodeOptions(root = repoRoot) {
  const mod = await import(path.join(root, 'dist', 'src', 'core', 'erase', 'worker', 'pod-spec.js'));
  return mod.WORKER_NODE_OPTIONS;
}

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Writes <appDir>/.node-compile-cache with `node`; returns its files (relative paths). */
export function writeCompileCache({ node, appDir, nodeOptions }) {
  const cacheDir = path.join(appDir, COMPILE_CACHE_DIR);
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-compile-cache-'));
  const sock = path.join(tmp, 'cri.sock');
  const server = spawn(
    process.execPath,
    ['-e', `require('node:net').createServer((s) => s.destroy()).listen(${JSON.stringify(sock)})`],
    { stdio: 'ignore' },
  );
  try {
    for (let i = 0; i < 200 && !fs.existsSync(sock); i++) pause(50);
    if (!fs.existsSync(sock)) throw new Error('the throwaway socket never appeared');
    const r = spawnSync(
      node,
      [
        path.join(appDir, 'bin', 'run.js'),
        'node-remove',
        '--runtime-endpoint',
        `unix://${sock}`,
        '--images',
        'inv.local/compile-cache:warm',
        '--call-timeout',
        '500ms',
        '-o',
        'json',
      ],
      {
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          NODE_OPTIONS: nodeOptions,
          NODE_COMPILE_CACHE: cacheDir,
          NODE_COMPILE_CACHE_PORTABLE: '1',
        },
      },
    );
    if (r.status !== 2 || !/cannot connect to the container runtime/.test(r.stderr ?? ''))
      throw new Error(
        `the warm-up run ended unexpectedly (exit ${r.status ?? r.signal}): ${(r.stderr ?? r.error?.message ?? '').trim()}`,
      );
  } finally {
    server.kill();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const files = fs.existsSync(cacheDir)
    ? fs
        .readdirSync(cacheDir, { recursive: true })
        .map(String)
        .filter((f) => fs.statSync(path.join(cacheDir, f)).isFile())
    : [];
  if (files.length === 0) throw new Error(`${node} wrote no compile cache (Node 22.1+ writes one)`);
  return files.sort();
}

if (isMain(import.meta.url)) {
  const [node, appDir] = process.argv.slice(2);
  if (!node || !appDir) {
    process.stderr.write('usage: compile-cache.mjs <node binary> <app dir>\n');
    process.exit(2);
  }
  try {
    const files = writeCompileCache({ node, appDir, nodeOptions: await workerNodeOptions() });
    process.stderr.write(`compile-cache: ${files.length} files in ${path.join(appDir, COMPILE_CACHE_DIR)}\n`);
  } catch (err) {
    process.stderr.write(`compile-cache: ${err.message}\n`);
    process.exitCode = 1;
  }
}
