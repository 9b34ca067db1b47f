// The administrator's bounds on what requesters hold (inv-erase-config `requesterLimits:`). PURE.
// Anyone allowed to create ImageLists sets a job timeout and a rollout pause; without a bound,
// two lists with `--pause 1000h --job-timeout 2000h` hold both places of `maxConcurrentJobs: 2`
// for weeks while the administrator's nightly list waits. So:
//
//   requesterLimits:
//     maxJobTimeout: 6h               # longest spec.jobTimeout a requester's list may ask for
//     maxPause: 1h                    # longest spec.rollout.pause (the waves run within the job
//                                     # timeout, so maxJobTimeout bounds the whole rollout)
//     administratorLists: [nightly]   # the administrator's ImageLists: no bound on them, first
//                                     # in the queue, and requesters never take their place
//     maxJobs: 1                      # places of maxConcurrentJobs that requesters' jobs hold
//                                     # together (default: all but one when administratorLists
//                                     # names a list, else all)
//
// A longer duration is refused, never shortened: by `inv erase` at preflight when its user may
// read the configuration, by the ImageList controller (phase Error) and by the ImageJob controller
// (refused), each time with the same words, naming the bound. Which lists are the administrator's
// is said here, by name, because nothing on an ImageList can say it: anyone who may create one
// sets its labels and its schedule, and a list's name is taken by whoever creates it first
// (docs/erase-config.md, "The job queue").
import { isObj } from '../../guards.js';
import { DurationError, formatDurationMs, parseDurationMs } from '../../duration.js';

export interface RequesterLimits {
  maxJobTimeoutSeconds: number;
  maxPauseSeconds: number;
  /** Places of maxConcurrentJobs that jobs of requesters' lists hold together. */
  maxJobs: number;
  /** Names of the administrator's ImageLists. */
  administratorLists: string[];
}

export const DEFAULT_MAX_JOB_TIMEOUT_SECONDS = 6 * 3600;
export const DEFAULT_MAX_PAUSE_SECONDS = 3600;
const KEYS = ['maxJobTimeout', 'maxPause', 'administratorLists', 'maxJobs'];

/** What the bounds depend on: the rest of the administrator's configuration. */
export interface LimitsBase {
  jobTimeoutSeconds: number;
  maxConcurrentJobs: number;
  /** The configuration's default rollout pause (rollout.pause), if any. */
  rolloutPause?: string;
}

const pauseSecondsOf = (p: string | undefined): number => (p ? parseDurationMs(p, 'pause') / 1000 : 0);

/** The limits when `requesterLimits:` is absent (or leaves a key out). */
export function defaultRequesterLimits(base: LimitsBase, administratorLists: string[] = []): RequesterLimits {
  return {
    // Never below what the administrator's own defaults ask for: a list that sets nothing is fine.
    maxJobTimeoutSeconds: Math.max(DEFAULT_MAX_JOB_TIMEOUT_SECONDS, base.jobTimeoutSeconds),
    maxPauseSeconds: Math.max(DEFAULT_MAX_PAUSE_SECONDS, pauseSecondsOf(base.rolloutPause)),
    maxJobs: administratorLists.length ? Math.max(1, base.maxConcurrentJobs - 1) : base.maxConcurrentJobs,
    administratorLists,
  };
}

