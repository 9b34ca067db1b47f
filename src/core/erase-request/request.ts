// What `inv erase` does against the API: create or update the ImageList with a fresh request
// (a new generation, so the same list run twice starts two jobs), then follow its job. A
// scheduled request writes the schedule instead and carries no request id: its ticks start the
// jobs, and writing the same schedule twice changes nothing.
import * as resources from '../kube/resources.js';
import { sleep } from '../concurrency.js';
import { randomUUID } from 'node:crypto';
import type { ScanSpec } from '../erase/spec/vuln-scan.js';
import { isConflict, isNotFound, KubeApiError, type KubeRest } from '../kube/rest.js';
import {
  API_VERSION,
  isFinished,
  type ImageJob,
  type ImageList,
  type ImageFsSpec,
  type ImageListSpec,
} from '../erase/api/types.js';
import type { RolloutSpec } from '../erase/spec/rollout.js';
import type { ScopeSpec } from '../refs/scope.js';

export interface EraseRequest {
  name: string;
  images: string[];
  dryRun?: boolean;
  nodeSelector?: string;
  jobTimeout?: string;
  /** false turns off the inventory's protection of a `*` prune. */
  protectInventory?: boolean;
  /** Rollout waves (spec.rollout). */
  rollout?: RolloutSpec;
  /** Cron expression: the list runs on each tick instead of once now. */
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  suspend?: boolean;
  /** Scan mode: a scanner by the administrator's name, and the policy. */
  scan?: ScanSpec;
  /** Labels of a new list (e.g. the check's mark on its own list). */
  labels?: Record<string, string>;
  /** For `*`: the image file system thresholds and the minimum unused age. */
  imageFs?: ImageFsSpec;
  minUnusedAge?: string;
  /** For `*`: the patterns of a scoped prune (--only, --except). */
  scope?: ScopeSpec;
  /** For `*`: keep the N newest images of each repository on each node. */
  keepNewest?: number;
}

/** A one-off request aimed at a scheduled list: it would silently drop the schedule. */
export class ScheduledListError extends Error {}

const scheduledListMessage = (name: string, schedule: string) =>
  `imagelist/${name} runs on the schedule "${schedule}": a one-off run needs another --name; pass --schedule to change the schedule (with --suspend to pause it), or delete the list to stop it`;

/** Throws ScheduledListError when ImageList `name` exists and runs on a schedule. */
export async function refuseScheduledList(rest: KubeRest, name: string): Promise<void> {
  try {
    const cur = await resources.get<ImageList>(rest, 'ImageList', undefined, name);
    if (cur.spec.schedule) throw new ScheduledListError(scheduledListMessage(name, cur.spec.schedule));
  } catch (e) {
    // Absent: nothing to refuse. Forbidden: the preflight names the missing permission.
    if (!isNotFound(e) && !(e instanceof KubeApiError && e.code === 403)) throw e;
  }
}

/** Writes the request; returns the ImageList generation it became. */
export async function submitErase(rest: KubeRest, req: EraseRequest): Promise<number> {
  const spec: ImageListSpec = {
    images: req.images,
    dryRun: req.dryRun ?? false,
    ...(req.nodeSelector ? { nodeSelector: req.nodeSelector } : {}),
    ...(req.jobTimeout ? { jobTimeout: req.jobTimeout } : {}),
    ...(req.protectInventory === false ? { protectInventory: false } : {}),
    ...(req.imageFs ? { imageFs: req.imageFs } : {}),
    ...(req.minUnusedAge ? { minUnusedAge: req.minUnusedAge } : {}),
    ...(req.scope ? { scope: req.scope } : {}),
    ...(req.keepNewest !== undefined ? { keepNewest: req.keepNewest } : {}),
    ...(req.rollout ? { rollout: req.rollout } : {}),
    ...(req.scan ? { scan: req.scan } : {}),
    ...(req.schedule
      ? {
          schedule: req.schedule,
          ...(req.timeZone ? { timeZone: req.timeZone } : {}),
          ...(req.startingDeadlineSeconds ? { startingDeadlineSeconds: req.startingDeadlineSeconds } : {}),
          ...(req.suspend ? { suspend: true } : {}),
        }
      : { request: randomUUID() }),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const cur = await resources.get<ImageList>(rest, 'ImageList', undefined, req.name);
      if (cur.spec.schedule && !req.schedule)
        throw new ScheduledListError(scheduledListMessage(req.name, cur.spec.schedule));
      const out = await resources.replace<ImageList>(rest, 'ImageList', undefined, req.name, {
        ...cur,
        spec,
      });
      return out.metadata.generation ?? 1;
    } catch (e) {
      if (isNotFound(e)) {
        try {
          const out = await resources.create<ImageList>(rest, 'ImageList', undefined, {
            apiVersion: API_VERSION,
            kind: 'ImageList',
            metadata: { name: req.name, ...(req.labels ? { labels: req.labels } : {}) },
            spec,
          });
          return out.metadata.generation ?? 1;
        } catch (e2) {
          if (!isConflict(e2) || attempt > 5) throw e2;
          continue;
        }
      }
      if (!isConflict(e) || attempt > 5) throw e;
    }
  }
}

export class EraseRequestError extends Error {}

/**
 * One look at the request: the job, once started, and whether it finished. Throws
 * EraseRequestError when the controller rejected the request (bad images or configuration).
 */
export async function requestState(
  rest: KubeRest,
  name: string,
  generation: number,
): Promise<{ list: ImageList; job?: ImageJob; finished: boolean }> {
  const list = await resources.get<ImageList>(rest, 'ImageList', undefined, name);
  const s = list.status;
  if (s?.phase === 'Error' && (s.observedGeneration ?? 0) >= generation)
    throw new EraseRequestError(s.message ?? 'rejected');
  if (s?.lastJobGeneration !== generation || !s.lastJob) return { list, finished: false };
  try {
    const job = await resources.get<ImageJob>(rest, 'ImageJob', undefined, s.lastJob);
    return { list, job, finished: isFinished(job.status?.phase) };
  } catch (e) {
    if (!isNotFound(e)) throw e;
    // Already cleaned up: the list holds the counts.
    return { list, finished: isFinished(s.phase) || s.phase === 'Cancelled' };
  }
}

/** Polls until the request's job finishes (or `signal` aborts / `timeoutMs` passes). */
export async function waitForJob(
  rest: KubeRest,
  name: string,
  generation: number,
  opts: {
    onProgress?: (job: ImageJob | undefined, list: ImageList) => void;
    pollMs?: number;
    timeoutMs?: number;
    signal?: AbortSignal;
  } = {},
): Promise<{ list: ImageList; job?: ImageJob }> {
  const deadline = Date.now() + (opts.timeoutMs ?? Infinity);
  for (;;) {
    const st = await requestState(rest, name, generation);
    opts.onProgress?.(st.job, st.list);
    if (st.finished) return st;
    if (opts.signal?.aborted) throw new Error('aborted');
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for the job of ImageList ${name} generation ${generation}`);
    await sleep(opts.pollMs ?? 500);
  }
}
