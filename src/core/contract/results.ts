// Per-node results of a job: read from each worker Pod's termination message (the compact
// summary `inv node-remove` writes, see src/core/noderemove/summary.ts), stored in ImageJob
// status as one object per node (node-status.ts), and folded into the job's counts and phase.
import { triggerResult } from './trigger-results.js';
import { cleanText, summaryProblem } from './report-check.js';
import { isScanFailureReason, type ScanFailureCounts } from './scan-failures.js';
import {
  isOutcome,
  OUTCOME_COUNTS,
  OUTCOMES as IMAGE_OUTCOMES,
  traitsOf,
  type SummaryRow,
  type SummaryScan,
  type Untrusted,
} from './worker-summary.js';
import { isNodeOutcome, nodeTraitsOf, type NodeOutcome } from './node-outcomes.js';
import { readFreed, type NotMeasured } from './freed-space.js';

export interface NodeResult {
  node: string;
  outcome: NodeOutcome;
  /** Images removed (would-remove in a dry run). */
  removed: number;
  /** Kept because in use or pinned. */
  inUse: number;
  excluded: number;
  /** Targets that failed (failed or invalid). */
  failed: number;
  /** Kept by the inventory's protection (a `*` prune only). */
  protected: number;
  /** Bytes the removed images took (would take, in a dry run), as the node's runtime listed them. */
  bytes: number;
  /**
   * A real run that removed images: bytes freed as the runtime measured its image file system
   * (usage before minus after; freed-space.ts). Absent when not measured (freedNotMeasured says why).
   */
  bytesMeasured?: number;
  /** Why bytesMeasured is absent although images were removed. */
  freedNotMeasured?: NotMeasured;
  /** Why a node failed or was skipped; '' otherwise. */
  reason: string;
  /** Scan mode: images removed (would be) because the scanner named them; absent otherwise. */
  vulnerable?: number;
  /** Scan mode: images the scanner named that a keep rule held (in use, pinned, excluded...). */
  vulnerableKept?: number;
  /** Scan mode: CVEs over those images, as far as the scanner counted them. */
  cves?: number;
  /** Scan mode: the highest severity among them ('' unknown). */
  highestSeverity?: string;
  /** Scan mode: how long the scanner took to answer, in milliseconds. */
  scanMs?: number;
  /**
   * Scan mode: images the scanner could not judge (kept, unless deleteFailedImages); any makes
   * the node Failed. Only scanners that say so (inv's) are counted here.
   */
  scanFailed?: number;
  /** Those images by reason code (scan-failures.ts), for the metric. */
  scanFailures?: ScanFailureCounts;
  /**
   * A threshold run (spec.imageFs): the share of the image file system the node's images took
   * before and (estimated) after, in hundredths of a percent (8120 = 81.20%): two small numbers
   * per node, so a 5,000-node job stays within its status budget (the bytes are in the worker's
   * report). Absent otherwise.
   */
  imageFsBefore?: number;
  imageFsAfter?: number;
  /** Kept by the trigger: under the high mark or past the low mark (below-threshold, low-mark-reached). */
  belowThreshold?: number;
  /** Kept by spec.minUnusedAge (recently-unused). */
  recentlyUnused?: number;
}

export const pendingResult = (node: string): NodeResult => ({
  node,
  outcome: 'Pending',
  removed: 0,
  inUse: 0,
  excluded: 0,
  failed: 0,
  protected: 0,
  bytes: 0,
  reason: '',
});

/** The longest reason kept for one node. */
export const MAX_REASON = 200;
/** Reasons of all nodes together: what keeps a job of 5,000 failing nodes under 1 MiB. */
export const REASONS_BUDGET = 96 * 1024;

/**
 * The line format of status.nodes before it held objects (still read from old ImageJobs):
 * `node|outcome|removed|inUse|excluded|failed|protected|bytes|reason` ('|' and newlines in
 * reasons are replaced, so a line always has exactly 9 fields; lines of 7 fields, written before
 * protected and bytes existed, are still read).
 */
