// The worker's wire contract, written once: the outcomes `inv node-remove` gives each image, with
// every fact about each in one trait table (how it counts in a node's result, whether it fails the
// run, what wins for an image, its colour...), and the keys of the compact summary it leaves in
// its termination message (noderemove/summary.ts writes it; ./results.ts, the requester's report
// and the renderers read it). An outcome is one entry of OUTCOME_TRAITS: the compiler asks for each
// of its traits, and every list of outcomes (the counts, the exit code, the summary's filters, the
// paint of the table) is made from them. test/unit/noderemove/worker-summary.test.ts checks
// docs/schemas/EraseReport.json and docs/erase.md's outcomes table against OUTCOMES. PURE.

/** The node result's count an outcome adds to (ImageJob status.nodes), or none. */
export type NodeCount = 'removed' | 'inUse' | 'excluded' | 'failed' | 'protected' | null;

/** The colours of the worker's table (cli/node-remove/render-node-remove.ts). */
export type OutcomeColour = 'green' | 'cyan' | 'yellow' | 'dim' | 'red';

export interface OutcomeTraits {
  /** The node result's count it adds to (ImageJob status.nodes), or none. */
  counts: NodeCount;
  /**
   * It fails the run: 'input' a target was invalid (exit 2, which wins), 'run' the run did not do
   * what was asked (exit 1, and the summary keeps these rows last); null it does not.
   */
  fails: 'input' | 'run' | null;
  /** Its text is an error (Result.error, the node's reason when it fails), not a reason it was kept. */
  error: boolean;
  /** Its reason travels with its row of the summary (`inv erase` shows it per image). */
  explained: boolean;
  /** A threshold or age run kept it (the summary leaves these rows out first). */
  triggerKept: boolean;
  /**
   * Which outcome an image gets when several targets matched it (`dup:latest` and
   * `docker.io/library/dup:latest`, or a name and `*`): the lowest rank; what happened to the
   * image, then why not. Equal ranks: the first target's.
   */
  rank: number;
  /** Its colour in the worker's table. */
  colour: OutcomeColour;
}

/** The rank of an outcome that never wins over another (the first target's stays). */
const LAST = 8;

/**
 * The traits shared by every outcome of an image a trigger of the run kept (the threshold, the
 * age, the scope, keep-newest): counted nowhere, not a failure, its reason shown per image, left
 * out of a full summary first, never winning over another target's outcome. Only the colour
 * differs among them, so it is declared once, and each such outcome adds its colour.
 */
const KEPT_BY_TRIGGER = {
  counts: null,
  fails: null,
  error: false,
  explained: true,
  triggerKept: true,
  rank: LAST,
} as const satisfies Omit<OutcomeTraits, 'colour'>;

/** Every outcome and its traits, in the order the docs list them. */
export const OUTCOME_TRAITS = {
  removed: {
    counts: 'removed',
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: 0,
    colour: 'green',
  },
  'would-remove': {
    counts: 'removed',
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: 1,
    colour: 'cyan',
  },
  'in-use': {
    counts: 'inUse',
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: 3,
    colour: 'yellow',
  },
  pinned: {
    counts: 'inUse',
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: 4,
    colour: 'yellow',
  },
  /**
   * The sandbox (pause) image: the runtime's configured one, or the upstream pause image. It is one
   * the runtime uses (for every pod it starts), so it counts as in use.
   */
  'sandbox-image': {
    counts: 'inUse',
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: 5,
    colour: 'dim',
  },
  excluded: {
    counts: 'excluded',
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: 6,
    colour: 'dim',
  },
  /** A `*` prune kept it: a workload in the cluster references it (the job's protected set). */
  protected: {
    counts: 'protected',
    fails: null,
    error: false,
    explained: true,
    triggerKept: false,
    rank: 7,
    colour: 'yellow',
  },
  /** A threshold run (spec.imageFs): the node's image file system is under the high mark. */
  'below-threshold': { ...KEPT_BY_TRIGGER, colour: 'dim' },
  /** A threshold run: the removals before it bring usage to the low mark. */
  'low-mark-reached': { ...KEPT_BY_TRIGGER, colour: 'dim' },
  /** spec.minUnusedAge: not seen unused for that long yet on this node. */
  'recently-unused': { ...KEPT_BY_TRIGGER, colour: 'yellow' },
  /**
   * A scoped prune (spec.scope: only, except) did not consider it: the detail names the pattern,
   * or that no `only` pattern matched. Many on a node: the summary leaves these rows out first.
   */
  'out-of-scope': { ...KEPT_BY_TRIGGER, colour: 'dim' },
  /** spec.keepNewest: among the N newest of its repository on the node (the detail gives the rank). */
  'kept-newest': { ...KEPT_BY_TRIGGER, colour: 'cyan' },
  'not-present': {
    counts: null,
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: LAST,
    colour: 'dim',
  },
  invalid: {
    counts: 'failed',
    fails: 'input',
    error: true,
    explained: false,
    triggerKept: false,
    rank: LAST,
    colour: 'red',
  },
  failed: {
    counts: 'failed',
    fails: 'run',
    error: true,
    explained: false,
    triggerKept: false,
    rank: 2,
    colour: 'red',
  },
  /** Scan mode: the scanner found it vulnerable, but a keep rule holds it (detail says which). */
  'vulnerable-kept': {
    counts: null,
    fails: null,
    error: false,
    explained: true,
    triggerKept: false,
    rank: LAST,
    colour: 'yellow',
  },
  /** Scan mode: a candidate the scanner did not name (or could not judge, kept by policy). */
  clean: {
    counts: null,
    fails: null,
    error: false,
    explained: false,
    triggerKept: false,
    rank: LAST,
    colour: 'dim',
  },
  /** Scan mode: the scanner could not judge it; kept, but the run did not do what was asked. */
  'scan-failed': {
    counts: null,
    fails: 'run',
    error: false,
    explained: false,
    triggerKept: false,
    rank: LAST,
    colour: 'dim',
  },
} as const satisfies Record<string, OutcomeTraits>;

export type Outcome = keyof typeof OUTCOME_TRAITS;

/** The traits of one outcome. */
export const traitsOf = (o: Outcome): OutcomeTraits => OUTCOME_TRAITS[o];

export const OUTCOMES = Object.keys(OUTCOME_TRAITS) as readonly Outcome[];

export const isOutcome = (v: unknown): v is Outcome =>
  typeof v === 'string' && Object.hasOwn(OUTCOME_TRAITS, v);

/** The node result's count each outcome adds to. */
export const OUTCOME_COUNTS = Object.fromEntries(OUTCOMES.map((o) => [o, traitsOf(o).counts])) as Record<
  Outcome,
  NodeCount
>;

/** The image went (or, in a dry run, would have): it counts as removed. */
export const removes = (o: Outcome): boolean => traitsOf(o).counts === 'removed';

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
