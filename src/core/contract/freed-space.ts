// Freed space as the node's runtime measured it, beside the estimate from the removed images'
// listed sizes: the image file system's usage (CRI ImageFsInfo) before the removals minus after.
// Images sharing layers make the estimate count a shared layer once per image (607 images over
// one 1.9 MB layer: "freed 1.2 GB" estimated, megabytes measured); a removal the runtime reports
// while the space stays pinned makes it wrong the other way. Where the runtime gives no usable
// figure the node says why ("not measured"), never a number it does not have. Written by the
// worker (noderemove/freed-space.ts) as the summary's `fm`, read into the node's result here.
// PURE.

/** Why a node's freed space was not measured. */
export const NOT_MEASURED = {
  /** The runtime gave no image file system usage (ImageFsInfo failed or named none). */
  'no-image-fs': 'the runtime reports no image file system usage',
  /** Its figure is below its largest image: it does not count the layers (CRI-O counts metadata). */
  'not-image-bytes': "the runtime's image file system usage does not count the images' layers",
  /** It did not measure again after the removals within the worker's bound (containerd caches). */
  'not-refreshed': "the runtime did not measure its image file system again within the worker's wait",
  /**
   * Its usage after is above its usage before: what was written meanwhile (images pulled,
   * containers' layers) outweighs what went, so the difference says nothing of what was freed.
   */
  'usage-grew':
    "the runtime's image file system usage grew during the run (what was written meanwhile outweighs what was freed)",
} as const;
export type NotMeasured = keyof typeof NOT_MEASURED;

export const isNotMeasured = (v: unknown): v is NotMeasured =>
  typeof v === 'string' && Object.hasOwn(NOT_MEASURED, v);

/** The summary's `fm`: [used before, used after] in bytes, or why there is no figure. */
export type FreedSummary = [number, number] | NotMeasured;

/**
 * Measured freed bytes from a summary's `fm`, or why there are none. Usage that grew meanwhile
 * (after above before) is no measurement of what was freed: it is reported as not measured
 * (usage-grew), not as 0. Decided here, where the figures are read, so a worker's `fm` is the
 * same as before.
 */
export function readFreed(
  fm: unknown,
): { bytesMeasured: number } | { freedNotMeasured: NotMeasured } | undefined {
  if (isNotMeasured(fm)) return { freedNotMeasured: fm };
  if (!Array.isArray(fm) || fm.length !== 2) return undefined;
  const [b, a] = fm as unknown[];
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (!ok(b) || !ok(a)) return undefined;
  return a > b ? { freedNotMeasured: 'usage-grew' } : { bytesMeasured: b - a };
}

/** Below this, estimate and measurement are close enough whatever their ratio (file system blocks, metadata). */
export const FREED_DIFF_FLOOR = 8 * 1024 * 1024;

/**
 * The estimate and the measurement differ enough to report: by more than FREED_DIFF_FLOOR and
 * by more than a quarter of the larger.
 */
export function freedDiffers(estimate: number, measured: number): boolean {
  const d = Math.abs(estimate - measured);
  return d > FREED_DIFF_FLOOR && d > Math.max(estimate, measured) / 4;
}

/**
 * What follows "freed 1.2 GB" (the estimate): ", measured 3.1 MB (the listed sizes count a
 * shared layer once per image)" when they differ, ", measured 1.1 GB" when not, or
 * " (not measured: <why>)". `fmt` formats bytes (the caller's, so this file stays pure).
 */
export function measuredText(
  estimate: number,
  m: { bytesMeasured?: number; freedNotMeasured?: NotMeasured },
  fmt: (n: number) => string,
): string {
  if (m.bytesMeasured !== undefined)
    return `, measured ${fmt(m.bytesMeasured)}${
      freedDiffers(estimate, m.bytesMeasured)
        ? estimate > m.bytesMeasured
          ? ' (the listed sizes count a shared layer once per image)'
          : ' (more than the listed sizes: the runtime released space it held besides)'
        : ''
    }`;
  return m.freedNotMeasured ? ` (not measured: ${NOT_MEASURED[m.freedNotMeasured]})` : '';
}
