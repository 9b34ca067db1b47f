// The order in which a threshold-triggered prune removes images (PURE). The kubelet's image GC
// removes the least recently used first, by a clock it keeps in memory; inv's clock is the
// node-local record of when each image was first seen unused (unused-state.ts). The order, as
// docs/thresholds.md documents it:
//   1. images never seen in use on this node first (pulled and never run, or run before inv
//      started watching: nothing says they are wanted here);
//   2. then the longest unused (earliest first-seen-unused time; an image with no time last);
//   3. then the largest (fewer removals for the same space);
// and the image ID last, so the order never depends on the runtime's listing order.

export interface OrderCandidate {
  imageId: string;
  /** Bytes, as the runtime lists the image. */
  size: number;
  /** The node's record saw a container use it at some point. */
  seenInUse: boolean;
  /** When the record first saw it unused (ms since the epoch); undefined when unknown. */
  unusedSinceMs: number | undefined;
}

function compareSince(a: number | undefined, b: number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a - b;
}

/** A new array, first to remove first. */
export function removalOrder<T extends OrderCandidate>(candidates: readonly T[]): T[] {
  return [...candidates].sort(
    (a, b) =>
      Number(a.seenInUse) - Number(b.seenInUse) ||
      compareSince(a.unusedSinceMs, b.unusedSinceMs) ||
      b.size - a.size ||
      (a.imageId < b.imageId ? -1 : a.imageId > b.imageId ? 1 : 0),
  );
}

/**
 * The first candidates, in removal order, whose listed sizes add up to at least `bytes` (all of
 * them when they do not reach it): what brings usage to the low mark, then stops.
 */
export function takeUntil<T extends OrderCandidate>(ordered: readonly T[], bytes: number): T[] {
  const out: T[] = [];
  let freed = 0;
  for (const c of ordered) {
    if (freed >= bytes) break;
    out.push(c);
    freed += c.size;
  }
  return out;
}
