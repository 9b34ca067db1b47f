// Pure transitions of the level-based inventory (src/core/apply-inventory/items.ts): each step
// asserts the exact inventory the call returns.
import assert from 'node:assert/strict';
import {
  dropItem,
  itemKey,
  markAdopted,
  markApplied,
  markCompleted,
  markDeleting,
  markDrifted,
  nextApplyWave,
  nextDeleteWave,
  scheduleApply,
  scheduleDeletion,
  type DesiredItem,
  type InventoryItem,
} from '../../../src/core/apply-inventory/items.js';
import {
  decodeInventory,
  encodeInventory,
  encodeItem,
} from '../../../src/core/apply-inventory/item-lines.js';

const cm: DesiredItem = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  namespace: 'ns',
  name: 'job-images',
  applyOrder: 0,
  deleteOrder: 1,
  deletePolicy: 'Delete',
  digest: 'c1',
};
const tmpl: DesiredItem = { ...cm, kind: 'PodTemplate', name: 'job', digest: 't1' };
const podA: DesiredItem = { ...cm, kind: 'Pod', name: 'job-a', applyOrder: 1, deleteOrder: 0, digest: 'pa' };
const podB: DesiredItem = { ...podA, name: 'job-b', digest: 'pb' };
const T1 = new Date('2026-01-02T03:04:05.678Z');
const T1S = '2026-01-02T03:04:05Z';
const T2 = new Date('2026-01-02T03:05:00Z');
const T2S = '2026-01-02T03:05:00Z';

const k = itemKey;
const item = (
  d: DesiredItem,
  phase: InventoryItem['phase'],
  extra: Partial<InventoryItem> = {},
): InventoryItem => ({
  ...d,
  phase,
  ...extra,
});

