// One reconcile pass of an ImageJob: the job as read, its decoded inventory and node results, and
// what the phases (plan, apply, observe, finish, clean up) hand on to each other. At the bottom
// of the controller: the one status writer (every status PUT of the controller goes through
// putStatus) and the one "fail the pending nodes and stop their workers" step.
import * as resources from '../../kube/resources.js';
import { rfc3339, timeAfter } from '../../timestamps.js';
import type { ApplyInventory } from '../../apply-inventory/apply-inventory.js';
import { canonical } from '../../apply-inventory/same-content.js';
import type { KubeObject, Owner } from '../../apply-inventory/objects.js';
import type { InventoryItem } from '../../apply-inventory/apply-inventory.js';
import { jobConditions } from '../api/conditions.js';
import type { AdminSettings } from '../cluster/settings.js';
import { countResults, type NodeResult } from '../../contract/results.js';
import { fitNodes, nodesAtomic, roomForNodes } from '../api/status-budget.js';
import { cleanText } from '../../contract/report-check.js';
import { imageFsSummary } from '../../contract/trigger-results.js';
import { isFinished, type ImageJob } from '../api/types.js';
import { formatBytes } from '../../size.js';
import { KubeApiError } from '../../kube/rest.js';
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
  /** Set when this pass failed the job because its status could not fit (recordStatus). */
  tooLarge?: string;
  /** Set once this pass counted the job's end (finish.ts): it is counted once. */
  counted?: boolean;
}

export const iso = rfc3339;

/** PUTs the job's status (the only status write of the controller); `job` takes the new resourceVersion. */
export async function putStatus(ctx: JobContext, job: ImageJob, signal?: AbortSignal): Promise<void> {
  const replaced = job.metadata.resourceVersion;
  const path = resources.resourcePath('ImageJob', undefined, job.metadata.name, 'status');
  const updated = await ctx.rest.request<ImageJob>('PUT', path, { body: job, signal });
  ctx.reader.wrote('ImageJob', updated, replaced);
  job.metadata.resourceVersion = updated.metadata.resourceVersion;
  // A CRD older than this controller prunes the field: the job would lose its node results.
  if (job.status?.nodesPacked && !updated.status?.nodesPacked)
    throw new KubeApiError(
      422,
      'Invalid',
      'status.nodesPacked was dropped: the ImageJob CRD is older than this controller; update the CRDs (inv install, or the chart)',
      'PUT',
      path,
    );
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
  // Compared in sorted-key form: the server returns the status's keys in its own order, and
  // recordStatus may re-add a key, so an unchanged status must not read as a change.
  let savedText = canonical(st);
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
      if (canonical(st) === savedText) return;
      await putStatus(ctx, job, signal);
      savedText = canonical(st);
    },
  };
  return p;
}

/**
 * A job whose node entries were left out because they could not fit: its totals are the ones
 * recorded then (its results no longer are).
 */
export const nodesOmitted = (st: JobStatus, results: readonly NodeResult[]): boolean =>
  results.length === 0 && (st.desired ?? 0) > 0 && !st.nodes?.length && !st.nodesPacked;

/**
 * Copies the node results (and their counts) and the inventory into the status, for save(),
 * within what etcd can store beside the spec (status-budget.ts): whole, abridged or packed; when
 * even packed they cannot fit, the job fails with the reason, its pending nodes with it, and
 * its nodes' entries are left out (its totals stay).
 */
export function recordStatus(p: Pass): void {
  const { st } = p;
  st.inventory = p.inv.encode();
  if (nodesOmitted(st, p.results)) return;
  const c = countResults(p.results);
  st.desired = c.desired;
  st.succeeded = c.succeeded;
  st.failed = c.failed;
  st.skipped = c.skipped;
  st.removed = c.removed;
  st.protected = c.protected;
  st.bytesFreed = c.bytes;
  // The runtimes' own figure beside the estimate (contract/freed-space.ts); absent when no node measured.
  if (c.bytesMeasuredEstimate || c.bytesMeasured) {
    st.bytesMeasured = c.bytesMeasured;
    st.bytesMeasuredEstimate = c.bytesMeasuredEstimate;
  } else {
    delete st.bytesMeasured;
    delete st.bytesMeasuredEstimate;
  }
  if (c.freedNotMeasured) st.freedNotMeasured = c.freedNotMeasured;
  else delete st.freedNotMeasured;
  // For the printer columns (which cannot format): freed and would-free kept apart.
  const human = c.bytes || isFinished(st.phase) ? formatBytes(c.bytes) : undefined;
  if (p.job.spec.dryRun) st.wouldFree = human;
  else st.freed = human;
  const fsSummary = imageFsSummary(p.results);
  if (fsSummary) st.imageFs = fsSummary;
  delete st.nodes;
  delete st.nodesPacked;
  const fit = fitNodes(p.results, roomForNodes(p.job), nodesAtomic(p.job));
  if ('problem' in fit) return failTooLarge(p, fit.problem);
  if (fit.nodes) st.nodes = fit.nodes;
  else st.nodesPacked = fit.nodesPacked;
}

/** The job's status cannot hold its nodes: it fails with the reason, its entries left out. */
function failTooLarge(p: Pass, problem: string): void {
  const { st, now } = p;
  const reason = cleanText(`status too large: ${problem}`, 1000);
  failPending(p, 'status too large');
  if (st.phase !== 'Failed') {
    st.phase = 'Failed';
    st.completionTime = iso(now);
    st.deleteAfter = iso(timeAfter(now, p.cfg.delayOnFailureSeconds * 1000, 'deleteAfter'));
  }
  st.message = reason;
  p.tooLarge = reason;
  const c = countResults(p.results);
  Object.assign(st, { failed: c.failed, succeeded: c.succeeded, skipped: c.skipped });
  st.inventory = p.inv.encode();
  delete st.nodes;
  delete st.nodesPacked;
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
