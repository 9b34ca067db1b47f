// The effectful half of the reconciler. It applies the current apply wave and deletes the
// current delete wave of an inventory against the API server, with the ownership rules:
//   - every object gets the owner label (the owner's UID) and owner annotation, plus a digest
//     annotation of its desired manifest (drift detection);
//   - an object that already exists without our owner label is a name collision: reported,
//     never overwritten, and dropped from the inventory (so it is never deleted either);
//   - the label and annotations can be copied by anyone allowed to create objects in the
//     namespace, so an item records the UID of the object we created, and an existing object
//     of a kind that records UIDs is ours only with that UID (anything else is a collision,
//     never used);
//   - nothing without our owner label is ever deleted: a DELETE carries the UID we saw
//     carrying our label as a precondition.
import { createHash } from 'node:crypto';
import { isAlreadyExists, isConflict, isNotFound, type KubeRest } from '../kube/rest.js';
import {
  dropItem,
  itemKey,
  markAdopted,
  markApplied,
  markDeleting,
  markDrifted,
  nextApplyWave,
  recordUids,
  nextDeleteWave,
  type Inventory,
  type InventoryItem,
  type ObjectRef,
} from './items.js';
import { forEachConcurrent } from '../concurrency.js';
import { canonical, sameAsCreated } from './same-content.js';
import { collectionPath, objectPath } from '../kube/resources.js';

export const OWNER_LABEL = 'imageinventory.dev/owner';
export const OWNER_ANNOTATION = 'imageinventory.dev/owner';
export const DIGEST_ANNOTATION = 'imageinventory.dev/digest';

export interface Owner {
  /** Owner UID: the label value, so objects of two owners with one name never mix. */
  uid: string;
  /** Human-readable owner, e.g. `erase.imageinventory.dev/ImageJob/imagelist-3-ab12c`. */
  description: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    creationTimestamp?: string;
  };
  [k: string]: unknown;
}

// Paths come from the kind registry (kube/resources.ts): a kind the registry does not declare is an
// error there, not a guessed plural that 404s later.
export { collectionPath, objectPath };

/** 16 hex digits (64 bits) of SHA-256: plenty to detect drift, compact in the inventory. */
export const manifestDigest = (manifest: unknown): string =>
  createHash('sha256').update(canonical(manifest)).digest('hex').slice(0, 16);

/** The manifest with ownership and digest stamped in. */
export function stamp(manifest: KubeObject, owner: Owner, digest: string): KubeObject {
  const md = manifest.metadata ?? {};
  return {
    ...manifest,
    metadata: {
      ...md,
      labels: { ...md.labels, [OWNER_LABEL]: owner.uid },
      annotations: { ...md.annotations, [OWNER_ANNOTATION]: owner.description, [DIGEST_ANNOTATION]: digest },
    },
  };
}

export const isOwnedBy = (obj: KubeObject | undefined, owner: Owner): boolean =>
  obj?.metadata?.labels?.[OWNER_LABEL] === owner.uid;

/**
 * Kinds whose existing objects are adopted on our owner label and digest alone, without a
 * recorded UID (default: Pods; see ApplyOptions.labelTrustedKinds).
 */
export const DEFAULT_LABEL_TRUSTED = new Set(['Pod']);

/**
 * Whether `live` is the object this item stands for: our owner label, and for kinds that record
 * UIDs, the UID we recorded when we created it. An item of such a kind that never recorded one
 * but was applied (lastAppliedAt) predates UID recording: the label decides, as it did then.
 */
export function provenOwned(
  item: InventoryItem,
  live: KubeObject | undefined,
  owner: Owner,
  labelTrusted: ReadonlySet<string> = DEFAULT_LABEL_TRUSTED,
): boolean {
  if (!isOwnedBy(live, owner)) return false;
  if (labelTrusted.has(item.kind)) return true;
  if (item.uid) return live?.metadata?.uid === item.uid;
  return item.lastAppliedAt !== undefined;
}

/** Who holds a name we wanted: the foreign owner, or our label without our UID. */
const holderOf = (live: KubeObject, owner: Owner): string =>
  isOwnedBy(live, owner)
    ? 'an object that carries our owner label but was not created by this controller (its UID is not the recorded one)'
    : (live.metadata?.annotations?.[OWNER_ANNOTATION] ?? 'unmanaged');

export interface Collision {
  ref: ObjectRef;
  /** Who holds the name: the owner annotation of the foreign object, or "unmanaged". */
  holder: string;
}

/**
 * What drift means for a Pod. A Pod's spec is immutable, so a drifted Pod can only be replaced
 * (deleted and created again), and a Pod is one execution, not a desired state: once it has
 * started, the Pod IS the work (a worker that ran, or is running, its removal). So:
 *   - a Pod with our owner label that has not started yet (phase Pending, or none, and no
 *     startTime: no kubelet has taken it up) and whose digest differs is replaced, and the
 *     DELETE carries the resourceVersion we looked at as a precondition, so a kubelet starting
 *     it in between makes the DELETE fail (Conflict) and the next pass sees it started;
 *   - a Pod that has started, is running or has finished is never deleted or re-created for
 *     drift: it is adopted as it is, and its item records the digest it actually runs
 *     (the live annotation), so the inventory describes the live object and later drift checks
 *     do not flag it again. Re-creating a finished worker would rerun its removal.
 * The same holds for any object whose replacement would redo finished work: see `replaceable`.
 */
