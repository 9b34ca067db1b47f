// What a threshold or minimum-age run keeps of a `*` prune's removals (PURE: the decisions,
// the node's record of unused images and its image file system's usage in; decisions out).
// Every keep rule of decide() has already run: this only ever turns a removal into a keep.
//   - minUnusedAge: an image seen unused for less than that is kept (`recently-unused`);
//   - imageFs: under the high mark every removal is kept (`below-threshold`); at or above it,
//     removals in removal order (removal-order.ts) until the listed sizes of what goes bring
//     usage to the low mark, the rest kept (`low-mark-reached`); usage unknown, nothing goes
//     (`failed`, fail closed).
import { formatDurationMs } from '../../duration.js';
import { formatPercent, percentOf, type ImageFsUsage } from './image-fs.js';
import { removalOrder, takeUntil } from './removal-order.js';
import type { UnusedState } from './unused-state.js';
import type { Decision } from '../types.js';

export interface ImageFsThreshold {
  highPercent: number;
  lowPercent: number;
}

export interface TriggerOptions {
  imageFs?: ImageFsThreshold;
  minUnusedAgeMs?: number;
}

export interface TriggerInput {
  decisions: readonly Decision[];
  /** The record after this run's look (updateState): every present image has an entry. */
  state: UnusedState;
  now: number;
  options: TriggerOptions;
  /** Required with options.imageFs; an Error when it could not be measured. */
  usage?: ImageFsUsage | Error;
}

const keep = (d: Decision, outcome: Decision['outcome'], detail: string): Decision => ({
  ...d,
  action: 'keep',
  outcome,
  detail,
});

/** "unused for 9d" (or "in use until now", the clock just started). */
export function describeAge(ms: number | undefined): string {
  if (ms === undefined || ms <= 0) return 'first seen unused now';
  return `unused for ${formatDurationMs(ms)}`;
}

export function applyTrigger(input: TriggerInput): Decision[] {
  const { options, state, now } = input;
  // Ages on every decision about an image (kept ones too: people ask why).
  let out = input.decisions.map((d): Decision => {
    const since = d.imageId ? state.get(d.imageId)?.unusedSince : undefined;
    return since === undefined ? d : { ...d, unusedForMs: now - since };
  });
  const min = options.minUnusedAgeMs;
  if (min !== undefined && min > 0) {
    out = out.map((d) =>
      d.action === 'remove' && (d.unusedForMs ?? 0) < min
        ? keep(d, 'recently-unused', `${describeAge(d.unusedForMs)}, under ${formatDurationMs(min)}`)
        : d,
    );
  }
  const t = options.imageFs;
  if (!t) return out;
  const usage = input.usage;
  if (usage === undefined || usage instanceof Error) {
    const why = usage?.message ?? 'not measured';
    return out.map((d) =>
      d.action === 'remove' ? keep(d, 'failed', `refused: image file system usage unknown: ${why}`) : d,
    );
  }
  const percent = percentOf(usage);
  if (percent < t.highPercent) {
    const detail = `image file system at ${formatPercent(percent)}, under ${t.highPercent}%`;
    return out.map((d) => (d.action === 'remove' ? keep(d, 'below-threshold', detail) : d));
  }
  const toFree = Math.max(0, usage.used - (t.lowPercent / 100) * usage.capacity);
  const candidates = removalOrder(
    out
      .filter((d) => d.action === 'remove')
      .map((d) => ({
        imageId: d.imageId,
        size: d.size,
        seenInUse: state.get(d.imageId)?.seenInUse ?? false,
        unusedSinceMs: state.get(d.imageId)?.unusedSince,
      })),
  );
  const chosen = takeUntil(candidates, toFree);
  const go = new Set(chosen.map((c) => c.imageId));
  const freed = chosen.reduce((n, c) => n + c.size, 0);
  const after = formatPercent(percentOf({ used: usage.used - freed, capacity: usage.capacity }));
  const rank = new Map(candidates.map((c, i) => [c.imageId, i]));
  // Removals first, in removal order; then everything else as decided.
  const removals = out
    .filter((d) => d.action === 'remove' && go.has(d.imageId))
    .sort((a, b) => rank.get(a.imageId)! - rank.get(b.imageId)!);
  const rest = out
    .filter((d) => !(d.action === 'remove' && go.has(d.imageId)))
    .map((d) =>
      d.action === 'remove'
        ? keep(
            d,
            'low-mark-reached',
            `image file system down to ${after} by the removals before it (low mark ${t.lowPercent}%)`,
          )
        : d,
    );
  return [...removals, ...rest];
}
