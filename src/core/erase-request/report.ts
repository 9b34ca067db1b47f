// The one shape `inv erase`, `inv erase status` and `-o json|yaml` print: an EraseReport
// (apiVersion cli.imageinventory.dev/v1, JSON Schema in docs/schemas/EraseReport.json). It is
// built from what the cluster holds: the ImageList, its ImageJob (counts and one result line per
// node) and, while they exist, the job's worker Pods, whose termination messages carry each
// node's list of targets, images and outcomes (the worker's compact summary,
// src/core/noderemove/summary.ts). Removed and would-remove are separate numbers.
import type { NotMeasured } from '../contract/freed-space.js';
import { isOutcome, type Outcome, type SummaryRow, type Untrusted } from '../contract/worker-summary.js';
import { nodeTraitsOf, type NodeOutcome, type NodeOutcomeTraits } from '../contract/node-outcomes.js';
import { statusNodes } from '../erase/api/status-budget.js';
import { shownPhase, type ImageJob, type ImageList } from '../erase/api/types.js';

export const REPORT_API_VERSION = 'cli.imageinventory.dev/v1';

export type ReportPhase = 'Submitted' | 'Queued' | 'Running' | 'Completed' | 'Failed' | 'Cancelled' | 'Error';
/** A node's outcome in the job, or Running: a Pending node whose worker Pod runs. */
export type ReportNodeOutcome = NodeOutcome | 'Running';

/** The traits of a node's outcome in the report (Running is a Pending node's). */
export const reportNodeTraits = (o: ReportNodeOutcome): NodeOutcomeTraits =>
  nodeTraitsOf(o === 'Running' ? 'Pending' : o);

export interface ImageOutcome {
  /** The target as the request named it (or `*`). */
  target: string;
  /** The image ID it matched; '' when it matched none. */
  image: string;
  /** The image's repo tags, else its repo digests (at most 3); [] when it has none or matched none. */
  names: string[];
  /** The image's size in bytes as the node's runtime listed it; 0 when unknown or none. */
  size: number;
  /** node-remove's outcome (contract/worker-summary.ts OUTCOMES). */
  outcome: Outcome;
  /** Why (failed, invalid, protected); absent otherwise. */
  detail?: string;
  /** Scan mode: what the scanner said (cves null: it did not count them). */
  vulnerability?: { cves: number | null; severity: string; ids: string[] };
}

export interface NodeReport {
  node: string;
  outcome: ReportNodeOutcome;
  /** Why a node failed, was skipped or waits; '' otherwise. */
  reason: string;
  /** The worker Pod, when it was read. */
  pod: string | null;
  removed: number;
  wouldRemove: number;
  inUse: number;
  excluded: number;
  protected: number;
  failed: number;
  /** Bytes freed (would be freed, in a dry run) on this node. */
  bytes: number;
  /** A threshold run only: percent of the image file system the images took, before and after. */
  imageFs?: { before: number; after: number };
  /** A real run that removed images: bytes freed as the node's runtime measured them. */
  bytesMeasured?: number;
  /** Why bytesMeasured is absent although images were removed (contract/freed-space.ts). */
  freedNotMeasured?: NotMeasured;
  /** The node's targets and outcomes; null when not available (skipped, not finished, Pod gone). */
  images: ImageOutcome[] | null;
  /** The worker shortened its list to fit the 4 KiB termination message. */
  imagesTruncated: boolean;
}

export interface EraseReport {
  apiVersion: typeof REPORT_API_VERSION;
  kind: 'EraseReport';
  imageList: string;
  generation: number | null;
  job: string | null;
  phase: ReportPhase;
  dryRun: boolean;
  images: string[];
  message: string | null;
  startTime: string | null;
  completionTime: string | null;
  nodes: {
    desired: number;
    running: number;
    pending: number;
    succeeded: number;
    failed: number;
    skipped: number;
  };
  /** Images removed (0 in a dry run). */
  removed: number;
  /** Images a dry run would remove (0 in a real run). */
  wouldRemove: number;
  /** Kept by the inventory's protection (a `*` prune). */
  protected: number;
  bytesFreed: number;
  bytesWouldFree: number;
  /** Over the nodes whose runtime measured it: bytes freed, and those nodes' bytesFreed. */
  bytesMeasured?: number;
  bytesMeasuredEstimate?: number;
  /** Nodes that removed images without a measurement. */
  freedNotMeasured?: number;
  collisions: string[];
  /**
   * Targets that matched no image on any node whose worker reported its list (every such node
   * reported, at least one did); [] otherwise.
   */
  notPresent: string[];
  results: NodeReport[];
}