export function encodeResult(r: NodeResult, maxReason = MAX_REASON): string {
  const reason = r.reason.replace(/[|\n\r]/g, ' ').slice(0, maxReason);
  return [r.node, r.outcome, r.removed, r.inUse, r.excluded, r.failed, r.protected, r.bytes, reason].join(
    '|',
  );
}

export function decodeResult(line: string): NodeResult {
  const f = line.split('|');
  if ((f.length !== 7 && f.length !== 9) || !isNodeOutcome(f[1]))
    throw new Error(`malformed node result ${JSON.stringify(line)}`);
  const num = (s: string | undefined) => {
    const n = Number(s);
    return Number.isSafeInteger(n) && n >= 0 ? n : 0;
  };
  const long = f.length === 9;
  return {
    node: f[0]!,
    outcome: f[1] as NodeOutcome,
    removed: num(f[2]),
    inUse: num(f[3]),
    excluded: num(f[4]),
    failed: num(f[5]),
    protected: long ? num(f[6]) : 0,
    bytes: long ? num(f[7]) : 0,
    reason: f[long ? 8 : 6]!,
  };
}

interface Summary {
  node?: unknown;
  fs?: unknown;
  fm?: unknown;
  counts?: Record<string, unknown>;
  bytes?: unknown;
  scan?: Untrusted<SummaryScan>;
  results?: Untrusted<SummaryRow>[];
}

/** What a finished worker Pod tells us. */
export interface PodOutcome {
  phase: 'Succeeded' | 'Failed';
  exitCode?: number;
  message?: string;
  reason?: string;
}

const count = (c: Record<string, unknown>, ...keys: string[]) =>
  keys.reduce((n, k) => n + (typeof c[k] === 'number' ? (c[k] as number) : 0), 0);

/**
 * Turns a finished worker's termination message into the node's result. A message that is not
 * the worker's summary (the worker crashed, could not reach the runtime, OOM...) still gives a
 * result: Failed with the best reason available.
 */
export function resultFromPod(node: string, pod: PodOutcome): NodeResult {
  const r = pendingResult(node);
  let summary: Summary | undefined;
  const text = pod.message?.trim() ?? '';
  if (text.startsWith('{')) {
    try {
      summary = JSON.parse(text) as Summary;
    } catch {
      summary = undefined;
    }
  }
  // Numbers that are not whole and bounded fail the node: they would fail every status write of
  // the job (its count fields are integers) and cannot be counted (report-check.ts).
  const problem = summary && typeof summary === 'object' ? summaryProblem(summary) : undefined;
  if (problem) {
    r.outcome = 'Failed';
    r.reason = cleanText(`the worker's report is invalid: ${problem}`, MAX_REASON);
    return r;
  }
  if (summary && summary.counts && typeof summary.counts === 'object') {
    const c = summary.counts;
    // Each outcome adds to one count, as the contract says (worker-summary.ts).
    for (const o of IMAGE_OUTCOMES) {
      const into = OUTCOME_COUNTS[o];
      if (into) r[into] += count(c, o);
    }
    const b = summary.bytes;
    r.bytes = typeof b === 'number' && Number.isSafeInteger(b) && b >= 0 ? b : 0;
    Object.assign(r, readFreed(summary.fm));
    const sc = summary.scan;
    if (sc && typeof sc === 'object') {
      const n = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);
      r.vulnerable = n(sc.v);
      r.vulnerableKept = n(sc.k);
      r.cves = n(sc.n);
      r.highestSeverity = typeof sc.s === 'string' ? cleanText(sc.s, 16) : '';
      r.scanMs = n(sc.ms);
      if (sc.x && typeof sc.x === 'object') {
        const x: ScanFailureCounts = {};
        for (const [k, v] of Object.entries(sc.x as Record<string, unknown>)) {
          const reason = isScanFailureReason(k) ? k : 'other';
          if (n(v)) x[reason] = (x[reason] ?? 0) + n(v);
        }
        const total = Object.values(x).reduce((a, b) => a + b, 0);
        if (total) {
          r.scanFailed = total;
          r.scanFailures = x;
        }
      }
    }
    Object.assign(r, triggerResult(c, summary.fs));
  }
  if (pod.phase === 'Succeeded' && r.failed === 0 && !r.scanFailed) {
    r.outcome = 'Succeeded';
    return r;
  }
  r.outcome = 'Failed';
  const results = Array.isArray(summary?.results) ? summary.results : [];
  const firstError = results.find((x) => x && isOutcome(x.o) && traitsOf(x.o).error);
  const firstScan = results.find((x) => x && x.o === 'scan-failed');
  let reason: string;
  if (firstError) {
    reason = `${String(firstError.o)} ${String(firstError.t)}: ${String(firstError.e ?? '')}`;
  } else if (r.scanFailed) {
    // Not a plain success: the scanner could not judge these images (kept unless the policy
    // says otherwise); the first one's reason is the scanner's.
    const n = r.scanFailed;
    reason = `${n} image${n === 1 ? '' : 's'} could not be scanned (kept unless deleteFailedImages)${firstScan?.e ? `: ${String(firstScan.e)}` : ''}`;
  } else if (text && !summary) {
    reason = text.split('\n').filter(Boolean).pop()!;
  } else {
    reason = pod.reason || (pod.exitCode !== undefined ? `exit code ${pod.exitCode}` : 'worker failed');
  }
  // From the node: no escape sequence or control character reaches a status or a terminal.
  r.reason = cleanText(reason, MAX_REASON);
  return r;
}

