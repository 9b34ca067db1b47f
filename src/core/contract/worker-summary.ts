// The worker's wire contract, written once: the outcomes `inv node-remove` gives each image, how
// each counts in a node's result, and the keys of the compact summary it leaves in its
// termination message (noderemove/summary.ts writes it; ./results.ts, the requester's report and
// the renderers read it). Adding an outcome here fails to compile until it is counted
// (OUTCOME_COUNTS), painted (cli/worker/render-node-remove.ts), in docs/schemas/EraseReport.json
// and in docs/erase.md's outcomes table (test/unit/worker-summary.test.ts checks both against
// OUTCOMES). PURE.

export const OUTCOMES = [
  'removed',
  'would-remove',
  'in-use',
  'pinned',
  /** The sandbox (pause) image: the runtime's configured one, or the upstream pause image. */
  'sandbox-image',
  'excluded',
  /** A `*` prune kept it: a workload in the cluster references it (the job's protected set). */
  'protected',
  /** A threshold run (spec.imageFs): the node's image file system is under the high mark. */
  'below-threshold',
  /** A threshold run: the removals before it bring usage to the low mark. */
  'low-mark-reached',
  /** spec.minUnusedAge: not seen unused for that long yet on this node. */
  'recently-unused',
  'not-present',
  'invalid',
  'failed',
  /** Scan mode: the scanner found it vulnerable, but a keep rule holds it (detail says which). */
  'vulnerable-kept',
  /** Scan mode: a candidate the scanner did not name (or could not judge, kept by policy). */
  'clean',
  'scan-failed',
] as const;

export type Outcome = (typeof OUTCOMES)[number];

export const isOutcome = (v: unknown): v is Outcome =>
  typeof v === 'string' && (OUTCOMES as readonly string[]).includes(v);

/** The node result's count an outcome adds to (ImageJob status.nodes), or none. */
export type NodeCount = 'removed' | 'inUse' | 'excluded' | 'failed' | 'protected' | null;

export const OUTCOME_COUNTS: Record<Outcome, NodeCount> = {
  removed: 'removed',
  'would-remove': 'removed',
  'in-use': 'inUse',
  pinned: 'inUse',
  // The sandbox image is one the runtime uses (for every pod it starts).
  'sandbox-image': 'inUse',
  excluded: 'excluded',
  protected: 'protected',
  'below-threshold': null,
  'low-mark-reached': null,
  'recently-unused': null,
  'not-present': null,
  invalid: 'failed',
  failed: 'failed',
  'vulnerable-kept': null,
  clean: null,
  'scan-failed': null,
};

/**
 * One image row of the termination summary. Short keys, as the kubelet keeps 4096 bytes:
 * t=target, i=image ID, o=outcome, e=error (or the reason of protected, vulnerable-kept and the
 * trigger's outcomes; the age of a trigger's removal), n=the image's names (at most 3), s=its
 * size in bytes, v=[CVE count or null, highest severity, first CVE IDs] in scan mode.
 */
export interface SummaryRow {
  t: string;
  i: string;
  o: Outcome;
  e?: string;
  n?: string[];
  s?: number;
  v?: [number | null, string, string[]];
}

/** Scan mode's head: candidates, vulnerable, kept, CVEs, highest severity, ms, why, failures. */
export interface SummaryScan {
  c: number;
  v: number;
  k: number;
  n: number;
  s: string;
  ms: number;
  f?: string;
  x?: Record<string, number>;
}

/** The termination summary as a reader receives it: every key present or not, of any type. */
export type Untrusted<T> = { [K in keyof T]?: unknown };