/** A worker Pod as far as the report reads it. */
export interface WorkerPod {
  metadata: { name: string; ownerReferences?: { uid?: string }[] };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
    containerStatuses?: {
      state?: {
        waiting?: { reason?: string; message?: string };
        running?: unknown;
        terminated?: { exitCode?: number; reason?: string; message?: string };
      };
    }[];
  };
}

interface Summary {
  truncated?: unknown;
  results?: Untrusted<SummaryRow>[];
}

/** A summary row's `v`: [CVE count or null, highest severity, first CVE IDs]. */
function vulnOf(v: unknown): ImageOutcome['vulnerability'] | undefined {
  if (!Array.isArray(v)) return undefined;
  const [n, sev, ids] = v as unknown[];
  return {
    cves: typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null,
    severity: typeof sev === 'string' ? sev.slice(0, 16) : '',
    ids: Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string').slice(0, 5) : [],
  };
}

/** The image list in a worker's termination message, or undefined when it has none. */
export function podImages(pod: WorkerPod): { images: ImageOutcome[]; truncated: boolean } | undefined {
  const text = pod.status?.containerStatuses?.[0]?.state?.terminated?.message?.trim();
  if (!text?.startsWith('{')) return undefined;
  let s: Summary;
  try {
    s = JSON.parse(text) as Summary;
  } catch {
    return undefined;
  }
  if (!Array.isArray(s.results)) return undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    images: s.results.map((r) => ({
      target: str(r.t),
      image: str(r.i),
      names: Array.isArray(r.n) ? r.n.filter((x): x is string => typeof x === 'string') : [],
      size: typeof r.s === 'number' && Number.isSafeInteger(r.s) && r.s >= 0 ? r.s : 0,
      // An outcome this version does not know (another worker image) reads as failed, saying so.
      outcome: isOutcome(r.o) ? r.o : 'failed',
      ...(str(r.e) || !isOutcome(r.o)
        ? { detail: str(r.e) || `unknown outcome ${JSON.stringify(str(r.o).slice(0, 40))}` }
        : {}),
      ...(vulnOf(r.v) ? { vulnerability: vulnOf(r.v) } : {}),
    })),
    truncated: s.truncated === true,
  };
}

/** A short account of a Pod that has not finished: "Pending: Unschedulable", "Waiting: ErrImagePull". */
export function podState(pod: WorkerPod): string {
  const st = pod.status ?? {};
  const waiting = st.containerStatuses?.[0]?.state?.waiting;
  if (waiting?.reason) return `Pod ${pod.metadata.name} waiting: ${waiting.reason}`;
  const unscheduled = st.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled) return `Pod ${pod.metadata.name} Pending: ${unscheduled.reason ?? 'not scheduled'}`;
  return `Pod ${pod.metadata.name} ${st.phase ?? 'Pending'}`;
}

const isDry = (list: ImageList, job?: ImageJob): boolean => job?.spec.dryRun ?? list.spec.dryRun ?? false;

/**
 * The report of a request at this moment. `generation` is the request's; `job` undefined means
 * not started yet (or already deleted: the list's status then carries the counts). `pods`
 * (optional) are the job's worker Pods; only Pods the job owns (its UID) are read.
 */