export interface JobCounts {
  desired: number;
  succeeded: number;
  failed: number;
  skipped: number;
  pending: number;
  /** Over every node: images removed (or would be), kept by protection, bytes freed (or would be). */
  removed: number;
  protected: number;
  bytes: number;
  /** Over the nodes where the runtime measured it: bytes freed, and those nodes' estimate. */
  bytesMeasured: number;
  bytesMeasuredEstimate: number;
  /** Nodes that removed images but whose freed space was not measured. */
  freedNotMeasured: number;
}

/**
 * `a + b`, at most Number.MAX_SAFE_INTEGER: each node's bytes are bounded (report-check.ts), but
 * 1,025 nodes at that bound sum past int64, which the status's integer fields cannot hold (every
 * status write of the job would be refused with 422). A total at the bound reads "at least".
 */
export const saturatingAdd = (a: number, b: number): number => Math.min(Number.MAX_SAFE_INTEGER, a + b);

export function countResults(results: readonly NodeResult[]): JobCounts {
  const c: JobCounts = {
    desired: results.length,
    succeeded: 0,
    failed: 0,
    skipped: 0,
    pending: 0,
    removed: 0,
    protected: 0,
    bytes: 0,
    bytesMeasured: 0,
    bytesMeasuredEstimate: 0,
    freedNotMeasured: 0,
  };
  for (const r of results) {
    if (r.bytesMeasured !== undefined) {
      c.bytesMeasured = saturatingAdd(c.bytesMeasured, r.bytesMeasured);
      c.bytesMeasuredEstimate = saturatingAdd(c.bytesMeasuredEstimate, r.bytes);
    } else if (r.freedNotMeasured) c.freedNotMeasured++;
    c.removed = saturatingAdd(c.removed, r.removed);
    c.protected = saturatingAdd(c.protected, r.protected);
    c.bytes = saturatingAdd(c.bytes, r.bytes);
    // An outcome this version does not know waits, as it always did.
    c[isNodeOutcome(r.outcome) ? nodeTraitsOf(r.outcome).counts : 'pending']++;
  }
  return c;
}

/**
 * Completed when (succeeded + skipped) / desired >= successRatio, in real (floating-point)
 * division: 1 of 2 nodes is 0.5, which passes a ratio of 0.5 and fails 0.51. A job with no
 * desired node has nothing to fail and is Completed.
 */
export function jobPhase(c: JobCounts, successRatio: number): 'Completed' | 'Failed' {
  if (c.desired === 0) return 'Completed';
  return (c.succeeded + c.skipped) / c.desired >= successRatio ? 'Completed' : 'Failed';
}
