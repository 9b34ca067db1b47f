// `inv erase` in kubectl's Options shape: the flags as parsed are completed into EraseOptions
// (the image list gathered from --images, --imagelist and --all-unused; durations read;
// whether to wait), and every flag rule is checked at once, so a request with three mistakes
// names all three. Nothing here talks to the cluster: connecting comes after, in the command.
import fs from 'node:fs';
import { parseDurationMs } from '../../core/duration.js';
import { PRUNE_ALL, validateImages } from '../../core/erase/spec/images.js';
import { listLimitProblems } from '../../core/erase/api/list-limits.js';
import { DEFAULT_SCANNER, scanProblems, type ScanSpec } from '../../core/erase/spec/vuln-scan.js';
import { parseSelector } from '../../core/erase/spec/selector.js';
import { parseDuration } from '../../core/erase/config/config.js';
import { scheduleProblems } from '../../core/erase/spec/schedule.js';
import { rolloutProblems, type RolloutSpec } from '../../core/erase/spec/rollout.js';
import { attempt as attemptFlag } from '../flag-problems.js';
import type { EraseOutput } from './common.js';
import type { eraseFlags } from './erase-flags.js';
import type { CommandFlagValues } from '../flags.js';
import { completeTrigger, type TriggerSpec } from './trigger.js';
import { completeNarrowing, type NarrowingSpec } from './scope-flags.js';

const ROLLOUT_FLAGS: Record<string, string> = {
  maxParallel: '--max-parallel',
  pause: '--pause',
  failureBudget: '--failure-budget',
};

/** spec.rollout from the flags (undefined without --max-parallel). */
function rolloutOf(flags: EraseFlags): RolloutSpec | undefined {
  const mp = flags['max-parallel']?.trim();
  if (mp === undefined) return undefined;
  return {
    maxParallel: /^\d+$/.test(mp) ? Number(mp) : mp,
    ...(flags.pause !== undefined ? { pause: flags.pause } : {}),
    ...(flags['failure-budget'] !== undefined ? { failureBudget: flags['failure-budget'] } : {}),
  };
}

/** The rollout's problems in the flags' names. */
const rolloutFlagProblems = (r: RolloutSpec | undefined): string[] =>
  rolloutProblems(r, 'rollout').map((m) =>
    m.replace(/^rollout\.(\w+)/, (_, k: string) => ROLLOUT_FLAGS[k] ?? k),
  );

/** The flags of `inv erase` as oclif parses them (./erase-flags.ts). */
export type EraseFlags = CommandFlagValues<typeof eraseFlags>;

export interface EraseOptions {
  flags: EraseFlags;
  /** The targets, `*` for --all-unused. */
  images: string[];
  output: EraseOutput;
  /** The whole wait for the job (--timeout); undefined when it cannot be read (a problem). */
  timeoutMs?: number;
  /** --starting-deadline in seconds. */
  startingDeadlineSeconds?: number;
  /** spec.rollout from --max-parallel, --pause and --failure-budget. */
  rollout?: RolloutSpec;
  /** Follow the job: the default on a terminal and off it alike, so a command behaves the same in CI. */
  wait: boolean;
  /** --vulnerable: scan mode's spec (the targets are then `*`). */
  scan?: ScanSpec;
  /** spec.imageFs and spec.minUnusedAge from the threshold flags (erase-trigger.ts). */
  trigger: TriggerSpec;
  /** spec.scope and spec.keepNewest from --only, --except and --keep-newest (scope-flags.ts). */
  narrowing: NarrowingSpec;
}

