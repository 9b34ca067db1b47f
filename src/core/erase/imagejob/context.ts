// What every phase of the ImageJob reconcile is handed: the clients, the clock and the
// controller's memos (the inputs' contents, node readiness). Built once per controller.
import type { KubeRest } from '../../kube/rest.js';
import type { Logger } from '../../observability/logger.js';
import type { ProtectionSource } from '../worker/inventory-protection.js';
import type { EraseMetrics } from '../metrics/metrics.js';
import type { EraseReader, RestReader } from '../cluster/reader.js';
import type { AdminSettingsSource } from '../cluster/settings.js';
import type { NodeReadiness } from './node-readiness.js';
import type { MountCheck } from './mount-check.js';
import type { InputContents } from './input-contents.js';
import type { RemovalRecords } from '../cluster/records.js';

export interface JobContext {
  /** Writes (and confirming reads the cache cannot answer) go here. */
  rest: KubeRest;
  /** Where reads come from: the controllers' informers, or the server (then `reader === direct`). */
  reader: EraseReader;
  /** Reads at the server, for verdicts that are for good. */
  direct: RestReader;
  log: Logger;
  /** The clock: every phase reads the time here, never from Date.now(). */
  now: () => Date;
  /** Namespace of the worker Pods, ConfigMaps and PodTemplate. */
  namespace: string;
  /** Look again at a running job at least this often. */
  resyncMs: number;
  /** Objects created per reconcile before the progress is persisted. */
  applyChunk: number;
  settings: AdminSettingsSource;
  protection: ProtectionSource;
  metrics?: EraseMetrics;
  inputs: InputContents;
  readiness: NodeReadiness;
  /** Workers stuck mounting the runtime socket (FailedMount Events). */
  mounts: MountCheck;
  /** The removal record: each finished worker's report kept as ImageJobRecords (absent: not kept). */
  records?: RemovalRecords;
}
