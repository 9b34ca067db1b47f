// The one shape `inv erase`, `inv erase status` and `-o json|yaml` print: an EraseReport
// (apiVersion cli.imageinventory.dev/v1, JSON Schema in docs/schemas/EraseReport.json). It is
// built from what the cluster holds: the ImageList, its ImageJob (counts and one result line per
// node) and, while they exist, the job's worker Pods, whose termination messages carry each
// node's list of targets, images and outcomes (the worker's compact summary,
// src/core/noderemove/summary.ts). Removed and would-remove are separate numbers.
import { decodeResult, type NodeResult } from '../api/results.js';
import type { ImageJob, ImageList } from '../api/types.js';

export const REPORT_API_VERSION = 'cli.imageinventory.dev/v1';

export type ReportPhase = 'Submitted' | 'Running' | 'Completed' | 'Failed' | 'Error';
export type ReportNodeOutcome = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Skipped';

export interface ImageOutcome {
  /** The target as the request named it (or `*`). */
  target: string;
  /** The image ID it matched; '' when it matched none. */
  image: string;
  /** node-remove's outcome: removed, would-remove, in-use, pinned, excluded, protected, not-present, invalid, failed. */
  outcome: string;
  /** Why (failed, invalid, protected); absent otherwise. */
  detail?: string;
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
  collisions: string[];
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
  results?: { t?: unknown; i?: unknown; o?: unknown; e?: unknown }[];
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
      outcome: str(r.o),
      ...(str(r.e) ? { detail: str(r.e) } : {}),
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
  const lines: NodeResult[] = [];
  for (const l of s?.nodes ?? []) {
    try {
      lines.push(decodeResult(l));
    } catch {
      // a line this version cannot read is left out rather than failing the whole report
    }
  }
  const results: NodeReport[] = lines.map((r) => {
    const pod = byNode.get(r.node);
    let outcome: ReportNodeOutcome = r.outcome;
    let reason = r.reason;
    if (r.outcome === 'Pending' && pod) {
      if (pod.status?.phase === 'Running') outcome = 'Running';
      if (!reason && pod.status?.phase !== 'Running') reason = podState(pod);
    }
    const list = pod && (r.outcome === 'Succeeded' || r.outcome === 'Failed') ? podImages(pod) : undefined;
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
  else if (s?.phase) phase = s.phase;
  else if (!fromJob && ls?.lastJobGeneration === opts.generation && ls?.phase) phase = ls.phase;
  else phase = opts.submitted ? 'Submitted' : 'Running';
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
    message: (phase === 'Error' ? ls?.message : s?.message) || null,
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
    collisions: s?.collisions ?? [],
    results,
  };
}