export function buildReport(
  list: ImageList,
  opts: { generation?: number; job?: ImageJob; pods?: WorkerPod[]; submitted?: boolean },
): EraseReport {
  const { job } = opts;
  const s = job?.status;
  const ls = list.status;
  const dry = isDry(list, job);
  const uid = job?.metadata.uid;
  const byNode = new Map<string, WorkerPod>();
  for (const p of opts.pods ?? [])
    if (p.spec?.nodeName && uid && p.metadata.ownerReferences?.some((o) => o.uid === uid))
      byNode.set(p.spec.nodeName, p);
  // An entry this version cannot read is left out rather than failing the whole report.
  const lines = statusNodes(s, true);
  const results: NodeReport[] = lines.map((r) => {
    const pod = byNode.get(r.node);
    let outcome: ReportNodeOutcome = r.outcome;
    let reason = r.reason;
    if (r.outcome === 'Pending' && pod) {
      if (pod.status?.phase === 'Running') outcome = 'Running';
      if (!reason && pod.status?.phase !== 'Running') reason = podState(pod);
    }
    const list = pod && nodeTraitsOf(r.outcome).ran ? podImages(pod) : undefined;
    return {
      node: r.node,
      outcome,
      reason,
      pod: pod?.metadata.name ?? null,
      removed: dry ? 0 : r.removed,
      wouldRemove: dry ? r.removed : 0,
      inUse: r.inUse,
      excluded: r.excluded,
      protected: r.protected,
      failed: r.failed,
      bytes: r.bytes,
      ...(r.imageFsBefore !== undefined
        ? { imageFs: { before: r.imageFsBefore / 100, after: (r.imageFsAfter ?? r.imageFsBefore) / 100 } }
        : {}),
      ...(r.bytesMeasured !== undefined ? { bytesMeasured: r.bytesMeasured } : {}),
      ...(r.freedNotMeasured ? { freedNotMeasured: r.freedNotMeasured } : {}),
      images: list?.images ?? null,
      imagesTruncated: list?.truncated ?? false,
    };
  });
  const count = (o: ReportNodeOutcome) => results.filter((r) => r.outcome === o).length;
  const fromJob = job !== undefined;
  const removedTotal = (fromJob ? s?.removed : ls?.removed) ?? 0;
  const bytesTotal = (fromJob ? s?.bytesFreed : ls?.bytesFreed) ?? 0;
  let phase: ReportPhase;
  if (ls?.phase === 'Error' && (ls.observedGeneration ?? 0) >= (opts.generation ?? 0)) phase = 'Error';
  else if (fromJob) phase = shownPhase(s);
  else if (ls?.lastJobGeneration === opts.generation && ls?.phase) phase = ls.phase;
  else phase = opts.submitted ? 'Submitted' : 'Queued';
  const desired = (fromJob ? s?.desired : ls?.desired) ?? results.length;
  const succeeded = fromJob ? count('Succeeded') : (ls?.success ?? 0);
  const failed = fromJob ? count('Failed') : (ls?.failed ?? 0);
  const skipped = fromJob ? count('Skipped') : (ls?.skipped ?? 0);
  return {
    apiVersion: REPORT_API_VERSION,
    kind: 'EraseReport',
    imageList: list.metadata.name,
    generation: opts.generation ?? job?.spec.imageList.generation ?? null,
    job: job?.metadata.name ?? (ls?.lastJobGeneration === opts.generation ? (ls?.lastJob ?? null) : null),
    phase,
    dryRun: dry,
    images: job?.spec.images ?? list.spec.images ?? [],
    message: (phase === 'Error' || phase === 'Cancelled' ? ls?.message : s?.message) || null,
    startTime: s?.startTime ?? null,
    completionTime: s?.completionTime ?? null,
    nodes: {
      desired,
      running: count('Running'),
      pending: fromJob ? count('Pending') : 0,
      succeeded,
      failed,
      skipped,
    },
    removed: dry ? 0 : removedTotal,
    wouldRemove: dry ? removedTotal : 0,
    protected: (fromJob ? s?.protected : ls?.protected) ?? 0,
    bytesFreed: dry ? 0 : bytesTotal,
    bytesWouldFree: dry ? bytesTotal : 0,
    ...(fromJob && s?.bytesMeasuredEstimate !== undefined
      ? { bytesMeasured: s.bytesMeasured ?? 0, bytesMeasuredEstimate: s.bytesMeasuredEstimate }
      : {}),
    ...(fromJob && s?.freedNotMeasured ? { freedNotMeasured: s.freedNotMeasured } : {}),
    collisions: s?.collisions ?? [],
    notPresent: notPresentAnywhere(results),
    results,
  };
}

/**
 * The targets every node that ran reported `not-present`, when every node that ran (succeeded
 * or failed) reported its whole list: one node without it could hold the image.
 */
export function notPresentAnywhere(results: readonly NodeReport[]): string[] {
  const ran = results.filter((r) => reportNodeTraits(r.outcome).ran);
  if (ran.length === 0 || ran.some((r) => !r.images || r.imagesTruncated)) return [];
  const [first, ...rest] = ran.map(
    (r) => new Set((r.images ?? []).filter((i) => i.outcome === 'not-present').map((i) => i.target)),
  );
  return [...first!].filter((t) => rest.every((s) => s.has(t)));
}
