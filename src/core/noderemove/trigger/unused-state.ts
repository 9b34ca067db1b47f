// The node-local record of when each image was first seen unused (PURE: text in, state out,
// state and the runtime's answers in, new state out). CRI has no "last used" time and the
// kubelet's clock lives in memory, so the worker keeps its own in a small file on the node
// (unused-state-file.ts reads and writes it). One entry per image present on the node:
//   - an image a container uses has no time, and `seenInUse` set: its clock is reset;
//   - an unused image keeps the time it was first seen unused (set on the first run that saw it);
//   - images that are gone are dropped, so the file is bounded by the images on the node.
// A record that cannot be trusted (missing, corrupt, an older or unknown format, too large)
// fails closed: every image starts its clock now, so nothing counts as unused for long this
// run, and the caller warns.

export const STATE_FORMAT = 'inv.imageinventory.dev/unused-images/v1';
/** More entries than CRI's own limit on a listing (src/core/cri/limits.ts) is not a record of ours. */
export const MAX_STATE_ENTRIES = 50_000;

export interface UnusedEntry {
  /** First seen unused, ms since the epoch; undefined while a container uses it. */
  unusedSince?: number;
  seenInUse: boolean;
}

export type UnusedState = Map<string, UnusedEntry>;

export interface StateRead {
  state: UnusedState;
  /** False when the record could not be used: every clock starts now (fail closed). */
  trusted: boolean;
  warning?: string;
}

interface FileShape {
  format?: unknown;
  images?: unknown;
}

const untrusted = (why: string): StateRead => ({
  state: new Map(),
  trusted: false,
  warning: `${why}: no image counts as unused for long this run (its clock starts now)`,
});

/** A format worth naming in a warning: a short plain name; never the file's other bytes. */
const shownFormat = (f: unknown): string =>
  f === undefined || f === null
    ? 'none'
    : typeof f === 'string' && /^[\w./-]{1,64}$/.test(f)
      ? JSON.stringify(f)
      : 'of another kind';

/** `text` undefined: no file. `now` bounds the times read (a time in the future is refused). */
export function parseState(text: string | undefined, now: number): StateRead {
  if (text === undefined) return untrusted('no record of unused images on this node yet');
  let doc: FileShape;
  try {
    doc = JSON.parse(text) as FileShape;
  } catch {
    // Not the parser's message: it quotes the file's bytes, which would reach the warning.
    return untrusted(`the record of unused images is corrupt (not valid JSON, ${text.length} bytes)`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    return untrusted('the record of unused images is corrupt (not an object)');
  if (doc.format !== STATE_FORMAT)
    return untrusted(
      `the record of unused images has format ${shownFormat(doc.format)}, not ${STATE_FORMAT} (older or unknown)`,
    );
  const images = doc.images;
  if (!images || typeof images !== 'object' || Array.isArray(images))
    return untrusted('the record of unused images is corrupt (no images object)');
  const entries = Object.entries(images as Record<string, unknown>);
  if (entries.length > MAX_STATE_ENTRIES)
    return untrusted(`the record of unused images has ${entries.length} entries, over ${MAX_STATE_ENTRIES}`);
  const state: UnusedState = new Map();
  for (const [i, [id, raw]] of entries.entries()) {
    const e = raw as { unusedSince?: unknown; seenInUse?: unknown } | null;
    const since = e?.unusedSince === undefined ? undefined : Date.parse(String(e.unusedSince));
    const bad =
      !id ||
      !e ||
      typeof e !== 'object' ||
      typeof e.seenInUse !== 'boolean' ||
      (e.unusedSince !== undefined && (typeof e.unusedSince !== 'string' || !Number.isFinite(since)));
    if (bad) return untrusted(`the record of unused images is corrupt (entry ${i + 1} of ${entries.length})`);
    if (since !== undefined && since > now)
      return untrusted(`the record of unused images has a time in the future (${String(e.unusedSince)})`);
    state.set(id, {
      seenInUse: e.seenInUse as boolean,
      ...(since !== undefined ? { unusedSince: since } : {}),
    });
  }
  return { state, trusted: true };
}

export interface ImageUse {
  imageId: string;
  /** A container (running or exited) or a pod sandbox uses it now. */
  inUse: boolean;
}

/** The record after this run's look: entries only for images present now. */
export function updateState(prev: UnusedState, images: readonly ImageUse[], now: number): UnusedState {
  const next: UnusedState = new Map();
  for (const { imageId, inUse } of images) {
    if (!imageId || next.has(imageId)) continue;
    const old = prev.get(imageId);
    if (inUse) next.set(imageId, { seenInUse: true });
    else next.set(imageId, { seenInUse: old?.seenInUse ?? false, unusedSince: old?.unusedSince ?? now });
  }
  return next;
}

/** Drops the images this run removed. */
export function withoutImages(state: UnusedState, removed: Iterable<string>): UnusedState {
  const next = new Map(state);
  for (const id of removed) next.delete(id);
  return next;
}

export function serializeState(state: UnusedState): string {
  const images: Record<string, { unusedSince?: string; seenInUse: boolean }> = {};
  for (const [id, e] of [...state].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    images[id] = {
      ...(e.unusedSince !== undefined ? { unusedSince: new Date(e.unusedSince).toISOString() } : {}),
      seenInUse: e.seenInUse,
    };
  }
  return `${JSON.stringify({ format: STATE_FORMAT, images }, null, 1)}\n`;
}
