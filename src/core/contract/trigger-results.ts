// A threshold or minimum-age run's part of a node's result (results.ts): what the worker's
// summary says about the image file system and what the trigger kept.
// (NodeResult's fields, declared again here: results.ts imports this file.)

export interface TriggerPart {
  imageFsBefore?: number;
  imageFsAfter?: number;
  belowThreshold?: number;
  recentlyUnused?: number;
}

const n = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;

/** From the summary's counts and its `fs` ({u: used, c: capacity, a: used after}). */
export function triggerResult(counts: Record<string, unknown>, fs: unknown): TriggerPart {
  const out: TriggerPart = {};
  const below = (n(counts['below-threshold']) ?? 0) + (n(counts['low-mark-reached']) ?? 0);
  const young = n(counts['recently-unused']) ?? 0;
  if (fs && typeof fs === 'object') {
    const f = fs as Record<string, unknown>;
    const used = n(f.u);
    const cap = n(f.c);
    if (used !== undefined && cap !== undefined && cap > 0) {
      out.imageFsBefore = hundredths(used, cap);
      out.imageFsAfter = hundredths(n(f.a) ?? used, cap);
    }
  }
  if (below || out.imageFsBefore !== undefined) out.belowThreshold = below;
  if (young) out.recentlyUnused = young;
  return out;
}

/** Hundredths of a percent (0-10000) of `used` over `capacity`. */
export const hundredths = (used: number, capacity: number): number =>
  Math.min(10_000, Math.max(0, Math.round((used / capacity) * 10_000)));

/** "41.20%" from hundredths of a percent. */
export const usagePercent = (h: number): string => `${(h / 100).toFixed(2)}%`;

/**
 * Per node, before -> after, for the job's `imageFs` status field (the IMAGE-FS printer column of
 * -o wide): "node-1 41.20%->39.95%, node-2 3.10%", at most `max` characters with "+N more".
 */
export function imageFsSummary(results: readonly (TriggerPart & { node: string })[], max = 200): string {
  const parts: string[] = [];
  for (const r of results) {
    if (r.imageFsBefore === undefined) continue;
    const before = usagePercent(r.imageFsBefore);
    const after = usagePercent(r.imageFsAfter ?? r.imageFsBefore);
    parts.push(`${r.node} ${before}${after !== before ? `->${after}` : ''}`);
  }
  let out = '';
  for (const [i, p] of parts.entries()) {
    const more = parts.length - i - 1;
    const next = out ? `${out}, ${p}` : p;
    const tail = more ? `, +${more} more` : '';
    if (`${next}${tail}`.length > max) return `${out}${out ? ', ' : ''}+${parts.length - i} more`;
    out = next;
  }
  return out;
}
