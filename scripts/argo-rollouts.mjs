#!/usr/bin/env node
// Argo Rollouts' own CRD and examples, for the tests of declared source kinds: the Go module
// github.com/argoproj/argo-rollouts (from the Go module proxy) carries manifests/crds/ and
// examples/ in its module zip. `go mod download` puts it in a module cache of our own
// (.cache/argo-rollouts), so nothing of theirs is copied into the repository and a second run
// reads the cache. `node scripts/argo-rollouts.mjs` prints the module's directory.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MODULE = 'github.com/argoproj/argo-rollouts';
export const VERSION = 'v1.8.3';
const cacheDir = path.join(repoRoot, '.cache', 'argo-rollouts');

/** The module's directory (read-only files), downloading it on first use. */
export function argoRolloutsDir() {
  const dir = path.join(cacheDir, 'mod', `${MODULE}@${VERSION}`);
  if (fs.existsSync(path.join(dir, 'manifests', 'crds', 'rollout-crd.yaml'))) return dir;
  fs.mkdirSync(cacheDir, { recursive: true });
  const r = spawnSync('go', ['mod', 'download', '-json', `${MODULE}@${VERSION}`], {
    cwd: cacheDir,
    encoding: 'utf8',
    timeout: 300_000,
    // Outside any module; a module cache of our own, writable so that it can be removed.
    env: {
      ...process.env,
      GOMODCACHE: path.join(cacheDir, 'mod'),
      GOFLAGS: '-modcacherw',
      GO111MODULE: 'on',
    },
  });
  if (r.status !== 0) throw new Error(`go mod download ${MODULE}@${VERSION} failed: ${r.stderr || r.error}`);
  const out = JSON.parse(r.stdout);
  if (out.Error) throw new Error(`go mod download ${MODULE}@${VERSION}: ${out.Error}`);
  return out.Dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(argoRolloutsDir());
