// Which cache events can change a namespace's inventory, i.e. which ones enqueue `namespace/_`.
//
//   - Pods: a change to containers, init containers, ephemeral containers, ownerReferences or
//     deletionTimestamp (plus create and delete). Compared field by field on the stripped
//     objects, not through metadata.generation, which Pods only carry meaningfully on newer
//     clusters. Status-only updates (the vast majority of Pod traffic) never enqueue.
//   - Workloads: a metadata.generation change (plus create and delete), like controller-runtime's
//     GenerationChangedPredicate. Status and scale-subresource noise never enqueue. A change of
//     deletionTimestamp also counts: objects being deleted contribute nothing, and we do not
//     want to rely on the API server bumping generation for it.
//   - Owner kinds (ReplicaSets, metadata only): a change of ownerReferences or deletionTimestamp
//     (plus create and delete): whether a Deployment controls a ReplicaSet decides what its Pods
//     credit.
//   - Images: create and delete only; updates (including our own status writes) are ignored,
//     so the daemon never loops on its own writes.
//
// And how soon (the work queue's priority, ./controller.ts): an event that can bring an image the
// namespace has no Image for yet (a Pod with such an image, any workload spec change, an Image
// removed by someone else) is served before one that can only remove an Image or refresh
// status.users (a Pod deleted, a Pod whose images all have Images). A missing Image is what
// could let an erase treat an image in use as unused; an Image that lingers a moment longer only
// keeps an image longer (fail closed). Nothing is dropped: every event still gets its rebuild.
import type { StrippedContainer, StrippedPod } from '../inventory/strip.js';
import { normalizeRef } from '../refs/normalize.js';

interface Meta {
  generation?: number;
  deletionTimestamp?: string;
  ownerReferences?: { kind: string; name: string; uid?: string; apiVersion?: string; controller?: boolean }[];
}

function sameContainers(a: StrippedContainer[] | undefined, b: StrippedContainer[] | undefined): boolean {
  if ((a?.length ?? 0) !== (b?.length ?? 0)) return false;
  if (!a || !b) return true;
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.name !== b[i]!.name || a[i]!.image !== b[i]!.image) return false;
  }
  return true;
}

function sameOwners(a: Meta['ownerReferences'], b: Meta['ownerReferences']): boolean {
  if ((a?.length ?? 0) !== (b?.length ?? 0)) return false;
  if (!a || !b) return true;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.kind !== y.kind || x.name !== y.name || (x.uid ?? '') !== (y.uid ?? '')) return false;
    if ((x.apiVersion ?? '') !== (y.apiVersion ?? '') || Boolean(x.controller) !== Boolean(y.controller))
      return false;
  }
  return true;
}

export function podChanged(a: StrippedPod, b: StrippedPod): boolean {
  return (
    !sameContainers(a.spec.containers, b.spec.containers) ||
    !sameContainers(a.spec.initContainers, b.spec.initContainers) ||
    !sameContainers(a.spec.ephemeralContainers, b.spec.ephemeralContainers) ||
    !sameOwners(a.metadata.ownerReferences, b.metadata.ownerReferences) ||
    (a.metadata.deletionTimestamp ?? '') !== (b.metadata.deletionTimestamp ?? '')
  );
}

/** Owner kinds (ReplicaSets, by metadata): only their owners and deletion matter. */
export function ownersChanged(a: { metadata: Meta }, b: { metadata: Meta }): boolean {
  return (
    !sameOwners(a.metadata.ownerReferences, b.metadata.ownerReferences) ||
    (a.metadata.deletionTimestamp ?? '') !== (b.metadata.deletionTimestamp ?? '')
  );
}

export function generationChanged(
  a: { metadata: Meta; spec?: unknown },
  b: { metadata: Meta; spec?: unknown },
): boolean {
  if ((a.metadata.deletionTimestamp ?? '') !== (b.metadata.deletionTimestamp ?? '')) return true;
  if (a.metadata.generation === undefined || b.metadata.generation === undefined) {
    // No generation to compare (not served by this API): fall back to the stripped template.
    return JSON.stringify(a.spec) !== JSON.stringify(b.spec);
  }
  return a.metadata.generation !== b.metadata.generation;
}

/** Whether the Pod has an image (valid ref) for which `hasImage(normalized ref)` is false. */
export function podBringsNewImage(p: StrippedPod, hasImage: (normalized: string) => boolean): boolean {
  for (const list of [p.spec.containers, p.spec.initContainers, p.spec.ephemeralContainers]) {
    for (const c of list ?? []) {
      const r = c.image ? normalizeRef(c.image) : undefined;
      if (r?.ok && !hasImage(r.ref.normalized)) return true;
    }
  }
  return false;
}
