// The erase API (group erase.imageinventory.dev, see crds/erase.imageinventory.dev_*.yaml) and
// the names and labels of the objects a job creates.
import type { ScopeSpec } from '../../refs/scope.js';
import { apiVersionOf, KINDS } from '../../kube/kinds.js';
import { resourcePath } from '../../kube/resources.js';
import { createHash } from 'node:crypto';
import type { EraseConfig } from '../config/config.js';
import type { ScheduleStatus } from '../spec/schedule.js';
import type { RolloutSpec, RolloutStatus } from '../spec/rollout.js';
import type { NodeStatus } from './node-status.js';
import type { ScanSpec } from '../spec/vuln-scan.js';

/** A status condition, as the Kubernetes API conventions describe it (set by conditions.ts). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

// Group and version from the kind table (kube/kinds.ts); requests go through kube/resources.ts.
export const GROUP = KINDS.ImageList.group;
export const VERSION = KINDS.ImageList.version;
export const API_VERSION = apiVersionOf(KINDS.ImageList);
/** The collections' paths, for the tests' own reads and writes. */
export const IMAGELISTS_PATH = resourcePath('ImageList');
export const IMAGEJOBS_PATH = resourcePath('ImageJob');

/** On ImageJobs: the ImageList that started them. */
export const IMAGELIST_LABEL = 'erase.imageinventory.dev/imagelist';
/** On every object of a job (Pods, ConfigMaps, PodTemplate): the job's name. */
export const JOB_LABEL = 'erase.imageinventory.dev/job';
export { MANAGED_BY_LABEL } from '../../constants.js';
export const MANAGED_BY = 'inv-erase';
/**
 * On an ImageList whose job `inv erase cancel` stopped: `{"job":…,"by":…,"at":…}` (who, from a
 * SelfSubjectReview, and when), so the list's status says Cancelled, not a bare Failed.
 */
export const CANCELLED_ANNOTATION = 'erase.imageinventory.dev/cancelled';
/** On ImageJobs started by a schedule: the tick (RFC 3339, UTC) they run for. */
export const SCHEDULE_TIME_ANNOTATION = 'erase.imageinventory.dev/scheduled-time';

/** Where worker Pods and their objects live (deploy/erase-workers.yaml creates it, privileged). */
export const DEFAULT_NAMESPACE = 'image-inventory-workers';
export const DEFAULT_IMAGELIST = 'imagelist';
/**
 * Where the erase configuration and exclusion lists live (deploy/erase-config.yaml): the
 * daemon's namespace, where the install grants nobody else anything.
 */
export const DEFAULT_CONFIG_NAMESPACE = 'image-inventory-system';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * On every ImageJob from its creation: deleting the job (or its ImageList, whose deletion the
 * garbage collector passes on) first removes every worker object in the job's inventory.
 */
export const CLEANUP_FINALIZER = 'erase.imageinventory.dev/cleanup';

export interface Meta {
  name: string;
  uid?: string;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  /** As the server keeps them: counted in an ImageJob's size (status-budget.ts). */
  managedFields?: unknown[];
}

export interface ImageListSpec {
  images: string[];
  dryRun?: boolean;
  /** For `*`: keep every image a workload references (default true). */
  protectInventory?: boolean;
  nodeSelector?: string;
  jobTimeout?: string;
  request?: string;
  /** Cron expression (5 fields): each tick starts a job; generations then start none. */
  schedule?: string;
  /** IANA time zone of the schedule; UTC when absent. */
  timeZone?: string;
  /** A tick later than this (after an outage) does not run. */
  startingDeadlineSeconds?: number;
  /** Pauses the schedule; the ticks of the pause never run. */
  suspend?: boolean;
  /** Rollout waves (./rollout.ts); without it every node's worker starts at once. */
  rollout?: RolloutSpec;
  /** Scan mode: only what the named scanner finds vulnerable among the `*` candidates goes. */
  scan?: ScanSpec;
  /** For `*`: clean a node only when its image file system is this full (trigger.ts). */
  imageFs?: ImageFsSpec;
  /** For `*`: an image goes only once seen unused on its node for this long (7d, 12h). */
  minUnusedAge?: string;
  /** For `*`: which images the prune considers at all (refs/scope.ts). */
  scope?: ScopeSpec;
  /** For `*`: keep the N newest images of each repository on each node. */
  keepNewest?: number;
}

/** Percentages of the image file system the runtime's images take (decimals allowed). */
export interface ImageFsSpec {
  highPercent: number;
  lowPercent: number;
}

export interface ImageListStatus extends ScheduleStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  /** spec.images as people read them (summarizeImages), for the IMAGES printer column. */
  targets?: string;
  lastJob?: string;
  lastJobGeneration?: number;
  /** Cancelled: the last job was stopped by `inv erase cancel` (message: by whom, when). */
  phase?: 'Queued' | 'Running' | 'Completed' | 'Failed' | 'Cancelled' | 'Error';
  desired?: number;
  success?: number;
  failed?: number;
  skipped?: number;
  /** Over every node of the last job: images removed (would be, in a dry run), kept by protection, bytes. */
  removed?: number;
  protected?: number;
  bytesFreed?: number;
  /** The last job's status.freed and status.wouldFree (bytesFreed for people, apart). */
  freed?: string;
  wouldFree?: string;
  timestamp?: string;
  /** When a job of this list last completed (Completed; a dry run too). */
  lastSuccessfulTime?: string;
  message?: string;
}

export interface ImageList {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec: ImageListSpec;
  status?: ImageListStatus;
}

