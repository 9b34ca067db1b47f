// Which nodes of a threshold run (spec.imageFs) need no worker at all (PURE). A scheduled
// threshold check must not start a worker Pod on every node every 15 minutes when nothing is
// full, so before creating one the controller estimates each node's usage from what it already
// reads, the Node objects (no extra request, no extra permission):
//   - status.images: the kubelet's list of the node's images with their sizes (it reports at
//     most nodeStatusMaxImages, 50 by default, the largest first);
//   - status.capacity["ephemeral-storage"]: the capacity of the kubelet's file system.
// It skips a node (outcome Skipped, reason below-threshold) only when even PRESCREEN_FACTOR
// times the listed bytes is under the high mark: listed sizes are what the registry sent
// (compressed for containerd), the worker measures unpacked bytes. Anything it cannot tell
// sends a worker: a list that may be cut short (50 entries or more), no capacity, or an image
// file system on another disk than the kubelet's, which the administrator declares by turning
// the screen off (inv-erase-config imageFsPrescreen: false). The screen only ever saves a worker;
// the worker's own measurement decides what goes.

/** The kubelet's default nodeStatusMaxImages: a list this long may be missing images. */
export const NODE_STATUS_MAX_IMAGES = 50;
/** Unpacked bytes per listed (compressed) byte assumed at most. */
export const PRESCREEN_FACTOR = 5;

/** What the erase cache keeps of a Node for the screen (../cluster/reader.ts stripNode). */
export interface PrescreenFacts {
  /** Sum of status.images[].sizeBytes. */
  listedBytes: number;
  /** Entries in status.images. */
  listedImages: number;
  /** status.capacity["ephemeral-storage"], bytes; undefined when absent or unreadable. */
  capacity?: number;
}

/** The Node's status reduced to PrescreenFacts. */
export function prescreenFacts(status: {
  images?: { sizeBytes?: number | string }[];
  capacity?: Record<string, string | undefined>;
}): PrescreenFacts {
  const images = Array.isArray(status.images) ? status.images : [];
  let listedBytes = 0;
  for (const i of images) {
    const n = Number(i?.sizeBytes ?? 0);
    if (Number.isFinite(n) && n > 0) listedBytes += n;
  }
  const capacity = parseQuantity(status.capacity?.['ephemeral-storage']);
  return { listedBytes, listedImages: images.length, ...(capacity !== undefined ? { capacity } : {}) };
}

const SUFFIX: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A Kubernetes quantity in bytes ("102400Ki", "100Gi", "1e9"); undefined when unreadable. */
export function parseQuantity(q: string | undefined): number | undefined {
  if (typeof q !== 'string') return undefined;
  const m = /^([0-9]+(?:\.[0-9]+)?)(?:e([0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?)$/.exec(q.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  const v = m[2] !== undefined ? base * 10 ** Number(m[2]) : base * SUFFIX[m[3] ?? '']!;
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

/** True when the node surely sits under the high mark: no worker is needed. */
export function surelyBelow(facts: PrescreenFacts | undefined, highPercent: number): boolean {
  if (!facts || facts.capacity === undefined || facts.capacity <= 0) return false;
  if (facts.listedImages >= NODE_STATUS_MAX_IMAGES) return false;
  return ((facts.listedBytes * PRESCREEN_FACTOR) / facts.capacity) * 100 < highPercent;
}