/** Parses `requesterLimits:`; a string is the problem (config.ts makes it a ConfigError). */
export function parseRequesterLimits(raw: unknown, base: LimitsBase): RequesterLimits | string {
  if (raw === undefined || raw === null) return defaultRequesterLimits(base);
  if (!isObj(raw))
    return 'requesterLimits: must be a mapping (maxJobTimeout, maxPause, administratorLists, maxJobs)';
  const unknown = Object.keys(raw).find((k) => !KEYS.includes(k));
  if (unknown) return `requesterLimits.${unknown}: unknown key (known: ${KEYS.join(', ')})`;
  let lists: string[] = [];
  if (raw.administratorLists !== undefined) {
    const l = raw.administratorLists;
    if (
      !Array.isArray(l) ||
      !l.every((n) => typeof n === 'string' && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n))
    )
      return `requesterLimits.administratorLists: must be a list of ImageList names, got ${JSON.stringify(l)}`;
    lists = l as string[];
    // With one place, a requester's job would hold it: the administrator's could wait hours.
    if (lists.length && base.maxConcurrentJobs < 2)
      return `requesterLimits.administratorLists: needs maxConcurrentJobs of at least 2, so that a place is kept for the administrator's lists (maxConcurrentJobs is ${base.maxConcurrentJobs})`;
  }
  const out = defaultRequesterLimits(base, lists);
  for (const [key, field, own, ownKey] of [
    ['maxJobTimeout', 'maxJobTimeoutSeconds', base.jobTimeoutSeconds, 'jobTimeout'],
    ['maxPause', 'maxPauseSeconds', pauseSecondsOf(base.rolloutPause), 'rollout.pause'],
  ] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    let seconds: number;
    try {
      seconds = parseDurationMs(String(v), `requesterLimits.${key}`) / 1000;
    } catch (e) {
      if (!(e instanceof DurationError)) throw e;
      return e.message;
    }
    if (typeof v !== 'string' || !(seconds > 0))
      return `requesterLimits.${key}: must be a duration longer than 0s, like 6h, got ${JSON.stringify(v)}`;
    if (seconds < own)
      return `requesterLimits.${key}: ${v} is shorter than the configuration's own ${ownKey} (${formatDurationMs(own * 1000)}), which every list without its own value gets`;
    out[field] = seconds;
  }
  if (raw.maxJobs !== undefined) {
    const n = raw.maxJobs;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > base.maxConcurrentJobs)
      return `requesterLimits.maxJobs: must be a whole number from 1 to maxConcurrentJobs (${base.maxConcurrentJobs}), got ${JSON.stringify(n)}`;
    out.maxJobs = n;
  }
  return out;
}

/** The limits in force: the configuration's, or the defaults for one written before they existed. */
export function limitsOf(cfg: LimitsBase & { requesterLimits?: RequesterLimits }): RequesterLimits {
  return cfg.requesterLimits ?? defaultRequesterLimits(cfg);
}

/** Whether ImageList `name` is the administrator's (requesterLimits.administratorLists). */
export const isAdministratorList = (name: string, limits: RequesterLimits): boolean =>
  limits.administratorLists.includes(name);

/** The durations a request sets, as written (a list) or as seconds (a job). */
export interface RequestDurations {
  jobTimeout?: string;
  jobTimeoutSeconds?: number;
  pause?: string;
}

/**
 * Why the administrator's bounds refuse this request of ImageList `list`, or undefined. The same
 * words at preflight, in the ImageList's status and in the refused ImageJob.
 */
export function requesterLimitProblem(
  list: string,
  req: RequestDurations,
  limits: RequesterLimits,
): string | undefined {
  if (isAdministratorList(list, limits)) return undefined;
  const over: string[] = [];
  const check = (
    what: string,
    text: string | undefined,
    seconds: number | undefined,
    max: number,
    key: string,
  ) => {
    let s = seconds;
    if (s === undefined && text !== undefined) {
      try {
        s = parseDurationMs(text, what) / 1000;
      } catch {
        return; // a bad duration is refused as such, elsewhere
      }
    }
    if (s === undefined || !(s > max)) return;
    const shown = text ?? formatDurationMs(s * 1000);
    over.push(`${what} of ${shown} is over requesterLimits.${key}, ${formatDurationMs(max * 1000)}`);
  };
  check(
    'a job timeout (--job-timeout, spec.jobTimeout)',
    req.jobTimeout,
    req.jobTimeoutSeconds,
    limits.maxJobTimeoutSeconds,
    'maxJobTimeout',
  );
  check(
    'a rollout pause (--pause, spec.rollout.pause)',
    req.pause,
    undefined,
    limits.maxPauseSeconds,
    'maxPause',
  );
  if (!over.length) return undefined;
  return `refused by the erase configuration: ${over.join('; ')} (the longest a requester's list may hold a place among maxConcurrentJobs); ask for less, or have the administrator raise the bound or name the list in requesterLimits.administratorLists`;
}
