// A Pod's ReplicaSet settled by its name (`<deployment>-<hash>`) only when no image can be lost;
// otherwise the ReplicaSet's metadata decides, and without it the Pod is credited (fail closed).
import assert from 'node:assert/strict';
import { needsOwnerMetadata } from '../../../src/core/inventory/owner-by-name.js';
import { desiredImages, kindsString } from '../../../src/core/inventory/rules.js';
import type { NamespaceObjects, PodSpec, SourceObject } from '../../../src/core/inventory/source-fields.js';

const NS = 'shop';
const lib = (r: string) => `docker.io/library/${r}`;
const spec = (images: string[], init: string[] = []): PodSpec => ({
  containers: images.map((image, i) => ({ name: `c${i}`, image })),
  initContainers: init.map((image, i) => ({ name: `i${i}`, image })),
});
const deployment = (name: string, s: PodSpec, deleting = false): SourceObject => ({
  metadata: { name, namespace: NS, uid: `d-${name}`, ...(deleting ? { deletionTimestamp: 'x' } : {}) },
  spec: { template: { spec: s } },
});
const pod = (name: string, rs: string, s: PodSpec): SourceObject & { spec: PodSpec } => ({
  metadata: {
    name,
    namespace: NS,
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `rs-${rs}`, controller: true },
    ],
  },
  spec: s,
});
const rs = (name: string, owner?: { kind: string; name: string; apiVersion: string }): SourceObject => ({
  metadata: {
    name,
    namespace: NS,
    uid: `rs-${name}`,
    ...(owner ? { ownerReferences: [{ ...owner, uid: `d-${owner.name}`, controller: true }] } : {}),
  },
});
const kinds = (objs: NamespaceObjects) =>
  Object.fromEntries([...desiredImages(NS, objs).images].map(([ref, k]) => [ref, kindsString(k)]));

describe('ReplicaSet owners settled by name (no ReplicaSet read)', () => {
  const web = deployment('web-shop', spec(['web:2'], ['init:1']));

  it("a Deployment's current Pods need no ReplicaSet: only the Deployment credits", () => {
    const objs = { deployments: [web], pods: [pod('p1', 'web-shop-7d9f8c6b5', spec(['web:2'], ['init:1']))] };
    assert.equal(needsOwnerMetadata(objs), false);
    assert.deepEqual(kinds({ ...objs, replicaSets: [] }), {
      [lib('web:2')]: 'Deployment',
      [lib('init:1')]: 'Deployment',
    });
  });

  it('an image the Deployment does not hold (an older revision) needs the metadata', () => {
    const old = pod('p0', 'web-shop-5b8c7', spec(['web:1'], ['init:1']));
    const objs = { deployments: [web], pods: [old] };
    assert.equal(needsOwnerMetadata(objs), true);
    // Read: the Deployment's ReplicaSet, an older revision: its image is the Deployment's too.
    assert.deepEqual(
      kinds({
        ...objs,
        replicaSets: [rs('web-shop-5b8c7', { kind: 'Deployment', name: 'web-shop', apiVersion: 'apps/v1' })],
      }),
      { [lib('web:2')]: 'Deployment', [lib('init:1')]: 'Deployment', [lib('web:1')]: 'Deployment' },
    );
    // Not readable: the Pod's images count, as its ReplicaSet's (fail closed).
    assert.equal(kinds({ ...objs, replicaSets: [] })[lib('web:1')], 'ReplicaSet');
  });

  it('a bare ReplicaSet named like a Deployment that runs other images is credited', () => {
    const objs: NamespaceObjects = {
      deployments: [web],
      pods: [pod('b1', 'web-shop-abc', spec(['evil:1']))],
      replicaSets: [rs('web-shop-abc')],
    };
    assert.equal(needsOwnerMetadata(objs), true);
    assert.equal(kinds(objs)[lib('evil:1')], 'ReplicaSet');
  });

  it('no Deployment of that name, or one being deleted, settles nothing', () => {
    for (const deployments of [
      [],
      [deployment('web-shop', spec(['web:2']), true)],
      [deployment('web', spec(['web:2']))],
    ])
      assert.equal(
        needsOwnerMetadata({ deployments, pods: [pod('p', 'web-shop-7d9f8c6b5', spec(['web:2']))] }),
        true,
      );
    assert.equal(
      kinds({ pods: [pod('p', 'web-shop-7d9f8c6b5', spec(['web:2']))], replicaSets: [] })[lib('web:2')],
      'ReplicaSet',
    );
  });

  it('names without a hash part, and Pods of other owners, are not guessed', () => {
    for (const name of ['web', '-x', 'web-'])
      assert.equal(needsOwnerMetadata({ deployments: [web], pods: [pod('p', name, spec(['web:2']))] }), true);
    const naked: SourceObject = { metadata: { name: 'n', namespace: NS }, spec: spec(['x']) };
    assert.equal(needsOwnerMetadata({ pods: [naked] }), false);
  });
});
