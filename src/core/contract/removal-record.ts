// The removal record's wire formats, written once: the rows of the report every worker prints on
// stdout (`inv node-remove -o json`, which the erase controller reads from the worker Pod's log
// before the Pod is deleted), and the rows an ImageJobRecord keeps of them. The termination
// message (worker-summary.ts) carries counts and the rows that fit in 4 KiB; the log carries every
// row, so the record is complete up to RECORD_IMAGES_PER_NODE. PURE.
import { cleanText } from './report-check.js';
import { isOutcome, type Outcome } from './worker-summary.js';

/** One row of the worker's `-o json` report (cli/node-remove/node-remove-data.ts writes it). */
export interface WorkerReportRow {
  target: string;
  imageId: string;
  aliases: string[];
  size: number;
  outcome: Outcome;
  error: string;
  /** Why it was kept (in-use, pinned, sandbox-image, excluded, protected); '' for an error. */
  reason: string;
}

/** One image of a node's record: what happened to it and why, as the worker reported it. */
export interface RecordRow {
  /** The image's ID ('' when the target matched no image). */
  id: string;
  /** Its names (tags, digest refs), as many as RECORD_NAMES. */
  names: string[];
  outcome: Outcome;
  /** Bytes, as the node's runtime listed the image. */
  size: number;
  /** The target that matched it (`*` for a prune). */
  target: string;
  /** The error (failed, invalid) or the reason it was kept; absent when there is none. */
  reason?: string;
}

/** Every row of a node is recorded up to this many; the rest are counted (`beyond`). */
export const RECORD_IMAGES_PER_NODE = 5000;
/** Names kept per image; an image with more is rare (its other names are in the worker's log). */
export const RECORD_NAMES = 8;
/** The longest name, target or reason kept, in characters. */
export const RECORD_TEXT = 512;
/**
 * Rows per ImageJobRecord object are cut at this many serialised bytes, so one object stays far
 * under etcd's 1.5 MiB request limit whatever the names' lengths (8 names of 512 characters is
 * the worst row, about 4.6 KiB).
 */
export const RECORD_PART_BYTES = 256 * 1024;

/** What the controller made of a worker's log. */
export interface ParsedWorkerLog {
  rows: RecordRow[];
  /** Rows past RECORD_IMAGES_PER_NODE: counted, not kept. */
  beyond: number;
  /** Why no row could be read ('' when they were). */
  problem: string;
}

const text = (v: unknown): string => (typeof v === 'string' ? cleanText(v, RECORD_TEXT) : '');
const size = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);

/** A row of the report as untrusted input (the log is the node's) made into a record row. */
export function recordRow(raw: unknown): RecordRow | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (!isOutcome(r.outcome)) return undefined;
  const names = Array.isArray(r.aliases)
    ? r.aliases
        .filter((a): a is string => typeof a === 'string' && a !== r.imageId)
        .slice(0, RECORD_NAMES)
        .map(text)
    : [];
  const reason = text(r.error) || text(r.reason);
  return {
    id: text(r.imageId),
    names,
    outcome: r.outcome,
    size: size(r.size),
    target: text(r.target),
    ...(reason ? { reason } : {}),
  };
}

/**
 * The rows of a worker's log: the `-o json` report is the last thing the worker writes to stdout,
 * one object that opens with a line `{` alone (warnings go to stderr before it, and the Pod log
 * interleaves the two streams by line).
 */
export function parseWorkerLog(log: string): ParsedWorkerLog {
  const start = log.search(/^\{$/m);
  if (start < 0) return { rows: [], beyond: 0, problem: 'the log holds no report' };
  let doc: { results?: unknown };
  try {
    doc = JSON.parse(log.slice(start)) as { results?: unknown };
  } catch (e) {
    return { rows: [], beyond: 0, problem: `the report in the log is not JSON: ${(e as Error).message}` };
  }
  if (!Array.isArray(doc?.results)) return { rows: [], beyond: 0, problem: 'the report has no results' };
  const rows: RecordRow[] = [];
  let beyond = 0;
  for (const raw of doc.results) {
    const row = recordRow(raw);
    if (!row) continue;
    if (rows.length < RECORD_IMAGES_PER_NODE) rows.push(row);
    else beyond++;
  }
  return { rows, beyond, problem: '' };
}

/** The rows cut into parts of at most RECORD_PART_BYTES serialised (always at least one part). */
export function recordParts(rows: readonly RecordRow[], maxBytes = RECORD_PART_BYTES): RecordRow[][] {
  const parts: RecordRow[][] = [[]];
  let bytes = 0;
  for (const r of rows) {
    const n = Buffer.byteLength(JSON.stringify(r)) + 1;
    if (bytes + n > maxBytes && parts.at(-1)!.length > 0) {
      parts.push([]);
      bytes = 0;
    }
    parts.at(-1)!.push(r);
    bytes += n;
  }
  return parts;
}
