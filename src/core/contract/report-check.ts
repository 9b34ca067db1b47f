// A worker's termination message is input from a node: a worker image that is not ours, a
// runtime that garbles it, or anyone who can write a container's termination log. Before any of
// it reaches ImageJob status (whose count fields are integers: one 0.5 makes every status write
// of the job fail with 422) or a terminal (`inv erase status`), its numbers must be whole and
// bounded and its strings bounded and free of control characters. A report that fails the check
// fails its node with the reason; it never reaches the job's status as it is.

import { isObj } from '../guards.js';

/** More images than any node holds; a count above it is not a count. */
export const MAX_COUNT = 1_000_000;

/** Why `v`, named `what`, is not a whole number from 0 to `max`; undefined when it is one. */
export function countProblem(what: string, v: unknown, max = MAX_COUNT): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
    return `${what} is ${cleanText(JSON.stringify(v) ?? String(v), 24)}, not a whole number from 0 to ${max}`;
  return undefined;
}

interface SummaryNumbers {
  counts?: unknown;
  bytes?: unknown;
  scan?: unknown;
}

/** The first problem with a summary's numbers, or undefined when they are all whole and bounded. */
export function summaryProblem(s: SummaryNumbers): string | undefined {
  for (const [k, v] of Object.entries(isObj(s.counts) ? s.counts : {})) {
    const p = countProblem(`counts.${cleanText(k, 32)}`, v);
    if (p) return p;
  }
  const bytes = countProblem('bytes', s.bytes, Number.MAX_SAFE_INTEGER);
  if (bytes) return bytes;
  if (isObj(s.scan)) {
    for (const k of ['v', 'k', 'n', 'ms'] as const) {
      const p = countProblem(`scan.${k}`, s.scan[k], k === 'ms' ? Number.MAX_SAFE_INTEGER : MAX_COUNT);
      if (p) return p;
    }
    const x = s.scan.x;
    if (x !== undefined && !isObj(x)) return 'scan.x is not an object of counts';
    for (const [k, v] of Object.entries(isObj(x) ? x : {})) {
      const p = countProblem(`scan.x.${cleanText(k, 32)}`, v);
      if (p) return p;
    }
  }
  return undefined;
}

// Escape sequences (CSI, OSC and the rest of ESC's forms) first, so their parameters go with
// them; then every other C0 and C1 control character and DEL.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ESCAPES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** `s` with escape sequences and control characters removed, white space folded, at most `max` characters. */
export function cleanText(s: string, max: number): string {
  const clean = s.replace(ESCAPES, '').replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
