// Timestamps as Kubernetes writes them, written once.

/** RFC 3339 in UTC with whole seconds (`2026-12-04T10:00:00Z`): metav1.Time's wire form. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The latest time a status may hold: metav1.Time is RFC 3339, four-digit years. A JS Date goes
 * to year 275760, past which it is invalid and toISOString throws ("Invalid time value"); past
 * 9999 toISOString writes a six-digit year the API server refuses.
 */
export const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/** A computed time that is not a time (NaN: an unreadable start, a duration that is not a number). */
export class InvalidTimeError extends Error {
  constructor(what: string) {
    super(`${what} is not a valid time`);
    this.name = 'InvalidTimeError';
  }
}

/**
 * `base` plus `ms`, for a time a status stores or a deadline: a sum past MAX_TIME_MS (a
 * requester's pause of 3,000,000,000 hours) is MAX_TIME_MS, so it never makes an invalid Date;
 * one that is not a number at all throws an InvalidTimeError naming `what`, which fails the job
 * with the reason instead of every reconcile throwing.
 */
export function timeAfter(base: Date | number, ms: number, what: string): Date {
  const t = (typeof base === 'number' ? base : base.getTime()) + ms;
  if (Number.isNaN(t)) throw new InvalidTimeError(what);
  return new Date(Math.max(0, Math.min(MAX_TIME_MS, t)));
}
