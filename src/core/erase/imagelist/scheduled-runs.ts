// One reconcile of a scheduled ImageList (spec.schedule set): the glue between the pure
// decision (schedule.ts) and the ImageList controller. Generations start no job here; ticks do,
// each under a name that follows from the tick (scheduledJobName), so a job created by a
// controller that died before recording it is adopted on the next reconcile, never doubled.
// Returns when to look again: the next tick, which the work queue's addAfter brings back,
// so nothing ever sleeps and nothing depends on when the process started.
import type { Logger } from '../../observability/logger.js';
import {
  decide,
  DEFAULT_TIME_ZONE,
  iso,
  recordSkip,
  recordStart,
  ScheduleError,
  type SkippedTick,
} from '../spec/schedule.js';
import {
  isFinished,
  SCHEDULE_TIME_ANNOTATION,
  shownPhase,
  scheduledJobName,
  type ImageJob,
  type ImageList,
  type ImageListStatus,
} from '../api/types.js';

export interface ScheduledRunContext {
  list: ImageList;
  /** Every ImageJob of this list (this UID). */
  jobs: ImageJob[];
  /** The status being built; updated in place. */
  status: ImageListStatus;
  now: Date;
  /** Creates (or finds) the named job and copies it into the status; a problem text on bad input. */
  startJob: (run: { name: string; annotations: Record<string, string> }) => Promise<string | undefined>;
  /** Copies a job's phase and counts into the status. */
  copy: (job: ImageJob) => void;
  /** Reports a skipped tick (an Event); never throws. */
  reportSkip: (skip: SkippedTick) => Promise<void>;
  log: Logger;
}

export async function reconcileScheduled(ctx: ScheduledRunContext): Promise<number | undefined> {
  const { list, jobs, status, now, log } = ctx;
  const running = jobs.filter((j) => !isFinished(j.status?.phase));
  // The list shows its latest job: the one still running, else the last one it started.
  const shown = running[0] ?? jobs.find((j) => j.metadata.name === status.lastJob);
  if (shown) ctx.copy(shown);
  else if (status.phase === 'Error' && status.observedGeneration !== list.metadata.generation) {
    // A new generation (a fixed schedule or request) clears a rejection; the next tick runs.
    delete status.phase;
    delete status.message;
  }

  let decision;
  try {
    decision = decide({
      now,
      spec: { ...list.spec, schedule: list.spec.schedule! },
      status,
      running: running[0]?.metadata.name,
      runningQueued: running[0] ? shownPhase(running[0].status) === 'Queued' : undefined,
      jobExists: (tick) => jobs.some((j) => j.metadata.annotations?.[SCHEDULE_TIME_ANNOTATION] === iso(tick)),
    });
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    // A bad schedule runs nothing; fixing it (a new generation) brings the list back. It is
    // still marked as observed, so that removing it is not taken for a one-off request either.
    const seen = { schedule: list.spec.schedule!, timeZone: list.spec.timeZone ?? DEFAULT_TIME_ZONE };
    const o = status.observedSchedule;
    if (o?.schedule !== seen.schedule || o.timeZone !== seen.timeZone)
      status.observedSchedule = { ...seen, since: iso(now) };
    delete status.nextScheduleTime;
    status.phase = 'Error';
    status.message = e.message;
    status.timestamp = iso(now);
    log.warn('schedule rejected', { imagelist: list.metadata.name, error: e.message });
    return undefined;
  }
  Object.assign(status, decision.status);
  if (!decision.status.nextScheduleTime) delete status.nextScheduleTime;

  let skip = decision.skip;
  if (decision.start) {
    const { tick, existing, missed } = decision.start;
    const name = scheduledJobName(list, tick);
    const found = jobs.find((j) => j.metadata.annotations?.[SCHEDULE_TIME_ANNOTATION] === iso(tick));
    if (found) ctx.copy(found);
    const problem = found
      ? undefined
      : await ctx.startJob({ name, annotations: { [SCHEDULE_TIME_ANNOTATION]: iso(tick) } });
    if (problem) {
      skip = { scheduleTime: iso(tick), reason: 'Rejected', message: problem };
      status.phase = 'Error';
      status.message = problem;
      status.timestamp = iso(now);
    } else {
      Object.assign(status, recordStart(status, tick));
      log.info(existing ? 'scheduled run adopted' : 'scheduled run started', {
        imagelist: list.metadata.name,
        job: found?.metadata.name ?? name,
        scheduleTime: iso(tick),
        ...(missed ? { missedTicks: missed } : {}),
      });
    }
  }
  if (skip) {
    Object.assign(status, recordSkip(status, skip));
    log.warn('scheduled run skipped', {
      imagelist: list.metadata.name,
      scheduleTime: skip.scheduleTime,
      reason: skip.reason,
      message: skip.message,
    });
    await ctx.reportSkip(skip);
  }
  return decision.requeueMs;
}