const commaList = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Completes the options; what cannot be read (an --imagelist file, a duration) is a problem. */
export function completeErase(
  flags: EraseFlags,
  read: (file: string) => string = (f) => fs.readFileSync(f, 'utf8'),
): { options: EraseOptions; problems: string[] } {
  const problems: string[] = [];
  const attempt = <T>(fn: () => T): T | undefined => attemptFlag(problems, fn);
  const images = (flags.images ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  if (flags.imagelist) {
    const file = flags.imagelist;
    const listed = attempt(() => {
      const v = JSON.parse(read(file)) as unknown;
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
        throw new Error(`${file}: must be a JSON array of images`);
      return v as string[];
    });
    images.push(...(listed ?? []));
  }
  if (flags['all-unused'] || flags.vulnerable) images.push(PRUNE_ALL);
  const scan: ScanSpec | undefined = flags.vulnerable
    ? {
        scanner: flags.scanner ?? DEFAULT_SCANNER,
        ...(flags.severity ? { severities: commaList(flags.severity).map((s) => s.toUpperCase()) } : {}),
        ...(flags['ignore-unfixed'] ? { ignoreUnfixed: true } : {}),
        ...(flags['vuln-type'] ? { vulnerabilityTypes: commaList(flags['vuln-type']) } : {}),
        ...(flags['delete-failed-images'] ? { deleteFailedImages: true } : {}),
        ...(flags['delete-eol-images'] ? { deleteEOLImages: true } : {}),
      }
    : undefined;
  const timeoutMs = attempt(() => parseDurationMs(flags.timeout, '--timeout'));
  const startingDeadlineSeconds =
    flags.schedule !== undefined && flags['starting-deadline']
      ? attempt(() => parseDuration(flags['starting-deadline']!, '--starting-deadline'))
      : undefined;
  const trigger = completeTrigger(flags, images);
  problems.push(...trigger.problems);
  const narrowing = completeNarrowing(flags, images);
  problems.push(...narrowing.problems);
  const options: EraseOptions = {
    trigger: trigger.spec,
    narrowing: narrowing.spec,
    flags,
    images,
    output: flags.output as EraseOutput,
    timeoutMs,
    startingDeadlineSeconds,
    rollout: rolloutOf(flags),
    wait: !flags.schedule && (flags.standalone || (flags.wait ?? true)),
    ...(scan ? { scan } : {}),
  };
  return { options, problems };
}

/** Every flag rule, all problems at once (none: the request may go to the cluster). */
export function validateErase(
  o: EraseOptions,
  completeProblems: readonly string[],
  stdinIsTTY: boolean = Boolean(process.stdin.isTTY),
): string[] {
  const { flags, images } = o;
  const problems = [...completeProblems];
  const check = (fn: () => void) => attemptFlag(problems, fn);
  // An unreadable --imagelist is already named: "nothing to remove" would only repeat it.
  if (images.length === 0 && !flags.imagelist)
    problems.push('nothing to remove: pass --images, --imagelist or --all-unused');
  if (images.includes(PRUNE_ALL) && !flags.yes && !flags['dry-run'] && !stdinIsTTY)
    problems.push(
      flags.vulnerable
        ? '--vulnerable removes every unused image the scanner finds vulnerable: confirm with --yes'
        : '--all-unused removes every image not in use: confirm with --yes',
    );
  if (o.scan)
    problems.push(
      ...scanProblems(o.scan, images).map((p) =>
        p
          .replace(/^spec\.scan\.scanner/, '--scanner')
          .replace(/^spec\.scan\.severities/, '--severity')
          .replace(/^spec\.scan\.vulnerabilityTypes/, '--vuln-type'),
      ),
    );
  else
    for (const f of [
      'severity',
      'ignore-unfixed',
      'scanner',
      'vuln-type',
      'delete-failed-images',
      'delete-eol-images',
    ] as const)
      if (flags[f] !== undefined && flags[f] !== false) problems.push(`--${f} needs --vulnerable`);
  // What the CRD and the ImageList controller would refuse (list-limits.ts), refused here
  // first, in the same words, before anything is written.
  problems.push(...listLimitProblems(flags.name, images), ...validateImages(images));
  problems.push(...rolloutFlagProblems(o.rollout));
  if (flags['node-selector']) check(() => parseSelector(flags['node-selector']!));
  if (flags['job-timeout'])
    check(() => {
      if (!(parseDuration(flags['job-timeout']!, '--job-timeout') > 0))
        throw new Error('--job-timeout must be longer than 0s');
    });
  if (o.timeoutMs !== undefined && !(o.timeoutMs > 0))
    problems.push(`--timeout must be longer than 0s, got ${JSON.stringify(flags.timeout)}`);
  if (flags.schedule !== undefined) {
    problems.push(
      ...scheduleProblems({
        schedule: flags.schedule,
        timeZone: flags['time-zone'],
        startingDeadlineSeconds: o.startingDeadlineSeconds,
      }).map((p) =>
        p
          .replace(/^schedule /, '--schedule ')
          .replace(/^timeZone /, '--time-zone ')
          .replace(/^startingDeadlineSeconds [^:]+/, `--starting-deadline ${flags['starting-deadline']}`),
      ),
    );
    if (flags.standalone)
      problems.push(
        '--schedule needs the daemon (inv watch --erase-controllers): it cannot run with --standalone',
      );
    if (flags.wait) problems.push('--schedule returns without waiting for a run: it cannot run with --wait');
  }
  return problems;
}