export interface ImageJobSpec {
  imageList: { name: string; uid: string; generation: number };
  /** Namespace of the worker objects (the controllers' namespace when the job was created). */
  namespace: string;
  images: string[];
  dryRun?: boolean;
  nodeSelector?: string;
  /** Exclusion patterns merged from the labeled ConfigMaps when the job was created. */
  exclusions?: string[];
  /** For `*`: keep every image a workload references (absent means true). */
  protectInventory?: boolean;
  /** Scan mode (the list's spec.scan when the job was created). */
  scan?: ScanSpec;
  /** Copied from the list (ImageListSpec). */
  imageFs?: ImageFsSpec;
  minUnusedAge?: string;
  scope?: ScopeSpec;
  keepNewest?: number;
  config: EraseConfig;
  /** The list's spec.rollout when the job was created. */
  rollout?: RolloutSpec;
}

/** Queued: not started yet (waiting for a place among maxConcurrentJobs, or for what planning needs). */
export type JobPhase = 'Queued' | 'Running' | 'Completed' | 'Failed';

/** One input handed to the workers in a ConfigMap (inputs.ts), recorded before it is created. */
export interface JobInput {
  /** `images`, `exclude` or `protected-<i>`. */
  role: string;
  /** The ConfigMap that carries it. */
  name: string;
  /** Hex SHA-256 of the file the worker reads (the ConfigMap value, UTF-8). */
  sha256: string;
}

export interface ImageJobStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  phase?: JobPhase;
  desired?: number;
  succeeded?: number;
  failed?: number;
  skipped?: number;
  startTime?: string;
  completionTime?: string;
  deleteAfter?: string;
  message?: string;
  planned?: boolean;
  /** Refs in the protected set handed to the workers, and the ConfigMaps that carry it. */
  protectedRefs?: number;
  protectedChunks?: number;
  /** The workers' inputs: ConfigMap names and content digests, recorded at planning. */
  inputs?: JobInput[];
  /** Over every node: images removed (would be, in a dry run), kept by protection, bytes. */
  removed?: number;
  protected?: number;
  bytesFreed?: number;
  /**
   * Bytes freed as the nodes' runtimes measured them (image file system usage before minus
   * after), over the nodes that measured it; bytesMeasuredEstimate is those nodes' bytesFreed.
   */
  bytesMeasured?: number;
  bytesMeasuredEstimate?: number;
  /** Nodes that removed images without a measurement (their freedNotMeasured says why). */
  freedNotMeasured?: number;
  /** A threshold run: per node, image file system usage before -> after (trigger-results.ts). */
  imageFs?: string;
  /** bytesFreed for people ("1.2 GB"), for the printer columns: set in a real run only. */
  freed?: string;
  /** The same in a dry run only: what the job would free. */
  wouldFree?: string;
  /** One entry per node (node-status.ts); old jobs hold pipe-encoded lines instead. */
  nodes?: (NodeStatus | string)[];
  /**
   * Instead of `nodes`, when they do not fit beside the spec (status-budget.ts): the same entries
   * as gzip'd JSON in base64.
   */
  nodesPacked?: string;
  inventory?: string[];
  collisions?: string[];
  /** Rollout waves (spec.rollout only). */
  rollout?: RolloutStatus;
}

export interface ImageJob {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec: ImageJobSpec;
  status?: ImageJobStatus;
}

/**
 * The phase to show for a job: its own, or Queued while it has none and is not planned (the
 * controller has not looked at it yet); never Running before it started.
 */
export const shownPhase = (st: ImageJobStatus | undefined): JobPhase =>
  st?.phase ?? (st?.planned ? 'Running' : 'Queued');

export const isFinished = (p: string | undefined): p is 'Completed' | 'Failed' =>
  p === 'Completed' || p === 'Failed';

const hash = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);

/** `<list>-<generation>-<uid[0:5]>`: deterministic, so a restart finds the job it created. */
export function jobName(list: ImageList): string {
  const base = list.metadata.name.slice(0, 40).replace(/[^a-z0-9]+$/, '');
  return `${base}-${list.metadata.generation ?? 1}-${(list.metadata.uid ?? hash(list.metadata.name, 5)).slice(0, 5)}`;
}

/**
 * Worker Pod names by node: `<job>-<10 hex of sha256(node)>`, deterministic (write-ahead: the
 * name is known before the Pod exists). A hash clash between two nodes lengthens the later one.
 */
export function podNames(job: string, nodes: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const node of [...nodes].sort()) {
    let name = `${job}-${hash(node, 10)}`;
    for (let n = 16; used.has(name); n += 6) name = `${job}-${hash(node, n)}`;
    used.add(name);
    out.set(node, name);
  }
  return out;
}

/**
 * `<list>-s<YYYYMMDDhhmm of the tick, UTC>-<uid[0:5]>`: a scheduled run's name follows from its
 * tick, so a controller killed after creating it finds it again instead of starting the tick
 * twice. (Ticks are whole minutes; 63 characters at most, as it is also a label value.)
 */
export function scheduledJobName(list: ImageList, tick: Date): string {
  const base = list.metadata.name.slice(0, 40).replace(/[^a-z0-9]+$/, '');
  const stamp = tick.toISOString().slice(0, 16).replace(/[-T:]/g, '');
  return `${base}-s${stamp}-${(list.metadata.uid ?? hash(list.metadata.name, 5)).slice(0, 5)}`;
}

export const imagesConfigMapName = (job: string) => `${job}-images`;
export const excludeConfigMapName = (job: string) => `${job}-exclude`;
export const protectedConfigMapName = (job: string, i: number) => `${job}-protected-${i}`;
