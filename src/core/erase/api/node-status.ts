// How per-node results are stored in ImageJob status: `status.nodes` is a list of objects, one
// per node, keyed by `node` (`kubectl describe imagejob` shows each field, `-o jsonpath` reads
// them: `{.status.nodes[?(@.outcome=="Failed")].node}`). The stored object is the in-memory
// NodeResult (results.ts) itself, fields at their zero value left out (as Go's omitempty does),
// so a field added to NodeResult and its defaults is stored and read back with no change here.
//
// Objects written before v0.2 held one pipe-encoded line per node ("node|outcome|removed|...");
// they are still read (decodeResult), and the controller writes objects from its next status
// write on. See docs/imagejob-status.md.
import {
  decodeResult,
  MAX_REASON,
  pendingResult,
  REASONS_BUDGET,
  type NodeResult,
} from '../../contract/results.js';
import { isNodeOutcome, type NodeOutcome } from '../../contract/node-outcomes.js';

/** One node's entry in `status.nodes`: NodeResult without its zero-valued fields. */
export interface NodeStatus {
  node: string;
  outcome: NodeOutcome;
  [field: string]: unknown;
}

const isZero = (v: unknown) => v === 0 || v === '' || v === false || v === undefined || v === null;
/** Fields whose 0 is a figure, not "none": a measured freed space of 0 bytes is a finding. */
const ZERO_KEPT: ReadonlySet<string> = new Set(['bytesMeasured']);

/** One node's entry, its reason cut to `maxReason` characters (newlines made spaces). */
export function toNodeStatus(r: NodeResult, maxReason = MAX_REASON): NodeStatus {
  const out: NodeStatus = { node: r.node, outcome: r.outcome };
  for (const [k, v] of Object.entries(r)) {
    if (k === 'node' || k === 'outcome' || (isZero(v) && !(ZERO_KEPT.has(k) && v === 0))) continue;
    out[k] =
      k === 'reason'
        ? String(v)
            .replace(/[\n\r]+/g, ' ')
            .slice(0, maxReason)
        : v;
  }
  // Keys in the order the API server returns them (sorted), so a status read back compares
  // equal to the one written and an unchanged job is not written again (pass.ts save()).
  return Object.fromEntries(
    Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ) as NodeStatus;
}

/**
 * Every node's entry, reasons shortened so that together they stay within REASONS_BUDGET: each
 * gets an equal share (at most MAX_REASON, at least 16 characters). Only a job with hundreds of
 * failing nodes is cut that short; its Events and `inv erase status` (which reads the worker
 * Pods while they exist) say more.
 */
export function encodeNodes(results: readonly NodeResult[], budget = NODES_BUDGET): NodeStatus[] {
  const withReason = results.filter((r) => r.reason).length;
  const share = withReason ? Math.floor(REASONS_BUDGET / withReason) : MAX_REASON;
  const cap = Math.max(16, Math.min(MAX_REASON, share));
  const out = results.map((r) => toNodeStatus(r, cap));
  if (Buffer.byteLength(JSON.stringify(out)) <= budget) return out;
  // Thousands of nodes, each with every count set: the counts no total is made of go first.
  for (const e of out) for (const k of ABRIDGED) delete e[k];
  return out;
}

/**
 * What status.nodes may take, with the job's inventory (~250 KB at 5,000 nodes) under 1 MiB.
 * Past it, each entry leaves out ABRIDGED (the worker Pods' termination messages and logs keep
 * them; a failed node's outcome and reason say it failed); the job's totals (removed,
 * protected, bytes) stay whole.
 */
export const NODES_BUDGET = 776 * 1024;
// A threshold run's per-node fields (trigger-results.ts) too, but for imageFsBefore: the usage
// metric reads it, and status.imageFs keeps the first nodes' before -> after.
export const ABRIDGED = [
  'inUse',
  'excluded',
  'failed',
  'vulnerableKept',
  'cves',
  'highestSeverity',
  'scanMs',
  'scanFailures',
  'belowThreshold',
  'recentlyUnused',
  'imageFsAfter',
] as const;

/**
 * One stored entry back into a NodeResult: the defaults (pendingResult), overlaid with the
 * stored fields. A field of NodeResult takes a stored value of its own type only (numbers: safe,
 * non-negative integers); a field this version does not know is kept as stored. A string is an
 * old pipe-encoded line. Throws on an entry without a node or a known outcome.
 */
export function decodeNode(entry: unknown): NodeResult {
  if (typeof entry === 'string') return decodeResult(entry);
  const o = entry as Record<string, unknown> | null;
  if (!o || typeof o !== 'object' || typeof o.node !== 'string' || !isNodeOutcome(o.outcome))
    throw new Error(`malformed node result ${JSON.stringify(entry)?.slice(0, 200)}`);
  const r = pendingResult(o.node) as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    const d = r[k];
    if (!(k in r)) r[k] = v;
    else if (typeof d === 'number') r[k] = typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
    else if (typeof d === typeof v) r[k] = v;
  }
  return r as unknown as NodeResult;
}

/** Every entry of `status.nodes`; entries this version cannot read are left out when `lenient`. */
export function decodeNodes(entries: readonly unknown[] | undefined, lenient = false): NodeResult[] {
  const out: NodeResult[] = [];
  for (const e of entries ?? []) {
    try {
      out.push(decodeNode(e));
    } catch (err) {
      if (!lenient) throw err;
    }
  }
  return out;
}
