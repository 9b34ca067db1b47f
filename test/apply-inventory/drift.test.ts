// Drift of worker Pods against the real API server (src/core/apply-inventory/objects.ts): a Pod that
// has not started is replaced when its manifest changes; a Pod that has started or finished is
// never deleted or re-created (that would rerun its work), it is kept with the digest it runs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { isNotFound, KubeRest } from '../../src/core/kube/rest.js';
import {
  itemKey,
  markApplied,
  markCompleted,
  markDrifted,
  scheduleApply,
  type DesiredItem,
  type InventoryItem,
} from '../../src/core/apply-inventory/items.js';
import {
  applyWave,
  detectDrift,
  DIGEST_ANNOTATION,
  manifestDigest,
  objectPath,
  type KubeObject,
  type Owner,
} from '../../src/core/apply-inventory/objects.js';
import { adminConfig } from '../support/kube.js';
import { useNamespace } from '../support/suite-hooks.js';

interface Pod extends KubeObject {
  status?: { phase?: string; startTime?: string };
}

describe('reconciler: drift of worker Pods (API server)', function () {
  this.timeout(60_000);
  let rest: KubeRest;
  let ns: string;
  const owner: Owner = { uid: randomUUID(), description: 'test/Drift/d' };

  useNamespace('drift', (n) => (ns = n), { remove: true });
  before(async () => {
    rest = new KubeRest(adminConfig());
  });
  after(async () => {
    rest.close();
  });

  // No nodeName: an unscheduled Pod is deleted at once, no kubelet needed to finalize it.
  const manifest = (name: string, image: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns },
    spec: { restartPolicy: 'Never', containers: [{ name: 'c', image }] },
  });
  const desired = (m: KubeObject): DesiredItem => ({
    group: '',
    version: 'v1',
    kind: 'Pod',
    namespace: ns,
    name: m.metadata!.name!,
    applyOrder: 0,
    deleteOrder: 0,
    deletePolicy: 'Delete',
    digest: manifestDigest(m),
  });
  const get = (name: string) =>
    rest
      .get<Pod>(objectPath({ group: '', version: 'v1', kind: 'Pod', namespace: ns, name }))
      .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
  const setPhase = async (name: string, phase: string) => {
    const cur = (await get(name))!;
    const startTime = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await rest.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
      body: { ...cur, status: { phase, startTime } },
    });
  };
  /** Creates the Pod through applyWave (v1 manifest) and returns the inventory, Ready. */
  const created = async (name: string): Promise<InventoryItem[]> => {
    const m = manifest(name, 'busybox:1');
    const r = await applyWave(rest, scheduleApply([], [desired(m)]), { owner, manifest: () => m });
    assert.deepEqual(r.errors, []);
    assert.equal(r.inventory[0]!.phase, 'Ready');
    return r.inventory;
  };

  it('a Pod that has not started is replaced (deleted, then created) when its manifest changes', async () => {
    const inv0 = await created('pending');
    const uid0 = (await get('pending'))!.metadata!.uid;
    const m2 = manifest('pending', 'busybox:2');
    const d2 = desired(m2);
    let inv = scheduleApply(inv0, [d2]);
    assert.equal(inv[0]!.phase, 'Updating');
    let r = await applyWave(rest, inv, { owner, manifest: () => m2 });
    assert.deepEqual([r.drifted, r.kept, r.errors], [[itemKey(d2)], [], []]);
    inv = r.inventory;
    assert.equal(inv[0]!.phase, 'Updating', 'replaced: created again on the next pass');
    assert.equal(await get('pending'), undefined, 'the old Pod is gone');
    r = await applyWave(rest, inv, { owner, manifest: () => m2 });
    assert.deepEqual(r.errors, []);
    assert.equal(r.inventory[0]!.phase, 'Ready');
    assert.equal(r.inventory[0]!.digest, d2.digest);
    const pod = (await get('pending'))!;
    assert.notEqual(pod.metadata!.uid, uid0);
    assert.equal(pod.metadata!.annotations![DIGEST_ANNOTATION], d2.digest);
  });

  for (const phase of ['Running', 'Succeeded', 'Failed']) {
    it(`a ${phase} Pod is never replaced for drift: kept, with the digest it runs`, async () => {
      const name = `started-${phase.toLowerCase()}`;
      const inv0 = await created(name);
      const d1 = inv0[0]!.digest;
      await setPhase(name, phase);
      const before = (await get(name))!;
      const m2 = manifest(name, 'busybox:2');
      // Both ways in: a re-planned (Updating) item, and a Creating item whose Pod exists already
      // (a restart between creating the Pod and persisting the inventory, with a new manifest).
      for (const inv of [scheduleApply(inv0, [desired(m2)]), scheduleApply([], [desired(m2)])]) {
        const r = await applyWave(rest, inv, { owner, manifest: () => m2 });
        assert.deepEqual([r.kept, r.errors], [[itemKey(desired(m2))], []]);
        assert.equal(r.inventory[0]!.phase, 'Ready');
        assert.equal(r.inventory[0]!.digest, d1, 'records the digest the live Pod runs');
        const after = (await get(name))!;
        assert.equal(after.metadata!.uid, before.metadata!.uid, 'same Pod: never deleted');
        assert.equal(after.metadata!.deletionTimestamp, undefined);
        // And a drift check of the started Pod against a (stale) newer digest does not flag it.
        const stale = [{ ...r.inventory[0]!, digest: desired(m2).digest }];
        assert.deepEqual(detectDrift(stale, new Map([[itemKey(stale[0]!), after]]), owner), stale);
      }
    });
  }

  it('a Completed item stays Completed when the manifest changes: nothing to apply', async () => {
    const inv0 = await created('done');
    await setPhase('done', 'Succeeded');
    const inv = markCompleted(inv0, itemKey(inv0[0]!));
    const next = scheduleApply(inv, [desired(manifest('done', 'busybox:2'))]);
    assert.deepEqual(next, inv);
    const r = await applyWave(rest, next, { owner, manifest: () => manifest('done', 'busybox:2') });
    assert.deepEqual(r.inventory, inv);
    // A Ready, not yet started Pod that drifted is still detected.
    const m = manifest('later', 'busybox:1');
    const ready = markApplied(scheduleApply([], [desired(m)]), itemKey(desired(m)), new Date());
    const live = { ...m, metadata: { ...m.metadata, labels: {}, annotations: { [DIGEST_ANNOTATION]: 'x' } } };
    live.metadata.labels = { 'imageinventory.dev/owner': owner.uid };
    assert.deepEqual(
      detectDrift(ready, new Map([[itemKey(ready[0]!), live]]), owner),
      markDrifted(ready, itemKey(ready[0]!)),
    );
  });
});
