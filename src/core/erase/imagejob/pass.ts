// One reconcile pass of an ImageJob: the job as read, its decoded inventory and node results, and
// what the phases (plan, apply, observe, finish, clean up) hand on to each other. At the bottom
// of the controller: the one status writer (every status PUT of the controller goes through
// putStatus) and the one "fail the pending nodes and stop their workers" step.
import { rfc3339 } from '../../timestamps.js';
import type { ApplyInventory } from '../../apply-inventory/apply-inventory.js';
import type { KubeObject, Owner } from '../../apply-inventory/objects.js';
import type { InventoryItem } from '../../apply-inventory/apply-inventory.js';
import { jobConditions } from '../api/conditions.js';
import type { AdminSettings } from '../config/settings.js';
import { countResults, type NodeResult } from '../api/results.js';
import { encodeNodes } from '../api/node-status.js';
import { imageFsSummary } from '../api/trigger-results.js';
import { IMAGEJOBS_PATH, isFinished, type ImageJob } from '../api/types.js';
import { formatBytes } from '../../size.js';
import type { JobContext } from './context.js';
import type { WorkerObjects } from './worker-objects.js';

export type JobStatus = NonNullable<ImageJob['status']>;

export interface Pass {
  job: ImageJob;
  name: string;
  st: JobStatus;
  now: Date;
  owner: Owner;
  ns: string;
  inv: ApplyInventory;
  results: NodeResult[];
  cfg: ImageJob['spec']['config'];
  admin: AdminSettings;
  desired: WorkerObjects;
  podToNode: Map<string, string>;
  /** Why objects could not be created in this pass, by item key (for the deadline's reasons). */
  applyErrors: Map<string, string>;
  /** Pods created in this pass: the cache may not show them yet. */
  justCreated: Set<string>;
  /** Nodes that had failed before this pass (the rest are reported in a NodesFailed Event). */
  failedBefore: Set<string>;
  /** The job's live worker Pods, by item key. */
  live: Map<string, KubeObject>;
  requeue?: number;
  applyFailed?: string;
  /** With spec.rollout: the items apply may create in this pass (rollout.ts); else all. */
  admit?: (item: InventoryItem) => boolean;
  admitCount?: number;
  /** Writes the status if it changed (with observedGeneration and conditions). */
  save(): Promise<void>;
  /** The job waits for a place under maxConcurrentJobs (queue.ts): its condition says Queued. */
  queued?: boolean;
}

export const iso = rfc3339;

/** PUTs the job's status (the only status write of the controller); `job` takes the new resourceVersion. */
export async function putStatus(ctx: JobContext, job: ImageJob, signal?: AbortSignal): Promise<void> {
  const replaced = job.metadata.resourceVersion;
  const updated = await ctx.rest.request<ImageJob>('PUT', `${IMAGEJOBS_PATH}/${job.metadata.name}/status`, {
    body: job,
    signal,
  });
  ctx.reader.wrote('ImageJob', updated, replaced);
  job.metadata.resourceVersion = updated.metadata.resourceVersion;
}

/** The state of one pass over `job` (a copy the pass may edit), with its status writer. */
export function beginPass(
  ctx: JobContext,
  job: ImageJob,
  inv: ApplyInventory,
  results: NodeResult[],
  owner: Owner,
  signal: AbortSignal | undefined,
): Pass {
  const st = job.status!;
  const now = ctx.now();
  let savedText = JSON.stringify(st);
  const p: Pass = {
    job,
    name: job.metadata.name,
    st,
    now,
    owner,
    // Worker objects live in the controllers' namespace, whatever the job says.
    ns: ctx.namespace,
    inv,
    results,
    // Request-level values (deadline, ratio, delays) as recorded at creation; what runs, where
    // it may run and what it must keep come from the administrator's settings.
    cfg: job.spec.config,
    admin: undefined as unknown as AdminSettings,
    desired: new Map(),
    podToNode: new Map(),
    applyErrors: new Map(),
    justCreated: new Set(),
    failedBefore: new Set(),
    live: new Map(),
    save: async () => {
      st.observedGeneration = job.metadata.generation ?? 1;
      // Not started (in the queue, or waiting for what planning needs): Queued, never Running.
      if (!st.planned && !st.phase) st.phase = 'Queued';
      const step = !st.planned
        ? p.queued
          ? 'Queued'
          : 'Planned'
        : p.inv.applying
          ? 'Applying'
          : 'Observing';
      st.conditions = jobConditions(st, st.observedGeneration, step, now);
      if (JSON.stringify(st) === savedText) return;
      await putStatus(ctx, job, signal);
      savedText = JSON.stringify(st);
    },
  };
  return p;
}

/** Copies the node results (and their counts) and the inventory into the status, for save(). */
export function recordStatus(p: Pass): void {
  const { st } = p;
  const c = countResults(p.results);
  st.desired = c.desired;
  st.succeeded = c.succeeded;
  st.failed = c.failed;
  st.skipped = c.skipped;
  st.removed = c.removed;
  st.protected = c.protected;
  st.bytesFreed = c.bytes;
  // For the printer columns (which cannot format): freed and would-free kept apart.
  const human = c.bytes || isFinished(st.phase) ? formatBytes(c.bytes) : undefined;
  if (p.job.spec.dryRun) st.wouldFree = human;
  else st.freed = human;
  const fsSummary = imageFsSummary(p.results);
  if (fsSummary) st.imageFs = fsSummary;
  st.nodes = encodeNodes(p.results);
  st.inventory = p.inv.encode();
}

/** Replaces one node's result. */
export function setResult(p: Pass, r: NodeResult): void {
  const i = p.results.findIndex((x) => x.node === r.node);
  if (i >= 0) p.results[i] = r;
}

/**
 * The job cannot go on for its pending nodes: each fails with `reason`, and the objects still at
 * work (only its Pods with `podsOnly`) are scheduled for deletion.
 */
export function failPending(p: Pass, reason: string, podsOnly = false): void {
  for (const r of p.results) if (r.outcome === 'Pending') setResult(p, { ...r, outcome: 'Failed', reason });
  p.inv.scheduleDeletion(p.inv.activeKeys(podsOnly ? 'Pod' : undefined));
}