export function podStarted(live: KubeObject): boolean {
  const st = (live as { status?: { phase?: string; startTime?: string } }).status;
  return (st?.phase !== undefined && st.phase !== 'Pending') || st?.startTime !== undefined;
}

/** Whether a live object of an immutable kind with a different digest may be replaced. */
export const replaceable = (item: ObjectRef, live: KubeObject): boolean =>
  !(item.group === '' && item.kind === 'Pod' && podStarted(live));

export interface ApplyResult {
  inventory: InventoryItem[];
  /** Items whose names are held by foreign objects; already dropped from the inventory. */
  collisions: Collision[];
  /** Items that were found drifted (replaced, updated, or kept: see `kept`). */
  drifted: string[];
  /**
   * Drifted items whose live object may not be replaced (a started Pod): adopted as they are,
   * with the live digest recorded in the inventory.
   */
  kept: string[];
  /** Per-item errors (the items stay pending and are retried next reconcile). */
  errors: { key: string; error: Error }[];
}

export interface ApplyOptions {
  /** Builds the desired manifest for an item (without ownership stamps). */
  manifest(item: InventoryItem): KubeObject;
  owner: Owner;
  now?: () => Date;
  /** Requests in flight at once. Default 16. */
  concurrency?: number;
  /** Kinds that cannot be updated in place (replaced by delete + create on drift). */
  immutableKinds?: ReadonlySet<string>;
  /** At most this many items per call, so progress is persisted in chunks. Default: the whole wave. */
  limit?: number;
  /** Only these items of the wave (default: all); the others wait for a later call. */
  select?: (item: InventoryItem) => boolean;
  /**
   * Kinds adopted on owner label and digest without a recorded UID (default: Pod). Every other
   * kind records the UID of the object created and is never adopted without it. A worker Pod is
   * label-trusted because whoever can create Pods in the workers' namespace can run anything
   * there already, and a restarted controller must not run a node's worker twice.
   */
  labelTrustedKinds?: ReadonlySet<string>;
}

/**
 * Applies the next apply wave of `inv` (see nextApplyWave). Creating items are created (or
 * adopted if an object with our owner label and the same digest exists); Updating items are
 * updated in place (or deleted, to be created again next time, for immutable kinds; a started
 * Pod is never replaced, see podStarted). Returns
 * the new inventory; call again (next reconcile) for the following wave.
 */
export async function applyWave(rest: KubeRest, inv: Inventory, opts: ApplyOptions): Promise<ApplyResult> {
  const res: ApplyResult = { inventory: [...inv], collisions: [], drifted: [], kept: [], errors: [] };
  const wave = nextApplyWave(inv);
  if (!wave) return res;
  const now = opts.now ?? (() => new Date());
  const immutable = opts.immutableKinds ?? new Set(['Pod', 'ConfigMap']);
  let cur = res.inventory;
  const applied: string[] = [];
  const dropped: string[] = [];
  const drifted: string[] = [];
  const kept = new Map<string, string>();
  const uids = new Map<string, string>();
  const labelTrusted = opts.labelTrustedKinds ?? DEFAULT_LABEL_TRUSTED;
  const record = (key: string, kind: string, obj: KubeObject | undefined) => {
    if (!labelTrusted.has(kind) && obj?.metadata?.uid) uids.set(key, obj.metadata.uid);
  };
  const chosen = opts.select ? wave.items.filter(opts.select) : wave.items;
  const items = opts.limit ? chosen.slice(0, opts.limit) : chosen;
  await forEachConcurrent(items, opts.concurrency ?? 16, async (item) => {
    const key = itemKey(item);
    const body = stamp(opts.manifest(item), opts.owner, item.digest);
    const create = async (): Promise<boolean> => {
      try {
        record(key, item.kind, await rest.request<KubeObject>('POST', collectionPath(item), { body }));
        applied.push(key);
        return true;
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        return false;
      }
    };
    try {
      if (item.phase !== 'Updating' && (await create())) return;
      let live: KubeObject;
      try {
        live = await rest.get<KubeObject>(objectPath(item));
      } catch (e) {
        // Updating and gone (replaced: deleted on an earlier pass, or deleted by someone):
        // create it. A Creating item that was there a moment ago is retried next pass.
        if (isNotFound(e) && item.phase === 'Updating') {
          await create();
          return;
        }
        throw e;
      }
      if (!provenOwned(item, live, opts.owner, labelTrusted)) {
        if (isOwnedBy(live, opts.owner) && (await sameAsCreated(rest, collectionPath(item), live, body))) {
          // Ours, created before a crash took the UID with it (see same-content.ts): adopt.
          record(key, item.kind, live);
          applied.push(key);
          return;
        }
        res.collisions.push({ ref: item, holder: holderOf(live, opts.owner) });
        dropped.push(key);
        return;
      }
      if (live.metadata?.annotations?.[DIGEST_ANNOTATION] === item.digest) {
        applied.push(key); // ours already (created before a restart): adopt
        return;
      }
      drifted.push(key);
      if (immutable.has(item.kind)) {
        if (!replaceable(item, live)) {
          // A started Pod: never replaced (see podStarted); adopted with the digest it runs.
          kept.set(key, live.metadata?.annotations?.[DIGEST_ANNOTATION] || item.digest);
          return;
        }
        // Replace: delete now (guarded by UID and by the resourceVersion we judged), create on
        // the next pass.
        await rest.request('DELETE', objectPath(item), {
          body: {
            kind: 'DeleteOptions',
            apiVersion: 'v1',
            preconditions: { uid: live.metadata?.uid, resourceVersion: live.metadata?.resourceVersion },
          },
        });
        return;
      }
      const updated = await rest.request<KubeObject>('PUT', objectPath(item), {
        body: { ...body, metadata: { ...body.metadata, resourceVersion: live.metadata?.resourceVersion } },
      });
      record(key, item.kind, updated);
      applied.push(key);
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return; // changed under us: next pass sees the new state
      res.errors.push({ key, error: e as Error });
    }
  });
  cur = markApplied(cur, applied, now());
  cur = recordUids(cur, uids);
  cur = markAdopted(cur, kept, now());
  cur = dropItem(cur, dropped);
  // Replaced items (DELETE sent) keep their pending phase: the next pass creates them. Items
  // updated in place or kept are Ready now and stay so (marking them drifted again would loop).
  res.inventory = cur;
  res.drifted = drifted;
  res.kept = [...kept.keys()];
  return res;
}

