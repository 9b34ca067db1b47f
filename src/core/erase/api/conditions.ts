// Status conditions of ImageJobs and ImageLists, as the Kubernetes API conventions describe
// them: a list keyed by type, each with status True/False/Unknown, a CamelCase reason, a
// message, the generation it was computed for, and lastTransitionTime, which changes only when
// the status does. Pure: the status and the clock in, the conditions out.
//
// ImageJob:  Progressing  True while it runs (reason Queued, Planned, Applying, Observing), False
//                         when done;
//            Complete     True once Completed (enough nodes succeeded);
//            Failed       True once Failed (with why).
// ImageList: Accepted     False (reason Rejected) when its current generation was refused as a
//                         bad request or configuration, True otherwise;
//            Succeeded    the last job's result: True (Completed), False (Failed), Unknown (running).
import { rfc3339 } from '../../timestamps.js';
import type { Condition, ImageJobStatus, ImageListStatus } from './types.js';

export type { Condition } from './types.js';

const iso = rfc3339;

/** Sets one condition in place, keeping lastTransitionTime when its status did not change. */
export function setCondition(
  conditions: Condition[],
  c: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const message = c.message.slice(0, 1000);
  const i = conditions.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? conditions[i] : undefined;
  const next: Condition = {
    ...c,
    message,
    lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : iso(now),
  };
  // Unchanged: keep the object as read. The API server writes a custom resource's fields in
  // sorted order, so a rebuilt object with equal values would still compare as a change.
  if (prev && sameCondition(prev, next)) return conditions;
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  return conditions;
}

const FIELDS = ['type', 'status', 'reason', 'message', 'observedGeneration', 'lastTransitionTime'] as const;
const sameCondition = (a: Condition, b: Condition): boolean => FIELDS.every((f) => a[f] === b[f]);

/** The ImageJob's conditions for its current status. */
export function jobConditions(
  st: ImageJobStatus,
  generation: number | undefined,
  step: 'Queued' | 'Planned' | 'Applying' | 'Observing',
  now: Date,
): Condition[] {
  const out = [...(st.conditions ?? [])];
  const g = generation;
  const done = st.phase === 'Completed' || st.phase === 'Failed';
  setCondition(
    out,
    {
      type: 'Progressing',
      status: done ? 'False' : 'True',
      reason: done ? 'Finished' : step,
      message: done ? `job ${st.phase}` : (st.message ?? ''),
      observedGeneration: g,
    },
    now,
  );
  setCondition(
    out,
    {
      type: 'Complete',
      status: st.phase === 'Completed' ? 'True' : 'False',
      reason:
        st.phase === 'Completed'
          ? 'SuccessRatioMet'
          : done
            ? 'SuccessRatioNotMet'
            : st.phase === 'Queued'
              ? 'Queued'
              : 'Running',
      message: done ? counts(st) : '',
      observedGeneration: g,
    },
    now,
  );
  const refused = st.phase === 'Failed' && !st.planned;
  setCondition(
    out,
    {
      type: 'Failed',
      status: st.phase === 'Failed' ? 'True' : 'False',
      reason: st.phase !== 'Failed' ? 'NotFailed' : refused ? 'Refused' : 'SuccessRatioNotMet',
      message: st.phase === 'Failed' ? (st.message ?? counts(st)) : '',
      observedGeneration: g,
    },
    now,
  );
  return out;
}

const counts = (st: ImageJobStatus) =>
  `${st.succeeded ?? 0} succeeded, ${st.failed ?? 0} failed, ${st.skipped ?? 0} skipped of ${st.desired ?? 0} node(s)`;

/** The ImageList's conditions for its current status. */
export function listConditions(st: ImageListStatus, generation: number, now: Date): Condition[] {
  const out = [...(st.conditions ?? [])];
  const rejected = st.phase === 'Error';
  setCondition(
    out,
    {
      type: 'Accepted',
      status: rejected ? 'False' : 'True',
      reason: rejected ? 'Rejected' : 'Accepted',
      message: rejected ? (st.message ?? '') : '',
      observedGeneration: generation,
    },
    now,
  );
  if (st.lastJob && !rejected) {
    const s = st.phase === 'Completed' ? 'True' : st.phase === 'Failed' ? 'False' : 'Unknown';
    setCondition(
      out,
      {
        type: 'Succeeded',
        status: s,
        reason:
          st.phase === 'Completed' ? 'JobCompleted' : st.phase === 'Failed' ? 'JobFailed' : 'JobRunning',
        message: `job ${st.lastJob}: ${st.message ?? ''}`.trim(),
        observedGeneration: generation,
      },
      now,
    );
  }
  return out;
}
