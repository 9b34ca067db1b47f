// The level-based inventory: the reconciler's memory of every dependent object it manages,
// persisted in the owner's status between reconciles (after the inventory of
// component-operator-runtime).
//
// Every function here is pure: it takes an inventory and returns a new one (never mutating the
// argument), always sorted into the canonical delete order, so a caller can persist the result
// as is and tests can assert the exact inventory after each step.
//
// Lifecycle of one item:
//   apply:   (new) Creating ──created/adopted──▶ Ready ──finished──▶ Completed
//            drift: Ready ──digest differs──▶ Updating ──reapplied (or kept: markAdopted)──▶ Ready
//            (a Completed item never drifts: finished one-shot work is not redone)
//   delete:  any ──scheduleDeletion──▶ ScheduledForDeletion ──delete sent──▶ Deleting ──gone──▶ (dropped)
// Write-ahead: an item is added (Creating) and persisted BEFORE its object is created, so a
// process killed between the two finds the item on restart and creates (or adopts) the object
// instead of forgetting it; deletion likewise is persisted (ScheduledForDeletion) before the
// first DELETE is sent.
import { rfc3339 } from '../timestamps.js';

// Only the phases this reconciler produces. component-operator-runtime also has
// ScheduledForApplication, ScheduledForCompletion and Completing (its purge path); here an item
// is written ahead as Creating, and a worker Pod completes by itself (Ready → Completed), so those
// phases would be decoded but never produced. An inventory naming them is rejected on decode.
export type Phase = 'Creating' | 'Updating' | 'Ready' | 'Completed' | 'ScheduledForDeletion' | 'Deleting';

export const PHASES: readonly Phase[] = [
  'Creating',
  'Updating',
  'Ready',
  'Completed',
  'ScheduledForDeletion',
  'Deleting',
];

/** Delete: the object is deleted when it leaves the inventory. Orphan: it is left in place. */
export type DeletePolicy = 'Delete' | 'Orphan';

export interface ObjectRef {
  group: string;
  version: string;
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
}

export interface DesiredItem extends ObjectRef {
  applyOrder: number;
  deleteOrder: number;
  deletePolicy: DeletePolicy;
  /** Digest of the desired manifest; never empty. */
  digest: string;
}

export interface InventoryItem extends DesiredItem {
  /** '' once the item is scheduled for deletion. */
  digest: string;
  phase: Phase;
  /** RFC 3339 time of the last successful create/update; absent until then. */
  lastAppliedAt?: string;
  /**
   * UID of the object this reconciler created (or updated), as the API server returned it. An
   * existing object is ours only with this UID: the owner label and digest annotation can be
   * copied by anyone who may create objects in the namespace (see objects.ts applyWave).
   */
  uid?: string;
}

export type Inventory = readonly InventoryItem[];

/** Identity of an object: the version is not part of it (one object, several versions). */
export const itemKey = (r: ObjectRef): string => `${r.group}/${r.kind}/${r.namespace}/${r.name}`;

export const isDeletionPhase = (p: Phase): boolean => p === 'ScheduledForDeletion' || p === 'Deleting';
export const isApplyPending = (p: Phase): boolean => p === 'Creating' || p === 'Updating';

// Canonical kind rank for deletion within one delete wave: workloads first (they use the rest),
// then templates, configuration, identities and RBAC, then extension types, namespaces last.
// Apply uses the reverse. Unknown kinds sit between workloads and templates.
const DELETE_RANK: Record<string, number> = {
  '/Pod': 0,
  'batch/Job': 1,
  'batch/CronJob': 1,
  'apps/ReplicaSet': 1,
  'apps/Deployment': 1,
  'apps/StatefulSet': 1,
  'apps/DaemonSet': 1,
  '/PodTemplate': 3,
  '/Service': 4,
  '/ConfigMap': 5,
  '/Secret': 5,
  '/ServiceAccount': 6,
  'rbac.authorization.k8s.io/RoleBinding': 7,
  'rbac.authorization.k8s.io/Role': 8,
  'rbac.authorization.k8s.io/ClusterRoleBinding': 7,
  'rbac.authorization.k8s.io/ClusterRole': 8,
  'apiextensions.k8s.io/CustomResourceDefinition': 9,
  'apiregistration.k8s.io/APIService': 9,
  '/Namespace': 10,
};
const UNKNOWN_RANK = 2;

export const deleteRank = (r: { group: string; kind: string }): number =>
  DELETE_RANK[`${r.group}/${r.kind}`] ?? UNKNOWN_RANK;

const cmp = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