/**
 * Checks Ready items against their live objects' digest annotations; drifted ones become
 * Updating (so the next applyWave reapplies them). `live` maps item keys to the listed objects.
 * A started Pod is never drifted (see podStarted): it is left as it is.
 */
export function detectDrift(
  inv: Inventory,
  live: ReadonlyMap<string, KubeObject>,
  owner: Owner,
): InventoryItem[] {
  const drifted: string[] = [];
  for (const item of inv) {
    if (item.phase !== 'Ready') continue;
    const obj = live.get(itemKey(item));
    if (!obj || !provenOwned(item, obj, owner) || !replaceable(item, obj)) continue;
    if (obj.metadata?.annotations?.[DIGEST_ANNOTATION] !== item.digest) drifted.push(itemKey(item));
  }
  return markDrifted(inv, drifted);
}

export interface DeleteResult {
  inventory: InventoryItem[];
  /** Items left alone because the live object is not ours (dropped from the inventory). */
  foreign: Collision[];
  errors: { key: string; error: Error }[];
  /** True when the whole inventory is gone. */
  done: boolean;
}

/**
 * Works on the next delete wave (see nextDeleteWave): objects that are gone (or orphaned, or
 * not ours) are dropped; the others get a DELETE guarded by their UID and become Deleting.
 * Later waves wait until this wave is entirely gone: call again (next reconcile).
 * `live`, when given, maps item keys to listed objects (missing = gone), saving one GET each.
 */
export async function deleteWave(
  rest: KubeRest,
  inv: Inventory,
  opts: {
    owner: Owner;
    live?: ReadonlyMap<string, KubeObject>;
    concurrency?: number;
    labelTrustedKinds?: ReadonlySet<string>;
  },
): Promise<DeleteResult> {
  const res: DeleteResult = { inventory: [...inv], foreign: [], errors: [], done: inv.length === 0 };
  const wave = nextDeleteWave(inv);
  if (!wave) return res;
  const gone: string[] = [];
  const sent: string[] = [];
  await forEachConcurrent(wave.items, opts.concurrency ?? 16, async (item) => {
    const key = itemKey(item);
    try {
      if (item.deletePolicy === 'Orphan') {
        gone.push(key);
        return;
      }
      let live: KubeObject | undefined;
      if (opts.live) live = opts.live.get(key);
      else
        live = await rest
          .get<KubeObject>(objectPath(item))
          .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
      if (!live) {
        gone.push(key);
        return;
      }
      if (!provenOwned(item, live, opts.owner, opts.labelTrustedKinds)) {
        res.foreign.push({ ref: item, holder: holderOf(live, opts.owner) });
        gone.push(key);
        return;
      }
      if (live.metadata?.deletionTimestamp) {
        sent.push(key); // terminating: wait for it to go
        return;
      }
      await rest.request('DELETE', objectPath(item), {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: live.metadata?.uid } },
      });
      sent.push(key);
    } catch (e) {
      if (isNotFound(e)) gone.push(key);
      else if (isConflict(e))
        return; // UID precondition failed: a new object took the name; re-check next pass
      else res.errors.push({ key, error: e as Error });
    }
  });
  res.inventory = dropItem(markDeleting(res.inventory, sent), gone);
  res.done = res.inventory.length === 0;
  return res;
}
