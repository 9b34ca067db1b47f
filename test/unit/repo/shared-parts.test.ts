// The frozen parts that cached objects share (src/core/watch/shared-parts.ts).
import assert from 'node:assert/strict';
import { sharedOwners, sharedSpec } from '../../../src/core/watch/shared-parts.js';
import { stripPod } from '../../../src/core/inventory/strip.js';

const pod = (name: string, image: string, rs = 'web-abc') =>
  stripPod({
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `uid-${rs}`, controller: true },
      ],
    },
    spec: { containers: [{ name: 'app', image }], initContainers: [{ name: 'init', image: 'busybox:1' }] },
  });

describe('shared parts of cached objects', () => {
  it('gives Pods of one template one frozen spec and one owner list', () => {
    const [a, b] = [pod('web-abc-1', 'web:1'), pod('web-abc-2', 'web:1')];
    const [sa, sb] = [sharedSpec(a.spec), sharedSpec(b.spec)];
    assert.equal(sa, sb);
    assert.deepEqual(sa, b.spec);
    assert.ok(Object.isFrozen(sa) && Object.isFrozen(sa.containers) && Object.isFrozen(sa.containers![0]));
    const [oa, ob] = [sharedOwners(a.metadata.ownerReferences!), sharedOwners(b.metadata.ownerReferences!)];
    assert.equal(oa, ob);
    assert.ok(Object.isFrozen(oa) && Object.isFrozen(oa[0]));
  });

  it('keeps specs and owners that differ in anything read apart', () => {
    const base = sharedSpec(pod('p1', 'web:1').spec);
    assert.notEqual(sharedSpec(pod('p2', 'web:2').spec), base);
    // The same names and images in another list are another spec.
    const moved = sharedSpec({
      containers: [{ name: 'init', image: 'busybox:1' }],
      initContainers: [{ name: 'app', image: 'web:1' }],
    });
    assert.notEqual(moved, base);
    assert.deepEqual(sharedSpec({ containers: [{ name: 'x' }] }), { containers: [{ name: 'x' }] });
    assert.notEqual(
      sharedSpec({ containers: [{ name: 'x' }] }),
      sharedSpec({ containers: [{ name: 'x', image: '' }] }),
    );
    // Any character may stand in a declared kind's fields: the key must not confuse these two.
    assert.notEqual(
      sharedSpec({ containers: [{ name: 'a\u0000b', image: 'c' }] }),
      sharedSpec({ containers: [{ name: 'a', image: 'b\u0000c' }] }),
    );
    const o1 = sharedOwners(pod('p1', 'web:1', 'rs-1').metadata.ownerReferences!);
    assert.notEqual(sharedOwners(pod('p1', 'web:1', 'rs-2').metadata.ownerReferences!), o1);
    assert.notEqual(sharedOwners([{ ...o1[0]!, controller: undefined }]), o1);
  });

  it('refuses a write to a shared part instead of changing every Pod that holds it', () => {
    const s = sharedSpec(pod('p1', 'web:9').spec);
    assert.throws(() => {
      (s.containers![0] as { image?: string }).image = 'evil:1';
    }, TypeError);
    assert.equal(s.containers![0]!.image, 'web:9');
  });
});