/** Canonical delete order: delete wave, then kind rank, then namespace, name, group. */
export function compareForDelete(a: InventoryItem, b: InventoryItem): number {
  return (
    cmp(a.deleteOrder, b.deleteOrder) ||
    cmp(deleteRank(a), deleteRank(b)) ||
    cmp(a.namespace, b.namespace) ||
    cmp(a.name, b.name) ||
    cmp(a.group, b.group) ||
    cmp(a.kind, b.kind)
  );
}

export function sortInventory(inv: Inventory): InventoryItem[] {
  return [...inv].sort(compareForDelete);
}

function checkDesired(d: DesiredItem): void {
  if (!d.name || !d.kind || !d.version) throw new Error(`inventory: incomplete object ref ${itemKey(d)}`);
  if (!d.digest) throw new Error(`inventory: desired object ${itemKey(d)} has an empty digest`);
  for (const f of [d.group, d.version, d.kind, d.namespace, d.name, d.digest]) {
    if (f.includes('|')) throw new Error(`inventory: '|' is not allowed in ${itemKey(d)}`);
  }
}

/**
 * Records the desired objects (write-ahead): a new object becomes a Creating item; an item whose
 * digest changed becomes Updating with the new digest (unless it is Completed: finished
 * one-shot work is never redone); an unchanged one is kept as is. Items not
 * desired any more are scheduled for deletion. An item already being deleted is left alone (it
 * is re-added once it is gone).
 */
export function scheduleApply(inv: Inventory, desired: readonly DesiredItem[]): InventoryItem[] {
  const want = new Map<string, DesiredItem>();
  for (const d of desired) {
    checkDesired(d);
    const k = itemKey(d);
    if (want.has(k)) throw new Error(`inventory: object ${k} is desired twice`);
    want.set(k, d);
  }
  const out: InventoryItem[] = [];
  const seen = new Set<string>();
  for (const item of inv) {
    const k = itemKey(item);
    seen.add(k);
    const d = want.get(k);
    if (isDeletionPhase(item.phase)) {
      out.push(item);
    } else if (!d) {
      out.push({ ...item, digest: '', phase: 'ScheduledForDeletion' });
    } else if (d.digest === item.digest || item.phase === 'Completed') {
      // Unchanged, or a one-shot object (a worker Pod) that has finished its work: a finished
      // run is never applied again for a changed manifest (that would redo the work); it
      // keeps the digest it ran with.
      out.push({
        ...item,
        version: d.version,
        applyOrder: d.applyOrder,
        deleteOrder: d.deleteOrder,
        deletePolicy: d.deletePolicy,
      });
    } else {
      out.push({ ...item, ...pickDesired(d), phase: item.phase === 'Creating' ? 'Creating' : 'Updating' });
    }
  }
  for (const [k, d] of want) {
    if (!seen.has(k)) out.push({ ...pickDesired(d), phase: 'Creating' });
  }
  return sortInventory(out);
}

const pickDesired = (d: DesiredItem): DesiredItem => ({
  group: d.group,
  version: d.version,
  kind: d.kind,
  namespace: d.namespace,
  name: d.name,
  applyOrder: d.applyOrder,
  deleteOrder: d.deleteOrder,
  deletePolicy: d.deletePolicy,
  digest: d.digest,
});

/** One key or several: batch transitions sort once, which matters at thousands of items. */
export type Keys = string | Iterable<string>;

function update(
  inv: Inventory,
  keys: Keys,
  fn: (item: InventoryItem, key: string) => InventoryItem | undefined,
): InventoryItem[] {
  const want = new Set(typeof keys === 'string' ? [keys] : keys);
  if (want.size === 0) return [...inv];
  const out: InventoryItem[] = [];
  const found = new Set<string>();
  for (const item of inv) {
    const key = itemKey(item);
    if (!want.has(key)) {
      out.push(item);
      continue;
    }
    found.add(key);
    const next = fn(item, key);
    if (next) out.push(next);
  }
  for (const k of want) if (!found.has(k)) throw new Error(`inventory: no item ${k}`);
  return sortInventory(out);
}

/** The object was created, adopted or updated: Ready, stamped with `now`. */
export function markApplied(inv: Inventory, keys: Keys, now: Date): InventoryItem[] {
  return update(inv, keys, (item, key) => {
    if (!isApplyPending(item.phase)) throw new Error(`inventory: ${key} is ${item.phase}, not being applied`);
    return { ...item, phase: 'Ready', lastAppliedAt: rfc3339(now) };
  });
}

