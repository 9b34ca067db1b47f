// How full the node's image file system is: CRI's ImageFsInfo gives the mount point and the
// bytes the runtime's images take; CRI has no capacity, so statfs(2) of a path on that file
// system gives it (the worker Pod mounts the administrator's `imageFsPath` read-only for that;
// run on a node by hand, the mount point itself). Usage is images' bytes over capacity: what
// removing images can change, and what no other tenant of a shared disk moves.
//
// The path statfs reads must be on the images' own file system, or usage is measured against
// another disk (an empty tmpfs reads as half full of images and images go). The check is by
// identity: the device (st_dev) of that path and of the mount point, seen from here (in a
// worker Pod, the mount point sits under the mounted host path, and bind mounts keep st_dev).
// When they differ, or either cannot be stat'ed, nothing is measured.
import fs from 'node:fs';
import path from 'node:path';
import type { CriFilesystemUsage } from '../../cri/messages.js';

export interface ImageFsUsage {
  /** Bytes the runtime's images use (ImageFsInfo). */
  used: number;
  /** Bytes of the file system (statfs). */
  capacity: number;
  /** Bytes free for unprivileged use (statfs), whatever uses the rest. */
  available: number;
  /** Where the runtime says its image file system is (a host path). */
  mountPoint: string;
}

export interface MeasureOptions {
  /** Where to statfs; default the mount point (a node-local run). */
  statPath?: string;
  /** The host path mounted at statPath (a worker Pod): the mount point must be at or under it. */
  hostPath?: string;
}

export const percentOf = (u: Pick<ImageFsUsage, 'used' | 'capacity'>): number =>
  u.capacity > 0 ? (u.used / u.capacity) * 100 : 0;

/**
 * "41.23%": two decimals, since one image can be a small fraction of a large disk. Under 1%, two
 * significant digits ("0.0072%", never "1.2e-7%"), so a usage never rounds to a figure that reads
 * as over a low mark it is under.
 */
export const formatPercent = (p: number): string => {
  if (!(p > 0 && p < 1)) return `${(Math.round(p * 100) / 100).toFixed(2)}%`;
  const decimals = Math.min(20, Math.max(2, 1 - Math.floor(Math.log10(p))));
  return `${p.toFixed(decimals)}%`;
};

const device = (dev: number) => `${Math.floor(dev / 256) & 0xfff}:${(dev & 0xff) | ((dev >> 12) & 0xfff00)}`;

async function statOrWhy(p: string, what: string): Promise<fs.Stats> {
  try {
    return await fs.promises.stat(p);
  } catch (e) {
    throw new Error(
      `cannot stat ${what} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): the image file system cannot be identified`,
    );
  }
}

/** Throws an Error saying why usage is unknown (the caller removes nothing by threshold). */
export async function measureImageFs(
  imageFsInfo: () => Promise<CriFilesystemUsage[]>,
  opts: MeasureOptions = {},
): Promise<ImageFsUsage> {
  const all = await imageFsInfo();
  const fsu = all.find((f) => f.mountpoint);
  if (!fsu) throw new Error('the runtime reports no image file system (ImageFsInfo)');
  const mountPoint = fsu.mountpoint;
  const statPath = opts.statPath ?? mountPoint;
  // Where the mount point is seen from here: itself on the node, under statPath in a worker Pod.
  let seenAt = mountPoint;
  if (opts.hostPath !== undefined) {
    const base = opts.hostPath.replace(/\/+$/, '') || '/';
    const under = mountPoint === base || mountPoint.startsWith(base === '/' ? '/' : `${base}/`);
    if (!under)
      throw new Error(
        `the runtime's image file system is at ${mountPoint}, not under imageFsPath ${opts.hostPath} (inv-erase-config)`,
      );
    seenAt = path.join(statPath, mountPoint.slice(base.length));
  }
  const here = await statOrWhy(statPath, statPath);
  const images = await statOrWhy(
    seenAt,
    seenAt === mountPoint
      ? `the runtime's image file system at ${mountPoint}`
      : `${seenAt} (the runtime's ${mountPoint})`,
  );
  if (here.dev !== images.dev)
    throw new Error(
      `${statPath} is on another file system (device ${device(here.dev)}) than the runtime's images at ${mountPoint} (device ${device(images.dev)}); give a path on the image file system (--image-fs-path, imageFsPath in inv-erase-config)`,
    );
  const st = await fs.promises.statfs(statPath);
  const capacity = st.blocks * st.bsize;
  if (capacity <= 0) throw new Error(`statfs of ${statPath} reports no capacity`);
  return { used: fsu.usedBytes, capacity, available: st.bavail * st.bsize, mountPoint };
}

/**
 * The images' bytes when the runtime's ImageFsInfo count cannot be them: CRI-O (1.34) counts only
 * its image metadata folder (`<root>/overlay-images`, kilobytes), not the layers, so a threshold
 * would never be reached. When the count is below the largest image it lists, the listed sizes of
 * the distinct images stand in (an over-estimate where images share layers: a run then frees a
 * little more than the low mark asks, never an image a keep rule holds). Returns the usage to use
 * and a warning, or the usage unchanged.
 */
export function withListedSizes(
  usage: ImageFsUsage,
  images: readonly { id: string; size?: number }[],
): { usage: ImageFsUsage; warning?: string } {
  const sizes = new Map(images.map((i) => [i.id, i.size ?? 0]));
  const largest = Math.max(0, ...sizes.values());
  if (usage.used >= largest) return { usage };
  const listed = [...sizes.values()].reduce((a, b) => a + b, 0);
  return {
    usage: { ...usage, used: Math.min(listed, usage.capacity) },
    warning: `the runtime's ImageFsInfo counts ${usage.used} bytes at ${usage.mountPoint}, less than its largest image (${largest} bytes): usage is the listed sizes of its images instead (${listed} bytes)`,
  };
}
