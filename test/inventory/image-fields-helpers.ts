// The kinds whose objects name images in string fields, for the image-fields tests: the CRDs
// written for the tests (test/fixtures/source-kinds/), docs/examples' kinds file that declares
// them (its ClusterTask's namespace replaced by the test's), and objects of each kind.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { discoverKinds } from '../../src/core/inventory/discover-kinds.js';
import type { KubeRest } from '../../src/core/kube/rest.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { repoRoot } from '../support/paths.js';
import { until } from '../watch/helpers.js';

export type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec?: unknown };

export const FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'source-kinds');
export const EXAMPLE = path.join(repoRoot, 'docs', 'examples', 'source-kinds-image-fields.yaml');

export const FIELD_KINDS = {
  cache: { apiVersion: 'kubefledged.io/v1alpha2', kind: 'ImageCache', plural: 'imagecaches', cluster: false },
  pull: {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'ImagePullJob',
    plural: 'imagepulljobs',
    cluster: false,
  },
  task: { apiVersion: 'tekton.dev/v1', kind: 'Task', plural: 'tasks', cluster: false },
  clusterTask: {
    apiVersion: 'tekton.dev/v1beta1',
    kind: 'ClusterTask',
    plural: 'clustertasks',
    cluster: true,
  },
};
const byKind = new Map(Object.values(FIELD_KINDS).map((k) => [k.kind, k]));

/** The collection of an object's kind (cluster-scoped kinds have one for every namespace). */
export function pathOf(o: { kind: string }, ns: string): string {
  const k = byKind.get(o.kind)!;
  return `/apis/${k.apiVersion}${k.cluster ? '' : `/namespaces/${ns}`}/${k.plural}`;
}

/** The example kinds file, its cluster-scoped kind's Images kept in `ns`. */
export const kindsFile = (ns: string): string =>
  fs.readFileSync(EXAMPLE, 'utf8').replace('namespace: tekton-pipelines', `namespace: ${ns}`);

/** Installs the CRDs and waits until discovery serves every kind of the example. */
export async function installFieldKinds(env: { rest: KubeRest }): Promise<void> {
  const crds = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) =>
      parseAllDocuments(fs.readFileSync(path.join(FIXTURES, f), 'utf8')).map((d) => d.toJS() as Obj),
    );
  await installCrds(env.rest, crds as never);
  const declared = parseSourceKinds(kindsFile('default'), 'kinds.yaml');
  await until(
    'the field kinds served',
    async () => (await discoverKinds(env.rest, declared)).served.length === declared.length,
    30_000,
  );
}

/** One object of each kind (two ImagePullJobs: one names a bad ref), as written to the API. */
export function objectsOf(ns: string, image = (i: string) => i): Obj[] {
  const meta = (name: string) => ({ name, namespace: ns });
  const k = FIELD_KINDS;
  return [
    {
      apiVersion: k.cache.apiVersion,
      kind: k.cache.kind,
      metadata: meta('warm-web'),
      spec: {
        cacheSpec: [
          { images: [image('nginx:1.27')] },
          { images: [image('redis:7.4')], nodeSelector: { 'kubernetes.io/os': 'linux' } },
        ],
      },
    },
    {
      apiVersion: k.pull.apiVersion,
      kind: k.pull.kind,
      metadata: meta('pull-nginx'),
      spec: { image: image('nginx:1.27') },
    },
    {
      apiVersion: k.pull.apiVersion,
      kind: k.pull.kind,
      metadata: meta('bad-ref'),
      spec: { image: 'Not A Ref' },
    },
    {
      apiVersion: k.task.apiVersion,
      kind: k.task.kind,
      metadata: meta('build'),
      spec: {
        steps: [
          {
            name: 'clone',
            image: image('gcr.io/tekton-releases/git-init:v0.40'),
            script: 'git clone "$URL"',
          },
          { name: 'build', image: image('golang:1.23'), script: 'go build ./...' },
        ],
      },
    },
    {
      apiVersion: k.clusterTask.apiVersion,
      kind: k.clusterTask.kind,
      // Cluster-scoped: no namespace, and a name of the test's own.
      metadata: { name: `${ns}-build` },
      spec: {
        steps: [
          { name: 'build', image: image('golang:1.23') },
          { name: 'test', image: image('alpine:3.20') },
        ],
      },
    },
  ];
}
