// Reading the removal record (ImageJobRecords, erase/api/record.ts) for `inv erase history` and
// for `inv erase status` of a job already deleted: each node's parts merged back into one record,
// filtered by job, ImageList, node, time, image and outcome. What a reader cannot know is said,
// not guessed: rows past the per-node bound (`beyond`) and rows the controller could not read
// (`unrecorded`) are counted on the node's record.
import * as resources from '../kube/resources.js';
import type { KubeRest } from '../kube/rest.js';
import type { RecordRow } from '../contract/removal-record.js';
import type { Outcome } from '../contract/worker-summary.js';
import type { ImageJobRecord, ImageJobRecordSpec } from '../erase/api/record.js';
import { IMAGELIST_LABEL, JOB_LABEL, MANAGED_BY, MANAGED_BY_LABEL } from '../erase/api/types.js';

/** One node of one job, its parts merged (rows filtered as asked). */
export type NodeRecord = Omit<ImageJobRecordSpec, 'part' | 'parts' | 'rows'> & {
  /** Parts missing (deleted by the retention before the others, or not written). */
  missingParts: number;
  rows: RecordRow[];
};

export interface HistoryFilter {
  job?: string;
  list?: string;
  /** Any of these nodes (empty: every node). */
  nodes?: readonly string[];
  /** Finished at or after / before. */
  since?: Date;
  until?: Date;
  /** A substring of one of the image's names or of its ID (`sha256:` optional). */
  image?: string;
  /** Any of these outcomes (empty: all). */
  outcomes?: readonly Outcome[];
}

/** Does the row match the image and outcome filters? */
export function rowMatches(r: RecordRow, f: HistoryFilter): boolean {
  if (f.outcomes?.length && !f.outcomes.includes(r.outcome)) return false;
  if (!f.image) return true;
  const needle = f.image.toLowerCase();
  return r.id.toLowerCase().includes(needle) || r.names.some((n) => n.toLowerCase().includes(needle));
}

/** Does the record (one part) match the job, list, node and time filters? */
function recordMatches(s: ImageJobRecordSpec, f: HistoryFilter): boolean {
  if (f.job && s.job !== f.job) return false;
  if (f.list && s.imageList !== f.list) return false;
  if (f.nodes?.length && !f.nodes.includes(s.node)) return false;
  const at = Date.parse(s.finishedAt);
  if (f.since && !(at >= f.since.getTime())) return false;
  if (f.until && !(at < f.until.getTime())) return false;
  return true;
}

/** Parts of the same node of the same job merged, newest first (then job and node by name). */
export function mergeParts(parts: readonly ImageJobRecordSpec[]): NodeRecord[] {
  const byNode = new Map<string, ImageJobRecordSpec[]>();
  for (const p of parts) {
    const key = `${p.jobUID || p.job}\n${p.node}`;
    byNode.set(key, [...(byNode.get(key) ?? []), p]);
  }
  const out: NodeRecord[] = [];
  for (const group of byNode.values()) {
    group.sort((a, b) => a.part - b.part);
    const { part, parts, rows, ...head } = group[0]!;
    void part;
    void rows;
    out.push({
      ...head,
      missingParts: Math.max(0, parts - new Set(group.map((g) => g.part)).size),
      rows: group.flatMap((g) => g.rows ?? []),
    });
  }
  return out.sort(
    (a, b) =>
      Date.parse(b.finishedAt) - Date.parse(a.finishedAt) ||
      a.job.localeCompare(b.job) ||
      a.node.localeCompare(b.node),
  );
}

/**
 * The records that match, read page by page; each part's rows are filtered as it arrives, so only
 * what is shown is kept. With an image or outcome filter, a node with no matching row is left out.
 */
export async function readHistory(rest: KubeRest, f: HistoryFilter): Promise<NodeRecord[]> {
  const selector = [
    `${MANAGED_BY_LABEL}=${MANAGED_BY}`,
    ...(f.job ? [`${JOB_LABEL}=${f.job}`] : []),
    ...(f.list && f.list.length <= 63 ? [`${IMAGELIST_LABEL}=${f.list}`] : []),
  ].join(',');
  const { items } = await resources.list<ImageJobRecord, ImageJobRecordSpec | undefined>(
    rest,
    'ImageJobRecord',
    undefined,
    {
      query: { labelSelector: selector },
      // Parts take up to 256 KiB each: a page of 50 stays under 13 MiB.
      pageSize: 50,
      map: (o) => {
        const s = o.spec;
        if (!s || !recordMatches(s, f)) return undefined;
        return { ...s, rows: (s.rows ?? []).filter((r) => rowMatches(r, f)) };
      },
    },
  );
  const merged = mergeParts(items.filter((s): s is ImageJobRecordSpec => s !== undefined));
  return f.image || f.outcomes?.length ? merged.filter((n) => n.rows.length > 0) : merged;
}