/** Records the UIDs of objects just created or updated (item key → UID); others unchanged. */
export function recordUids(inv: Inventory, uids: ReadonlyMap<string, string>): InventoryItem[] {
  return update(inv, uids.keys(), (item, key) => {
    const uid = uids.get(key)!;
    return uid ? { ...item, uid } : item;
  });
}

/**
 * The live object is kept as it is although its digest differs from the desired one (it may not
 * be replaced, e.g. a worker Pod that has started): Ready, recording the digest it actually
 * has, stamped with `now`. `digests` maps item keys to the live digests.
 */
export function markAdopted(
  inv: Inventory,
  digests: ReadonlyMap<string, string>,
  now: Date,
): InventoryItem[] {
  return update(inv, digests.keys(), (item, key) => {
    if (!isApplyPending(item.phase)) throw new Error(`inventory: ${key} is ${item.phase}, not being applied`);
    const digest = digests.get(key)!;
    if (!digest) throw new Error(`inventory: adopting ${key} with an empty digest`);
    return { ...item, digest, phase: 'Ready', lastAppliedAt: rfc3339(now) };
  });
}

/** The live object no longer matches its digest: apply it again. */
export function markDrifted(inv: Inventory, keys: Keys): InventoryItem[] {
  return update(inv, keys, (item, key) => {
    if (item.phase !== 'Ready')
      throw new Error(`inventory: ${key} is ${item.phase}, drift applies to Ready items`);
    return { ...item, phase: 'Updating' };
  });
}

/** A one-shot object (a worker Pod) has finished its work; the record stays. */
export function markCompleted(inv: Inventory, keys: Keys): InventoryItem[] {
  return update(inv, keys, (item, key) => {
    if (item.phase === 'Completed') return item;
    if (item.phase !== 'Ready')
      throw new Error(`inventory: ${key} is ${item.phase}, only Ready items complete`);
    return { ...item, phase: 'Completed' };
  });
}

/**
 * Schedules the given items (all items when `keys` is undefined) for deletion: phase
 * ScheduledForDeletion and an empty digest. Items already in a deletion phase are unchanged.
 */
export function scheduleDeletion(inv: Inventory, keys?: Keys): InventoryItem[] {
  const set = keys === undefined ? undefined : new Set(typeof keys === 'string' ? [keys] : keys);
  if (set) {
    const known = new Set(inv.map(itemKey));
    for (const k of set) if (!known.has(k)) throw new Error(`inventory: no item ${k}`);
  }
  return sortInventory(
    inv.map((item) =>
      (set && !set.has(itemKey(item))) || isDeletionPhase(item.phase)
        ? item
        : { ...item, digest: '', phase: 'ScheduledForDeletion' as const },
    ),
  );
}

/** A DELETE was sent (or the object is terminating). */
export function markDeleting(inv: Inventory, keys: Keys): InventoryItem[] {
  return update(inv, keys, (item, key) => {
    if (!isDeletionPhase(item.phase))
      throw new Error(`inventory: ${key} is ${item.phase}, not scheduled for deletion`);
    return item.phase === 'Deleting' ? item : { ...item, phase: 'Deleting' };
  });
}

/** The object is gone (or orphaned, or turned out not to be ours): forget it. */
export function dropItem(inv: Inventory, keys: Keys): InventoryItem[] {
  return update(inv, keys, () => undefined);
}

/**
 * The items of the first apply wave that is not settled, if every earlier wave is settled:
 * objects of wave N are applied only once every object of the waves before N is Ready (or
 * Completed). Returns [] when nothing is to be applied. Items in deletion are not considered.
 */
export function nextApplyWave(inv: Inventory): { order: number; items: InventoryItem[] } | undefined {
  const live = inv.filter((i) => !isDeletionPhase(i.phase));
  const pending = live.filter((i) => isApplyPending(i.phase));
  if (pending.length === 0) return undefined;
  const order = Math.min(...pending.map((i) => i.applyOrder));
  const items = pending.filter((i) => i.applyOrder === order).sort((a, b) => -compareForDelete(a, b));
  return { order, items };
}

/**
 * The items of the first delete wave (lowest deleteOrder) among items being deleted, in
 * canonical order. Later waves wait until this one is gone.
 */
export function nextDeleteWave(inv: Inventory): { order: number; items: InventoryItem[] } | undefined {
  const doomed = inv.filter((i) => isDeletionPhase(i.phase));
  if (doomed.length === 0) return undefined;
  const order = Math.min(...doomed.map((i) => i.deleteOrder));
  return { order, items: sortInventory(doomed.filter((i) => i.deleteOrder === order)) };
}
