// The removal record as the CLI prints it: the EraseHistory document of `inv erase history`
// (apiVersion cli.imageinventory.dev/v1, docs/schemas/EraseHistory.json), a node's record as the
// image list of an EraseReport (every row, where the termination message kept 4 KiB of them), and
// the EraseReport of a job already deleted, rebuilt from its record alone. PURE.
import type { NodeRecord } from './history.js';
import { REPORT_API_VERSION, type EraseReport, type ImageOutcome, type NodeReport } from './report.js';

export interface HistoryImage {
  id: string;
  names: string[];
  outcome: string;
  size: number;
  target: string;
  reason: string;
}

export interface HistoryNode {
  job: string;
  imageList: string;
  node: string;
  /** The node's outcome in its job (Succeeded, Failed) and why it failed. */
  outcome: string;
  reason: string;
  dryRun: boolean;
  finishedAt: string;
  /** Rows recorded for the node (before any filter), rows past the bound, and why rows are missing. */
  recorded: number;
  beyond: number;
  unrecorded: string;
  /** Parts of the record missing (the retention deleted them first). */
  missingParts: number;
  images: HistoryImage[];
}

export interface EraseHistory {
  apiVersion: typeof REPORT_API_VERSION;
  kind: 'EraseHistory';
  records: HistoryNode[];
}

export function historyDocument(records: readonly NodeRecord[]): EraseHistory {
  return {
    apiVersion: REPORT_API_VERSION,
    kind: 'EraseHistory',
    records: records.map((r) => ({
      job: r.job,
      imageList: r.imageList,
      node: r.node,
      outcome: r.outcome,
      reason: r.reason,
      dryRun: r.dryRun,
      finishedAt: r.finishedAt,
      recorded: r.recorded,
      beyond: r.beyond,
      unrecorded: r.unrecorded,
      missingParts: r.missingParts,
      images: r.rows.map((i) => ({
        id: i.id,
        names: i.names ?? [],
        outcome: i.outcome,
        size: i.size ?? 0,
        target: i.target ?? '',
        reason: i.reason ?? '',
      })),
    })),
  };
}

/** A node's record as an EraseReport's image list; truncated when rows are missing from it. */
export function recordImages(r: NodeRecord): { images: ImageOutcome[]; truncated: boolean } {
  return {
    images: r.rows.map((i) => ({
      target: i.target ?? '',
      image: i.id,
      names: i.names ?? [],
      size: i.size ?? 0,
      outcome: i.outcome,
      ...(i.reason ? { detail: i.reason } : {}),
    })),
    truncated: r.beyond > 0 || r.unrecorded !== '' || r.missingParts > 0,
  };
}

/**
 * The report of a job that is gone (deleted after delayOnSuccess), from its record: the nodes
 * whose workers finished, each with every image. Nodes that never ran a worker (skipped) left no
 * record, so the counts are of the recorded nodes; the message says so.
 */
export function reportFromRecords(job: string, records: readonly NodeRecord[]): EraseReport {
  const mine = records.filter((r) => r.job === job);
  const first = mine[0];
  const dry = first?.dryRun ?? false;
  const results: NodeReport[] = mine.map((r) => {
    const c = r.counts ?? {};
    const list = recordImages(r);
    return {
      node: r.node,
      outcome: r.outcome === 'Succeeded' ? 'Succeeded' : 'Failed',
      reason: r.reason,
      pod: null,
      removed: dry ? 0 : (c.removed ?? 0),
      wouldRemove: dry ? (c.removed ?? 0) : 0,
      inUse: c.inUse ?? 0,
      excluded: c.excluded ?? 0,
      protected: c.protected ?? 0,
      failed: c.failed ?? 0,
      bytes: c.bytes ?? 0,
      images: list.images,
      imagesTruncated: list.truncated,
    };
  });
  const sum = (f: (n: NodeReport) => number) => results.reduce((a, n) => a + f(n), 0);
  const failed = results.filter((n) => n.outcome === 'Failed').length;
  const times = mine.map((r) => r.finishedAt).sort();
  return {
    apiVersion: REPORT_API_VERSION,
    kind: 'EraseReport',
    imageList: first?.imageList ?? '',
    generation: null,
    job,
    phase: failed ? 'Failed' : 'Completed',
    dryRun: dry,
    images: [...new Set(mine.flatMap((r) => r.rows.map((i) => i.target)))].filter(Boolean),
    message: `imagejob ${job} was deleted; shown from its removal record (${mine.length} node(s) whose worker finished)`,
    startTime: null,
    completionTime: times.at(-1) ?? null,
    nodes: {
      desired: results.length,
      running: 0,
      pending: 0,
      succeeded: results.length - failed,
      failed,
      skipped: 0,
    },
    removed: sum((n) => n.removed),
    wouldRemove: sum((n) => n.wouldRemove),
    protected: sum((n) => n.protected),
    bytesFreed: dry ? 0 : sum((n) => n.bytes),
    bytesWouldFree: dry ? sum((n) => n.bytes) : 0,
    collisions: [],
    notPresent: [],
    results,
  };
}

/**
 * A live job's report with each node's image list from its record where the worker's termination
 * message had to cut it (or its Pod is gone): the record holds every row.
 */
export function withRecordImages(report: EraseReport, records: readonly NodeRecord[]): EraseReport {
  const byNode = new Map(records.filter((r) => r.job === report.job).map((r) => [r.node, r]));
  return {
    ...report,
    results: report.results.map((n) => {
      const r = byNode.get(n.node);
      if (!r || (n.images && !n.imagesTruncated)) return n;
      const list = recordImages(r);
      return { ...n, images: list.images, imagesTruncated: list.truncated };
    }),
  };
}
