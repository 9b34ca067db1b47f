// The source-to-kinds rules for Pods whose controller is not a source kind: they are credited to
// their top owner (a bare ReplicaSet, the unknown kind that owns a ReplicaSet, a CRD, a Node), a
// declared kind without a template keeps its Pods' images; and ReplicationController, a built-in
// kind added through the registry alone. The rules per source kind are in rules.test.ts.
import assert from 'node:assert/strict';
import { desiredImages, kindsString } from '../../../src/core/inventory/rules.js';
import { SourceKinds } from '../../../src/core/inventory/source-kinds.js';
import { kinds, lib, meta, NS, objs, pod, spec, workload } from './rules-fixtures.js';

describe('ReplicationController (a built-in kind added through the registry alone)', () => {
  it('credits its template as ReplicationController, and its Pods nothing more', () => {
    const rcOwned = {
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', controller: true },
      ],
    };
    assert.deepEqual(
      kinds({
        replicationControllers: [workload('legacy', spec(['legacy:2'], ['init:1']))],
        pods: [pod('legacy-x', spec(['legacy:2'], ['init:1']), rcOwned)],
      }),
      { [lib('legacy:2')]: 'ReplicationController', [lib('init:1')]: 'ReplicationController' },
    );
  });
});

describe('owned Pods no source kind controls (credited to the top owner)', () => {
  const owned = (kind: string, name: string, apiVersion: string, uid = 'u') => ({
    ownerReferences: [{ apiVersion, kind, name, uid, controller: true }],
  });
  const rs = (name: string, uid: string, owner?: { kind: string; name: string; apiVersion: string }) => ({
    metadata: meta(name, {
      uid,
      ...(owner ? { ownerReferences: [{ ...owner, uid: 'o', controller: true }] } : {}),
    }),
  });

  it('a bare ReplicaSet credits its Pods as ReplicaSet (users: ReplicaSet/name)', () => {
    const r = desiredImages(
      NS,
      objs({
        replicaSets: [rs('bare', 'b')],
        pods: [
          pod('bare-x', spec(['nginx'], ['init:1'], ['dbg:1']), owned('ReplicaSet', 'bare', 'apps/v1', 'b')),
        ],
      }),
    );
    assert.deepEqual(kindsString(r.images.get(lib('nginx:latest'))!), 'ReplicaSet');
    assert.deepEqual(kindsString(r.images.get(lib('init:1'))!), 'ReplicaSet');
    assert.deepEqual(kindsString(r.images.get(lib('dbg:1'))!), 'Pod');
    assert.deepEqual([...r.users.get(lib('nginx:latest'))!], ['ReplicaSet/bare']);
  });

  it("a ReplicaSet of an unknown kind credits its Pods to that kind; a Deployment's to nothing", () => {
    assert.deepEqual(
      kinds({
        replicaSets: [
          rs('ro-1', 'r1', { kind: 'Rollout', name: 'ro', apiVersion: 'argoproj.io/v1alpha1' }),
          rs('web-1', 'w1', { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }),
        ],
        deployments: [workload('web', spec(['web']))],
        pods: [
          pod('ro-1-x', spec(['argo']), owned('ReplicaSet', 'ro-1', 'apps/v1', 'r1')),
          pod('web-1-x', spec(['web']), owned('ReplicaSet', 'web-1', 'apps/v1', 'w1')),
        ],
      }),
      { [lib('argo:latest')]: 'Rollout', [lib('web:latest')]: 'Deployment' },
    );
  });

  it('a Pod of an unknown CRD, of a Node (static Pod) or of a ReplicaSet not seen is credited', () => {
    assert.deepEqual(
      kinds({
        replicaSets: [],
        jobs: [workload('j', spec(['job']))],
        pods: [
          pod('wf-1', spec(['step']), owned('Workflow', 'wf', 'argoproj.io/v1alpha1')),
          pod('etcd-n1', spec(['etcd']), owned('Node', 'n1', 'v1')),
          pod('gone-x', spec(['gone']), owned('ReplicaSet', 'gone', 'apps/v1')),
          pod('job-x', spec(['job']), owned('Job', 'j', 'batch/v1')),
        ],
      }),
      {
        [lib('job:latest')]: 'Job',
        [lib('step:latest')]: 'Workflow',
        [lib('etcd:latest')]: 'Node',
        [lib('gone:latest')]: 'ReplicaSet',
      },
    );
  });

  it('a kind that is not a kind name is credited as the Pod; a declared kind without a template, with its Pods', () => {
    assert.deepEqual(kinds({ pods: [pod('p', spec(['x']), owned('a,b', 'o', 'v1'))] }), {
      [lib('x:latest')]: 'Pod',
    });
    const declared = new SourceKinds([
      {
        kind: 'Workflow',
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'workflows',
        key: 'Workflow.argoproj.io',
        podSpecs: [],
        declared: true,
      },
    ]);
    const wfPod = pod('wf-1', spec(['step']), owned('Workflow', 'wf', 'argoproj.io/v1alpha1'));
    const r = desiredImages(
      NS,
      objs({ 'Workflow.argoproj.io': [{ metadata: meta('wf') }], pods: [wfPod] }),
      declared,
    );
    // Its template holds no image: what its Pods run is its own (./live-revisions.ts).
    assert.deepEqual([...r.users.get(lib('step:latest'))!], ['Workflow/wf (not in its template, 1 Pod)']);
    // Once the Workflow is gone, nothing covers its Pod any more.
    assert.deepEqual(
      kindsString(desiredImages(NS, objs({ pods: [wfPod] }), declared).images.get(lib('step:latest'))!),
      'Workflow',
    );
  });
});
