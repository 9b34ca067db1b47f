// PURE: when a scheduled ImageList runs. The schedule is a function of the cron expression, the
// time zone and the wall clock; all the memory it needs lives in the list's status
// (lastScheduleTime, the last skipped tick, and since when the current schedule counts). A
// decision takes the clock in and gives the next step out, so a daemon restart, a leader change or
// a long outage re-derives the same ticks instead of restarting a timer: nothing here drifts.
//
// The semantics follow the CronJob controller's, with three deliberate differences, all failing
// towards "remove nothing":
//   - a run still going when a tick comes never gets a second one, and the tick is not run later
//     either: it is recorded as skipped (reason JobRunning);
//   - ticks before the controller first saw the schedule (or a changed one, or the end of a
//     suspension) never run: adding `0 3 * * *` at 15:00 waits for tomorrow 03:00 instead of
//     running "today's missed 03:00" at once;
//   - the default time zone is UTC, not the controller's local zone, so daemons on machines with
//     different zones agree on every tick.
//
// Cron expressions are parsed by croner (zero dependencies, IANA zones through Intl, explicit DST
// rules); this module only narrows what it accepts to the standard 5 fields.
import { rfc3339 } from '../../timestamps.js';
import { Cron } from 'croner';

export const DEFAULT_TIME_ZONE = 'UTC';
/** Look again at least this often, even when the next tick is further away (timers cap at ~24 days). */
export const MAX_REQUEUE_MS = 3_600_000;
/** Missed ticks are counted up to this many, for the message only. */
const MAX_COUNTED = 1000;

export interface ScheduleSpec {
  schedule: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  suspend?: boolean;
}

/** Why a tick did not start a job. */
export type SkipReason = 'JobRunning' | 'MissedDeadline' | 'Rejected';

export interface SkippedTick {
  scheduleTime: string;
  reason: SkipReason;
  message: string;
}

/**
 * The schedule the ticks are counted for and since when: ticks before `since` never run. A
 * suspension keeps it (marked), and its end restarts `since`.
 */
export interface ObservedSchedule {
  schedule: string;
  timeZone: string;
  since: string;
  suspended?: boolean;
}

export interface ScheduleStatus {
  lastScheduleTime?: string;
  nextScheduleTime?: string;
  lastSkipped?: SkippedTick;
  observedSchedule?: ObservedSchedule;
}

export class ScheduleError extends Error {}

const FIELDS = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
const NUMERIC_ITEM = /^(\*|\d+)(-\d+)?(\/\d+)?$/;
const NAMED_ITEM = /^(\*|\d+|[a-z]{3})(-(\d+|[a-z]{3}))?(\/\d+)?$/i;
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

export const iso = rfc3339;

function checkTimeZone(tz: string): void {
  let known = ZONE_NAME.test(tz);
  if (known) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
    } catch {
      known = false;
    }
  }
  if (!known)
    throw new ScheduleError(
      `timeZone "${tz}": must be an IANA time zone name known to Node.js's time zone database (e.g. UTC, Europe/Berlin, America/New_York)`,
    );
}

/**
 * The parsed schedule, or a ScheduleError naming the bad value and the rule. Only the standard
 * 5 fields (minute hour day-of-month month day-of-week) with numbers, `*`, ranges, lists, steps
 * and month/day names are accepted: croner's extensions (seconds, years, L, W, #, ?) are not,
 * because a CronJob would not accept them either.
 */
export function parseSchedule(schedule: string, timeZone = DEFAULT_TIME_ZONE): Cron {
  checkTimeZone(timeZone);
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5)
    throw new ScheduleError(
      `schedule "${schedule}": a cron expression has exactly 5 fields (minute hour day-of-month month day-of-week), found ${fields.length}`,
    );
  fields.forEach((f, i) => {
    const item = i === 3 || i === 4 ? NAMED_ITEM : NUMERIC_ITEM;
    if (!f.split(',').every((part) => item.test(part)))
      throw new ScheduleError(
        `schedule "${schedule}": ${FIELDS[i]} field "${f}": only numbers, *, ranges (a-b), lists (a,b) and steps (/n)${i >= 3 ? ' and 3-letter names' : ''} are allowed`,
      );
  });
  let cron: Cron;
  try {
    cron = new Cron(fields.join(' '), {
      timezone: timeZone,
      mode: '5-part',
      // A time in a daylight-saving gap runs once right after the gap, a time that occurs twice
      // runs once, for every job without a wildcard or step in minute and hour (as Vixie cron
      // does); `*/15 * * * *` and the like keep their wall-clock interval instead.
      fixedTimeRule: 'no-wildcard',
      paused: true,
    });
  } catch (e) {
    throw new ScheduleError(`schedule "${schedule}": ${(e as Error).message.replace(/^CronPattern: /, '')}`);
  }
  if (!cron.nextRun(new Date(0)))
    throw new ScheduleError(`schedule "${schedule}": matches no date (e.g. the 31st of a 30-day month)`);
  return cron;
}

