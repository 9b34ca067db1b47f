// What a run freed on the node as its runtime measures it (../contract/freed-space.ts): the
// image file system usage from CRI ImageFsInfo before the removals, then after them. containerd
// serves a cached figure, refreshed in the background (every 10 s by default) and stamped with
// when it was taken: before the removals the worker waits for a figure stamped after it listed
// the images (one taken earlier may miss images pulled since, and their layers would read as
// freed or not), after them for one stamped after the last removal, each within a bound, and
// otherwise says the figure was not refreshed. A figure below
// the largest listed image is not the images' bytes (CRI-O counts its metadata folder only).
import type { CriFilesystemUsage } from '../cri/messages.js';
import type { FreedSummary, NotMeasured } from '../contract/freed-space.js';

/** How long the worker waits for a figure taken after its removals. */
export const FREED_WAIT_MS = 30_000;
const POLL_MS = 500;

export type UsageReading = { used: number; atMs: number } | { notMeasured: NotMeasured };

/** The usage now, with when the runtime took it (0: it does not say). */
export async function readUsage(
  imageFsInfo: () => Promise<CriFilesystemUsage[]>,
  largestImage: number,
): Promise<UsageReading> {
  let all: CriFilesystemUsage[];
  try {
    all = await imageFsInfo();
  } catch {
    return { notMeasured: 'no-image-fs' };
  }
  const fs = all.find((f) => f.mountpoint) ?? all[0];
  if (!fs) return { notMeasured: 'no-image-fs' };
  if (fs.usedBytes < largestImage) return { notMeasured: 'not-image-bytes' };
  return { used: fs.usedBytes, atMs: fs.timestamp / 1e6 };
}

/**
 * The usage as measured after `sinceMs` (a runtime that stamps no time measures on request: its
 * first answer counts), waiting for the runtime to measure again within the bound.
 */
export async function usageSince(
  imageFsInfo: () => Promise<CriFilesystemUsage[]>,
  largestImage: number,
  sinceMs: number,
  opts: FreedWait = {},
): Promise<UsageReading> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const until = now() + (opts.waitMs ?? FREED_WAIT_MS);
  for (;;) {
    const u = await readUsage(imageFsInfo, largestImage);
    if ('notMeasured' in u || u.atMs === 0 || u.atMs > sinceMs) return u;
    if (now() >= until) return { notMeasured: 'not-refreshed' };
    await sleep(opts.pollMs ?? POLL_MS);
  }
}

export interface FreedWait {
  waitMs?: number;
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * [before, after] (the figure after may be below the largest image: they went) once the runtime measured after `removedAtMs` (a runtime that stamps no time
 * measures on request: its first answer is taken), or why not.
 */
export async function freedSince(
  imageFsInfo: () => Promise<CriFilesystemUsage[]>,
  before: UsageReading,
  removedAtMs: number,
  opts: FreedWait = {},
): Promise<FreedSummary> {
  if ('notMeasured' in before) return before.notMeasured;
  const after = await usageSince(imageFsInfo, 0, removedAtMs, opts);
  return 'notMeasured' in after ? after.notMeasured : [before.used, after.used];
}
