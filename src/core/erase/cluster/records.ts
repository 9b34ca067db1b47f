// The removal record at the API server: when a worker finishes, its report (every image, from the
// Pod's log: the termination message keeps 4 KiB) becomes the node's ImageJobRecords; and the
// records past the configured retention are deleted, oldest first. Why the log and not the
// workers writing objects themselves: workers run as root on every node with no API credentials
// at all (automountServiceAccountToken: false), and reading a log needs only `pods/log` get in the
// workers' namespace, for the controller (docs/erase-history.md). Failing to record never fails a
// node: the record then says why its rows are missing (spec.unrecorded).
import * as resources from '../../kube/resources.js';
import { isAlreadyExists, isNotFound, METADATA_LIST_ACCEPT, type KubeRest } from '../../kube/rest.js';
import { parseWorkerLog } from '../../contract/removal-record.js';
import type { RecordRetention } from '../config/record-retention.js';
import { BYTES_ANNOTATION, FINISHED_ANNOTATION, recordObjects, type RecordSource } from '../api/record.js';
import { recordsToPrune } from '../api/record-prune.js';
import { MANAGED_BY, MANAGED_BY_LABEL, type Meta } from '../api/types.js';

/** A worker's log larger than this is not read (5,000 rows of the report take about 2 MiB). */
export const MAX_LOG_BYTES = 32 * 1024 * 1024;

export class RemovalRecords {
  constructor(
    private readonly rest: KubeRest,
    /** The workers' namespace. */
    private readonly namespace: string,
  ) {}

  /** Reads the finished worker's log and writes its node's record; returns a problem or ''. */
  async capture(src: Omit<RecordSource, 'log'>, container: string): Promise<string> {
    let log: RecordSource['log'];
    try {
      const text = await resources.get<string>(this.rest, 'Pod', this.namespace, src.pod, {
        subresource: 'log',
        query: { container, limitBytes: MAX_LOG_BYTES },
        accept: '*/*',
        text: true,
      });
      log = parseWorkerLog(text ?? '');
    } catch (e) {
      log = { rows: [], beyond: 0, problem: `the worker's log could not be read: ${(e as Error).message}` };
    }
    for (const o of recordObjects({ ...src, log })) {
      try {
        await resources.create(this.rest, 'ImageJobRecord', undefined, o);
      } catch (e) {
        // Written before, by this controller or the one before a restart: the same node's record.
        if (isAlreadyExists(e)) continue;
        return `the record of node ${src.result.node} could not be written: ${(e as Error).message}`;
      }
    }
    return log.problem;
  }

  /** Deletes what the retention no longer keeps; returns how many were deleted. */
  async prune(now: Date, retention: RecordRetention): Promise<number> {
    const { items } = await resources.list<{ metadata: Meta }, { metadata: Meta }>(
      this.rest,
      'ImageJobRecord',
      undefined,
      { accept: METADATA_LIST_ACCEPT, query: { labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}` } },
    );
    const metas = items.map(({ metadata: m }) => ({
      name: m.name,
      finishedAt: Date.parse(m.annotations?.[FINISHED_ANNOTATION] ?? ''),
      bytes: Number(m.annotations?.[BYTES_ANNOTATION]) || 0,
    }));
    const doomed = recordsToPrune(metas, now, retention);
    for (const name of doomed) {
      try {
        await resources.delete(this.rest, 'ImageJobRecord', undefined, name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    return doomed.length;
  }
}
