// `inv erase`'s threshold and age flags (--image-fs-above, --image-fs-down-to, --unused-for):
// the same names `inv node-remove` takes, read into the ImageList's spec.imageFs and
// spec.minUnusedAge, every problem named at once with the other flag rules (erase-options.ts).
import { parseDurationMs } from '../../core/duration.js';
import { PRUNE_ALL } from '../../core/erase/spec/images.js';
import type { ImageFsSpec } from '../../core/erase/api/types.js';
import type { FlagValues } from '../flag-values.js';
import type { eraseFlags } from './erase-flags.js';

/** The threshold and age flags, as `inv erase` declares them (./erase-flags.ts). */
export type TriggerFlags = Pick<
  FlagValues<typeof eraseFlags>,
  'image-fs-above' | 'image-fs-down-to' | 'unused-for'
>;

export interface TriggerSpec {
  imageFs?: ImageFsSpec;
  minUnusedAge?: string;
}

function percent(v: string, flag: string, problems: string[]): number | undefined {
  const n = Number(v.trim().replace(/%$/, ''));
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) {
    problems.push(
      `--${flag} must be a percentage from 0 to 100 (decimals allowed), got ${JSON.stringify(v)}`,
    );
    return undefined;
  }
  return n;
}

/** The spec fields and the problems (each flag rule once). */
export function completeTrigger(
  flags: TriggerFlags,
  images: readonly string[],
): { spec: TriggerSpec; problems: string[] } {
  const problems: string[] = [];
  const spec: TriggerSpec = {};
  const above = flags['image-fs-above'];
  const downTo = flags['image-fs-down-to'];
  if (above !== undefined || downTo !== undefined) {
    if (above === undefined || downTo === undefined) {
      problems.push(
        '--image-fs-above and --image-fs-down-to go together (clean from the high mark down to the low one)',
      );
    } else {
      const high = percent(above, 'image-fs-above', problems);
      const low = percent(downTo, 'image-fs-down-to', problems);
      if (high !== undefined && low !== undefined) {
        if (low < high) spec.imageFs = { highPercent: high, lowPercent: low };
        else problems.push(`--image-fs-down-to (${low}) must be lower than --image-fs-above (${high})`);
      }
    }
  }
  const unusedFor = flags['unused-for'];
  if (unusedFor !== undefined) {
    try {
      if (parseDurationMs(unusedFor, '--unused-for') <= 0)
        problems.push('--unused-for must be longer than 0s');
      else spec.minUnusedAge = unusedFor.trim();
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  const used = above !== undefined || downTo !== undefined || unusedFor !== undefined;
  if (used && !(images.length === 1 && images[0] === PRUNE_ALL))
    problems.push('--image-fs-above, --image-fs-down-to and --unused-for go with --all-unused alone');
  return { spec, problems };
}
