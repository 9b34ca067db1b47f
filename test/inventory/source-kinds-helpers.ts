// Argo Rollouts for the declared source kinds tests: its CRD and examples from the Go module
// github.com/argoproj/argo-rollouts (fetched into .cache/ by scripts/argo-rollouts.mjs: nothing
// of theirs is in this repository), and the kinds file of docs/examples that declares Rollout.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { discoverKinds } from '../../src/core/inventory/discover-kinds.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { repoRoot } from '../support/paths.js';
import { until } from '../watch/helpers.js';
import type { Env } from './helpers.js';

export type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec?: unknown };
export const KINDS_FILE = path.join(repoRoot, 'docs', 'examples', 'source-kinds-argo-rollouts.yaml');
export const ROLLOUTS = '/apis/argoproj.io/v1alpha1';

async function argoDir(): Promise<string> {
  const m = (await import(path.join(repoRoot, 'scripts', 'argo-rollouts.mjs'))) as {
    argoRolloutsDir(): string;
  };
  return m.argoRolloutsDir();
}
export const docs = (file: string): Obj[] =>
  parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Obj)
    .filter(Boolean);

/** Installs Argo's Rollout CRD and waits until the kinds file's Rollout is served; returns Argo's module directory. */
export async function installRollouts(env: Env): Promise<string> {
  const dir = await argoDir();
  const crd = docs(path.join(dir, 'manifests', 'crds', 'rollout-crd.yaml'))[0]!;
  await installCrds(env.rest, [crd as never]);
  await until(
    'rollouts served',
    async () =>
      (await discoverKinds(env.rest, parseSourceKinds(fs.readFileSync(KINDS_FILE, 'utf8'), 'f'))).served
        .length === 1,
    30_000,
  );
  return dir;
}