/** Every problem of the spec's schedule fields, each naming the bad value; empty when valid. */
export function scheduleProblems(spec: ScheduleSpec): string[] {
  const out: string[] = [];
  try {
    parseSchedule(spec.schedule, spec.timeZone);
  } catch (e) {
    out.push((e as Error).message);
  }
  const d = spec.startingDeadlineSeconds;
  if (d !== undefined && !(Number.isInteger(d) && d >= 1))
    out.push(`startingDeadlineSeconds ${d}: must be a whole number of seconds, at least 1`);
  return out;
}

/** The first tick strictly after `after`. */
export function nextTick(spec: ScheduleSpec, after: Date): Date | undefined {
  return parseSchedule(spec.schedule, spec.timeZone).nextRun(after) ?? undefined;
}

export interface ScheduleInput {
  now: Date;
  spec: ScheduleSpec;
  status: ScheduleStatus;
  /** A job of this list that has not finished yet, if any (scheduled or not). */
  running?: string;
  /** That job has not started yet (phase Queued): the skip says so instead of "still running". */
  runningQueued?: boolean;
  /**
   * Whether a job for this tick exists already: a controller killed between creating it and
   * recording lastScheduleTime left it behind; it is adopted, never started twice.
   */
  jobExists: (tick: Date) => boolean;
}

export interface ScheduleDecision {
  /** The schedule part of the status to write (lastScheduleTime is set by recordStart). */
  status: ScheduleStatus;
  /** Start (or adopt, when it exists) the job of this tick. */
  start?: { tick: Date; existing: boolean; missed: number };
  /** This tick does not run. */
  skip?: SkippedTick;
  /** Look again after this long (the next tick, capped). */
  requeueMs?: number;
}

const later = (...ds: (string | undefined)[]): number =>
  Math.max(...ds.map((d) => (d ? Date.parse(d) : -Infinity)).filter((n) => !Number.isNaN(n)));

/** What a scheduled list does now. Throws ScheduleError when the spec is invalid. */
export function decide(input: ScheduleInput): ScheduleDecision {
  const { now, spec } = input;
  const tz = spec.timeZone ?? DEFAULT_TIME_ZONE;
  const problems = scheduleProblems(spec);
  if (problems.length) throw new ScheduleError(problems.join('; '));
  const cron = parseSchedule(spec.schedule, tz);
  const status: ScheduleStatus = { ...input.status };

  const seen = status.observedSchedule;
  const same = seen && seen.schedule === spec.schedule && seen.timeZone === tz;
  if (spec.suspend) {
    // Paused: no next tick, and the counting restarts on resume, so the ticks of the
    // suspension never run afterwards.
    delete status.nextScheduleTime;
    status.observedSchedule = {
      schedule: spec.schedule,
      timeZone: tz,
      since: seen?.since ?? iso(now),
      suspended: true,
    };
    return { status };
  }
  if (!same || seen.suspended)
    status.observedSchedule = { schedule: spec.schedule, timeZone: tz, since: iso(now) };

  const next = cron.nextRun(now) ?? undefined;
  if (next) status.nextScheduleTime = iso(next);
  else delete status.nextScheduleTime;
  const requeueMs = Math.min(MAX_REQUEUE_MS, next ? Math.max(0, next.getTime() - now.getTime()) : Infinity);

  // The latest tick at or before now (croner's previousRuns excludes a run at the reference
  // itself, hence the extra millisecond), and whether it is new.
  const tick = cron.previousRuns(1, new Date(now.getTime() + 1))[0];
  const earliest = later(
    status.lastScheduleTime,
    status.lastSkipped?.scheduleTime,
    status.observedSchedule!.since,
  );
  if (!tick || tick.getTime() <= earliest) return { status, requeueMs };

  if (input.jobExists(tick)) return { status, start: { tick, existing: true, missed: 0 }, requeueMs };
  let missed = 0;
  if (Number.isFinite(earliest))
    for (const t of cron.enumerate(new Date(earliest))) {
      if (t.getTime() >= tick.getTime() || ++missed >= MAX_COUNTED) break;
    }
  const late = Math.floor((now.getTime() - tick.getTime()) / 1000);
  if (spec.startingDeadlineSeconds !== undefined && late > spec.startingDeadlineSeconds) {
    return {
      status,
      requeueMs,
      skip: {
        scheduleTime: iso(tick),
        reason: 'MissedDeadline',
        message: `the run of ${iso(tick)} is ${late}s late, past startingDeadlineSeconds ${spec.startingDeadlineSeconds}`,
      },
    };
  }
  if (input.running) {
    return {
      status,
      requeueMs,
      skip: {
        scheduleTime: iso(tick),
        reason: 'JobRunning',
        message: `job ${input.running} ${input.runningQueued ? 'has not started yet (Queued)' : 'is still running'}; the run of ${iso(tick)} is skipped, not doubled`,
      },
    };
  }
  return { status, start: { tick, existing: false, missed }, requeueMs };
}

/** The status after the job of `tick` was started (or adopted). */
export function recordStart(status: ScheduleStatus, tick: Date): ScheduleStatus {
  return { ...status, lastScheduleTime: iso(tick) };
}

/** The status after `skip`; a skipped tick is never run later. */
export function recordSkip(status: ScheduleStatus, skip: SkippedTick): ScheduleStatus {
  return { ...status, lastSkipped: skip };
}
