// The removal record's resource, ImageJobRecord (crds/erase.imageinventory.dev_imagejobrecords.yaml):
// one node of one ImageJob, or one part of it, built from the rows the controller read from the
// worker's log (contract/removal-record.ts). Records carry no owner: they are meant to outlive their
// job and its Pods, and go by the configured retention (record-prune.ts). PURE.
import type { NodeResult } from '../../contract/results.js';
import { recordParts, type ParsedWorkerLog, type RecordRow } from '../../contract/removal-record.js';
import { apiVersionOf, KINDS } from '../../kube/kinds.js';
import { IMAGELIST_LABEL, JOB_LABEL, MANAGED_BY, MANAGED_BY_LABEL, type Meta } from './types.js';

export const RECORD_API_VERSION = apiVersionOf(KINDS.ImageJobRecord);
/** When the node finished, on the object's metadata too, so a metadata-only list can prune. */
export const FINISHED_ANNOTATION = 'erase.imageinventory.dev/finished-at';
/** The object's size as written (bytes of JSON), for the retention's byte bound. */
export const BYTES_ANNOTATION = 'erase.imageinventory.dev/record-bytes';

export interface ImageJobRecordSpec {
  job: string;
  jobUID: string;
  imageList: string;
  node: string;
  outcome: string;
  reason: string;
  dryRun: boolean;
  finishedAt: string;
  counts: Partial<Pick<NodeResult, 'removed' | 'inUse' | 'excluded' | 'failed' | 'protected' | 'bytes'>>;
  part: number;
  parts: number;
  recorded: number;
  beyond: number;
  unrecorded: string;
  rows: RecordRow[];
}

export interface ImageJobRecord {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec: ImageJobRecordSpec;
}

export interface RecordSource {
  job: { name: string; uid: string; list: string; dryRun: boolean };
  /** The worker Pod's name: `<job>-<hash(node)>`, unique in the job, so a part's name is too. */
  pod: string;
  result: NodeResult;
  finishedAt: Date;
  log: ParsedWorkerLog;
}

/** The name of a node's record part (1-based). */
export const recordName = (pod: string, part: number): string => `${pod}-r${part}`;

/** The objects that record one node's rows (at least one, even with no row). */
export function recordObjects(s: RecordSource): ImageJobRecord[] {
  const parts = recordParts(s.log.rows);
  const r = s.result;
  const finishedAt = s.finishedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return parts.map((rows, i) => {
    const spec: ImageJobRecordSpec = {
      job: s.job.name,
      jobUID: s.job.uid,
      imageList: s.job.list,
      node: r.node,
      outcome: r.outcome,
      reason: r.reason,
      dryRun: s.job.dryRun,
      finishedAt,
      counts: {
        removed: r.removed,
        inUse: r.inUse,
        excluded: r.excluded,
        failed: r.failed,
        protected: r.protected,
        bytes: r.bytes,
      },
      part: i + 1,
      parts: parts.length,
      recorded: s.log.rows.length,
      beyond: s.log.beyond,
      unrecorded: s.log.problem,
      rows,
    };
    const o: ImageJobRecord = {
      apiVersion: RECORD_API_VERSION,
      kind: 'ImageJobRecord',
      metadata: {
        name: recordName(s.pod, i + 1),
        labels: {
          [MANAGED_BY_LABEL]: MANAGED_BY,
          [JOB_LABEL]: s.job.name,
          // A label value holds 63 characters; a longer list name is in spec.imageList alone.
          ...(s.job.list.length <= 63 ? { [IMAGELIST_LABEL]: s.job.list } : {}),
        },
        annotations: { [FINISHED_ANNOTATION]: finishedAt },
      },
      spec,
    };
    o.metadata.annotations![BYTES_ANNOTATION] = String(Buffer.byteLength(JSON.stringify(o)));
    return o;
  });
}
