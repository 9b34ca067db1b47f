// Every image a live Pod of a workload runs is the workload's (live-revisions.ts): an old
// ReplicaSet's Pods mid-rollout, a StatefulSet's Pods below its partition, a DaemonSet's not yet
// updated, a CronJob's running Job after its template changed, an Argo Rollout's stable and
// canary ReplicaSets. A Pod whose images the template holds credits nothing more.
import assert from 'node:assert/strict';
import { desiredImages } from '../../../src/core/inventory/rules.js';
import { BUILTIN_SOURCE_KINDS, SourceKinds } from '../../../src/core/inventory/source-kinds.js';
import type { NamespaceObjects, OwnerReference, PodSpec } from '../../../src/core/inventory/source-fields.js';

const NS = 'shop';
const lib = (i: string) => `docker.io/library/${i}`;
const spec = (...images: string[]): PodSpec => ({
  containers: images.map((image, i) => ({ name: `c${i}`, image })),
});
const ref = (kind: string, name: string, apiVersion = 'apps/v1'): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid: `${kind}-${name}`,
  controller: true,
});
const obj = (name: string, kind: string, template: PodSpec, owner?: OwnerReference) => ({
  metadata: { name, namespace: NS, uid: `${kind}-${name}`, ...(owner ? { ownerReferences: [owner] } : {}) },
  spec: { template: { spec: template } },
});
const pod = (name: string, s: PodSpec, owner: OwnerReference) => ({
  metadata: { name, namespace: NS, ownerReferences: [owner] },
  spec: s,
});
const users = (objs: NamespaceObjects, kinds?: SourceKinds) => {
  const r = desiredImages(NS, objs, kinds);
  return Object.fromEntries([...r.users].map(([k, v]) => [k, [...v].sort()]));
};

describe('live revisions', () => {
  it('a Deployment mid-rollout: the old ReplicaSet’s image is the Deployment’s, with the ReplicaSet and its Pods', () => {
    const web = obj('web', 'Deployment', spec('app:v2'));
    const objs: NamespaceObjects = {
      deployments: [web],
      replicaSets: [
        obj('web-5d4f8c', 'ReplicaSet', spec('app:v1'), ref('Deployment', 'web')),
        obj('web-7b9d6e', 'ReplicaSet', spec('app:v2'), ref('Deployment', 'web')),
      ],
      pods: [
        pod('web-5d4f8c-a', spec('app:v1'), ref('ReplicaSet', 'web-5d4f8c')),
        pod('web-5d4f8c-b', spec('app:v1'), ref('ReplicaSet', 'web-5d4f8c')),
        pod('web-5d4f8c-c', spec('app:v1'), ref('ReplicaSet', 'web-5d4f8c')),
        pod('web-7b9d6e-a', spec('app:v2'), ref('ReplicaSet', 'web-7b9d6e')),
      ],
    };
    assert.deepEqual(users(objs), {
      [lib('app:v2')]: ['Deployment/web'],
      [lib('app:v1')]: ['Deployment/web (ReplicaSet web-5d4f8c, 3 Pods)'],
    });
    // Done: the old Pods are gone, and so is the credit.
    assert.deepEqual(users({ ...objs, pods: objs.pods!.slice(3) }), { [lib('app:v2')]: ['Deployment/web'] });
  });

  it('a StatefulSet partition and a DaemonSet mid-update: the Pods not yet updated', () => {
    const objs: NamespaceObjects = {
      statefulSets: [obj('db', 'StatefulSet', spec('db:v2'))],
      daemonSets: [obj('agent', 'DaemonSet', spec('agent:v2'))],
      pods: [
        pod('db-0', spec('db:v1'), ref('StatefulSet', 'db')),
        pod('db-1', spec('db:v2'), ref('StatefulSet', 'db')),
        pod('agent-x', spec('agent:v1'), ref('DaemonSet', 'agent')),
        pod('agent-y', spec('agent:v2'), ref('DaemonSet', 'agent')),
      ],
    };
    assert.deepEqual(users(objs), {
      [lib('db:v2')]: ['StatefulSet/db'],
      [lib('db:v1')]: ['StatefulSet/db (earlier revision, 1 Pod)'],
      [lib('agent:v2')]: ['DaemonSet/agent'],
      [lib('agent:v1')]: ['DaemonSet/agent (earlier revision, 1 Pod)'],
    });
  });

  it("a CronJob's running Job after the CronJob's template changed", () => {
    const cj = {
      metadata: { name: 'nightly', namespace: NS, uid: 'CronJob-nightly' },
      spec: { jobTemplate: { spec: { template: { spec: spec('report:v2') } } } },
    };
    const objs: NamespaceObjects = {
      cronJobs: [cj],
      jobs: [obj('nightly-2899', 'Job', spec('report:v1'), ref('CronJob', 'nightly', 'batch/v1'))],
      pods: [pod('nightly-2899-x', spec('report:v1'), ref('Job', 'nightly-2899', 'batch/v1'))],
    };
    assert.deepEqual(users(objs), {
      [lib('report:v2')]: ['CronJob/nightly'],
      [lib('report:v1')]: ['CronJob/nightly (Job nightly-2899, 1 Pod)'],
    });
  });

  it("an Argo Rollout's stable and canary ReplicaSets (a declared kind)", () => {
    const kinds = new SourceKinds([
      ...BUILTIN_SOURCE_KINDS,
      {
        kind: 'Rollout',
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'rollouts',
        key: 'Rollout.argoproj.io',
        podSpecs: ['spec.template.spec'],
        declared: true,
      },
    ]);
    const rollout = ref('Rollout', 'shop', 'argoproj.io/v1alpha1');
    const objs: NamespaceObjects = {
      'Rollout.argoproj.io': [obj('shop', 'Rollout', spec('shop:v2'))],
      replicaSets: [
        obj('shop-6c7d8', 'ReplicaSet', spec('shop:v1'), rollout),
        obj('shop-9f8e7', 'ReplicaSet', spec('shop:v2'), rollout),
      ],
      pods: [
        pod('shop-6c7d8-a', spec('shop:v1'), ref('ReplicaSet', 'shop-6c7d8')),
        pod('shop-6c7d8-b', spec('shop:v1'), ref('ReplicaSet', 'shop-6c7d8')),
        pod('shop-9f8e7-a', spec('shop:v2'), ref('ReplicaSet', 'shop-9f8e7')),
      ],
    };
    assert.deepEqual(users(objs, kinds), {
      [lib('shop:v2')]: ['Rollout/shop'],
      [lib('shop:v1')]: ['Rollout/shop (ReplicaSet shop-6c7d8, 2 Pods)'],
    });
  });

  it('a Pod whose images the template holds credits nothing more (the seed’s rule)', () => {
    const objs: NamespaceObjects = {
      statefulSets: [obj('db', 'StatefulSet', spec('db:v2', 'sidecar:1'))],
      pods: [pod('db-0', spec('sidecar:1', 'db:v2'), ref('StatefulSet', 'db'))],
    };
    assert.deepEqual(users(objs), {
      [lib('db:v2')]: ['StatefulSet/db'],
      [lib('sidecar:1')]: ['StatefulSet/db'],
    });
  });
});