describe('reconciler inventory (pure transitions)', () => {
  it('walks one object set through write-ahead apply, completion and ordered deletion', () => {
    // 1. Write-ahead: everything is recorded as Creating, in canonical delete order
    //    (delete wave 0: the Pods; wave 1: PodTemplate before ConfigMap).
    let inv = scheduleApply([], [cm, tmpl, podB, podA]);
    assert.deepEqual(inv, [
      item(podA, 'Creating'),
      item(podB, 'Creating'),
      item(tmpl, 'Creating'),
      item(cm, 'Creating'),
    ]);

    // 2. Apply wave 0 first (ConfigMap, PodTemplate: apply order is the reverse kind rank).
    assert.deepEqual(nextApplyWave(inv), { order: 0, items: [item(cm, 'Creating'), item(tmpl, 'Creating')] });

    // 3. Both created.
    inv = markApplied(inv, [k(cm), k(tmpl)], T1);
    assert.deepEqual(inv, [
      item(podA, 'Creating'),
      item(podB, 'Creating'),
      item(tmpl, 'Ready', { lastAppliedAt: T1S }),
      item(cm, 'Ready', { lastAppliedAt: T1S }),
    ]);

    // 4. Wave 1 is next: the Pods.
    assert.deepEqual(nextApplyWave(inv), {
      order: 1,
      items: [item(podB, 'Creating'), item(podA, 'Creating')],
    });
    inv = markApplied(inv, k(podA), T2);
    inv = markApplied(inv, k(podB), T2);
    assert.deepEqual(inv, [
      item(podA, 'Ready', { lastAppliedAt: T2S }),
      item(podB, 'Ready', { lastAppliedAt: T2S }),
      item(tmpl, 'Ready', { lastAppliedAt: T1S }),
      item(cm, 'Ready', { lastAppliedAt: T1S }),
    ]);
    assert.equal(nextApplyWave(inv), undefined);

    // 5. The same desired set again is a no-op (level-based).
    assert.deepEqual(scheduleApply(inv, [cm, tmpl, podA, podB]), inv);

    // 6. Pod a finishes.
    inv = markCompleted(inv, k(podA));
    assert.deepEqual(inv[0], item(podA, 'Completed', { lastAppliedAt: T2S }));
    assert.deepEqual(markCompleted(inv, k(podA)), inv, 'completing twice is a no-op');

    // 7. After deleteAfter: everything is scheduled (empty digest), in delete order.
    inv = scheduleDeletion(inv);
    assert.deepEqual(inv, [
      item(podA, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T2S }),
      item(podB, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T2S }),
      item(tmpl, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T1S }),
      item(cm, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T1S }),
    ]);

    // 8. Delete wave 0 (Pods) first; the ConfigMap and PodTemplate wait.
    assert.deepEqual(
      nextDeleteWave(inv)?.items.map((i) => i.name),
      ['job-a', 'job-b'],
    );
    inv = markDeleting(inv, [k(podA), k(podB)]);
    assert.deepEqual(
      inv.map((i) => [i.name, i.phase]),
      [
        ['job-a', 'Deleting'],
        ['job-b', 'Deleting'],
        ['job', 'ScheduledForDeletion'],
        ['job-images', 'ScheduledForDeletion'],
      ],
    );
    inv = dropItem(inv, k(podA));
    assert.deepEqual(
      nextDeleteWave(inv)?.items.map((i) => i.name),
      ['job-b'],
      'wave 1 waits for all of wave 0',
    );
    inv = dropItem(inv, k(podB));

    // 9. Wave 1: PodTemplate before ConfigMap.
    assert.deepEqual(nextDeleteWave(inv), {
      order: 1,
      items: [
        item(tmpl, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T1S }),
        item(cm, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T1S }),
      ],
    });
    inv = dropItem(markDeleting(inv, [k(tmpl), k(cm)]), [k(tmpl), k(cm)]);
    assert.deepEqual(inv, []);
    assert.equal(nextDeleteWave(inv), undefined);
  });

  it('marks a changed digest Updating, and a desired set without an item schedules it for deletion', () => {
    let inv = markApplied(scheduleApply([], [cm, tmpl]), [k(cm), k(tmpl)], T1);
    inv = scheduleApply(inv, [cm, { ...tmpl, digest: 't2' }]);
    assert.deepEqual(inv, [
      item(tmpl, 'Updating', { digest: 't2', lastAppliedAt: T1S }),
      item(cm, 'Ready', { lastAppliedAt: T1S }),
    ]);
    inv = markApplied(inv, k(tmpl), T2);
    assert.deepEqual(inv[0], item(tmpl, 'Ready', { digest: 't2', lastAppliedAt: T2S }));

    inv = scheduleApply(inv, [cm]);
    assert.deepEqual(inv, [
      item(tmpl, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T2S }),
      item(cm, 'Ready', { lastAppliedAt: T1S }),
    ]);
    // Re-desiring an object that is being deleted leaves the deletion alone.
    assert.deepEqual(scheduleApply(inv, [cm, tmpl]), inv);
  });

  it('a drifted Ready item becomes Updating; scheduleDeletion of some keys leaves the rest', () => {
    let inv = markApplied(scheduleApply([], [cm, podA]), [k(cm), k(podA)], T1);
    inv = markDrifted(inv, k(cm));
    assert.deepEqual(inv, [
      item(podA, 'Ready', { lastAppliedAt: T1S }),
      item(cm, 'Updating', { lastAppliedAt: T1S }),
    ]);
    inv = scheduleDeletion(inv, [k(podA)]);
    assert.deepEqual(inv, [
      item(podA, 'ScheduledForDeletion', { digest: '', lastAppliedAt: T1S }),
      item(cm, 'Updating', { lastAppliedAt: T1S }),
    ]);
    // Apply ignores items being deleted.
    assert.deepEqual(
      nextApplyWave(inv)?.items.map((i) => i.name),
      ['job-images'],
    );
  });

  it('a finished one-shot item is never reapplied; a kept object is adopted with its live digest', () => {
    // podA ran and Completed; podB is Creating. Then the desired digests of both change.
    let inv = markCompleted(markApplied(scheduleApply([], [podA, podB]), k(podA), T1), k(podA));
    inv = scheduleApply(inv, [
      { ...podA, digest: 'pa2' },
      { ...podB, digest: 'pb2' },
    ]);
    assert.deepEqual(inv, [
      item(podA, 'Completed', { lastAppliedAt: T1S }), // keeps the digest it ran with
      item(podB, 'Creating', { digest: 'pb2' }),
    ]);
    // podB turns out to exist and to have started with digest pb: kept, recorded as it is.
    inv = markAdopted(inv, new Map([[k(podB), 'pb']]), T2);
    assert.deepEqual(inv, [
      item(podA, 'Completed', { lastAppliedAt: T1S }),
      item(podB, 'Ready', { lastAppliedAt: T2S }),
    ]);
    assert.equal(nextApplyWave(inv), undefined);
    assert.throws(() => markAdopted(inv, new Map([[k(podB), 'pb']]), T2), /Ready, not being applied/);
    const fresh = scheduleApply([], [podA]);
    assert.throws(() => markAdopted(fresh, new Map([[k(podA), '']]), T2), /empty digest/);
  });

  it('rejects impossible transitions and bad input', () => {
    const inv = scheduleApply([], [cm]);
    assert.throws(() => markCompleted(inv, k(cm)), /Creating, only Ready items complete/);
    assert.throws(() => markDeleting(inv, k(cm)), /not scheduled for deletion/);
    assert.throws(() => dropItem(inv, 'x'), /no item x/);
    assert.throws(() => scheduleApply([], [cm, cm]), /desired twice/);
    assert.throws(() => scheduleApply([], [{ ...cm, digest: '' }]), /empty digest/);
    assert.throws(() => scheduleApply([], [{ ...cm, name: 'a|b' }]), /'\|' is not allowed/);
  });

  it('encodes compactly and round-trips', () => {
    let inv = markApplied(
      scheduleApply([], [cm, tmpl, podA, { ...podB, deletePolicy: 'Orphan' }]),
      k(podA),
      T1,
    );
    inv = scheduleDeletion(inv, [k(tmpl)]);
    const lines = encodeInventory(inv);
    assert.deepEqual(lines, [
      '/v1/Pod|ns|job-a|1|0|D|pa|Ready|1767323045',
      '^|^|job-b|1|0|O|pb|Creating|',
      '/v1/PodTemplate|^|job|0|1|D||ScheduledForDeletion|',
      '/v1/ConfigMap|^|job-images|0|1|D|c1|Creating|',
    ]);
    assert.deepEqual(decodeInventory(lines), inv);
    // Lines written before the `^` marks read as they are; a mark on the first line is malformed.
    assert.deepEqual(decodeInventory(lines.map((_, i) => encodeItem(decodeInventory(lines)[i]!))), inv);
    assert.throws(() => decodeInventory(['^|ns|a|1|0|D|x|Ready|']), /malformed item/);
    // A job's Pods share their names' start.
    const pods = encodeInventory(
      ['imagelist-12-abcde-0123456789', 'imagelist-12-abcde-1123456789'].map((name) =>
        item({ ...podA, name }, 'Completed', { lastAppliedAt: T1S }),
      ),
    );
    assert.equal(pods[1], '^|^|^19:1123456789|1|0|D|pa|^|^');
    assert.deepEqual(
      decodeInventory(pods).map((i) => i.name),
      ['imagelist-12-abcde-0123456789', 'imagelist-12-abcde-1123456789'],
    );
    assert.deepEqual(decodeInventory(undefined), []);
    assert.throws(() => decodeInventory(['/v1/Pod|ns']), /malformed item/);
    assert.throws(() => decodeInventory(['/v1/Pod|ns|a|1|0|D|x|Bogus|']), /unknown phase/);
    // Phases of component-operator-runtime's purge path are never produced here, so never decoded.
    for (const p of ['ScheduledForApplication', 'ScheduledForCompletion', 'Completing'])
      assert.throws(() => decodeInventory([`/v1/Pod|ns|a|1|0|D|x|${p}|`]), /unknown phase/);
    // A 5,000-node job's Pod line stays small.
    const long = encodeItem(
      item(
        {
          ...podA,
          namespace: 'inv-system',
          name: 'imagelist-12-abcde-0123456789',
          digest: '0123456789abcdef',
        },
        'Completed',
        { lastAppliedAt: T1S },
      ),
    );
    assert.ok(long.length < 100, `${long.length} bytes`);
  });
});
