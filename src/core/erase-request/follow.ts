// Following a request or a job until it finishes: one poll a second of the ImageList and its
// ImageJob, and every few seconds of the job's worker Pods (which Pods run, which wait, and at
// the end each node's image list). Everything the caller shows comes as an EraseReport.
import * as resources from '../kube/resources.js';
import { sleep } from '../concurrency.js';
import { isNotFound, KubeApiError, type KubeRest } from '../kube/rest.js';
import { buildReport, type EraseReport, type WorkerPod } from './report.js';
import { requestState } from './request.js';
import { isFinished, JOB_LABEL, type ImageJob, type ImageList } from '../erase/api/types.js';

export interface RequestSnapshot {
  list: ImageList;
  job?: ImageJob;
  generation?: number;
  finished: boolean;
}

/** The job's worker Pods; undefined when they cannot be read (forbidden) — the report then goes without. */
export async function workerPods(rest: KubeRest, job: ImageJob): Promise<WorkerPod[] | undefined> {
  try {
    const r = await resources.list<WorkerPod>(rest, 'Pod', job.spec.namespace, {
      query: { labelSelector: `${JOB_LABEL}=${job.metadata.name}` },
    });
    return r.items;
  } catch (e) {
    if (e instanceof KubeApiError && (e.code === 403 || e.code === 404)) return undefined;
    throw e;
  }
}

/** One look at the request `generation` of ImageList `name` (its job once started). */
export async function requestSnapshot(
  rest: KubeRest,
  name: string,
  generation: number,
): Promise<RequestSnapshot> {
  const st = await requestState(rest, name, generation);
  return { ...st, generation };
}

export class JobNotFoundError extends Error {}

/** One look at job `name` and its ImageList (a list already deleted is rebuilt from the job's spec). */
export async function jobSnapshot(rest: KubeRest, name: string): Promise<RequestSnapshot> {
  let job: ImageJob;
  try {
    job = await resources.get<ImageJob>(rest, 'ImageJob', undefined, name);
  } catch (e) {
    if (isNotFound(e)) throw new JobNotFoundError(`imagejob ${name} not found`);
    throw e;
  }
  const ref = job.spec.imageList;
  let list: ImageList;
  try {
    list = await resources.get<ImageList>(rest, 'ImageList', undefined, ref.name);
    if (list.metadata.uid !== ref.uid) throw new Error('replaced');
  } catch (e) {
    if (!isNotFound(e) && !(e instanceof Error && e.message === 'replaced')) throw e;
    list = { metadata: { name: ref.name }, spec: { images: job.spec.images, dryRun: job.spec.dryRun } };
  }
  return { list, job, generation: ref.generation, finished: isFinished(job.status?.phase) };
}

/** The newest ImageJob (of ImageList `list`, when given), or undefined when there is none. */
export async function newestJob(rest: KubeRest, list?: string): Promise<string | undefined> {
  const r = await resources.list<ImageJob>(
    rest,
    'ImageJob',
    undefined,
    list ? { query: { labelSelector: `erase.imageinventory.dev/imagelist=${list}` } } : {},
  );
  const jobs = r.items.sort((a, b) =>
    (a.metadata.creationTimestamp ?? '') < (b.metadata.creationTimestamp ?? '') ? 1 : -1,
  );
  return jobs[0]?.metadata.name;
}

export interface FollowOptions {
  timeoutMs?: number;
  pollMs?: number;
  /** How often the worker Pods are listed while the job runs. */
  podsEveryMs?: number;
  onProgress?: (r: EraseReport) => void;
}

export class FollowTimeoutError extends Error {
  constructor(
    message: string,
    readonly report: EraseReport,
  ) {
    super(message);
  }
}

/**
 * Polls `look` until the job finishes; returns the final report, with each node's image list
 * read from the worker Pods. Throws FollowTimeoutError (with the last report) after `timeoutMs`.
 */
export async function follow(
  rest: KubeRest,
  look: () => Promise<RequestSnapshot>,
  opts: FollowOptions = {},
): Promise<EraseReport> {
  const deadline = Date.now() + (opts.timeoutMs ?? Infinity);
  let pods: WorkerPod[] | undefined;
  let podsAt = 0;
  for (;;) {
    const st = await look();
    // Listing every worker Pod of a 5,000-node job is tens of MB: the bigger the job, the rarer.
    const every = Math.max(opts.podsEveryMs ?? 3000, (st.job?.status?.desired ?? 0) * 2);
    if (st.job && (st.finished || Date.now() - podsAt >= every)) {
      pods = await workerPods(rest, st.job);
      podsAt = Date.now();
    }
    const report = buildReport(st.list, { generation: st.generation, job: st.job, pods });
    opts.onProgress?.(report);
    if (st.finished) return report;
    if (Date.now() > deadline)
      throw new FollowTimeoutError(
        `gave up waiting after ${Math.round((opts.timeoutMs ?? 0) / 1000)}s (--timeout); the job keeps running`,
        report,
      );
    await sleep(opts.pollMs ?? 1000);
  }
}

export interface JobEvent {
  type: string;
  reason: string;
  message: string;
  /** RFC 3339; the last time it was seen. */
  last: string;
  count: number;
}

/**
 * The Events about ImageJob `name` (the controller's phase changes and node failures), oldest
 * first, at most `limit`; [] when Events cannot be read.
 */
export async function jobEvents(rest: KubeRest, name: string, limit = 20): Promise<JobEvent[]> {
  interface Ev {
    type?: string;
    reason?: string;
    message?: string;
    note?: string;
    count?: number;
    lastTimestamp?: string | null;
    eventTime?: string | null;
    firstTimestamp?: string | null;
    metadata?: { creationTimestamp?: string };
    series?: { count?: number; lastObservedTime?: string };
  }
  let items: Ev[];
  try {
    items = (
      await resources.list<Ev>(rest, 'Event', undefined, {
        query: { fieldSelector: `involvedObject.kind=ImageJob,involvedObject.name=${name}` },
      })
    ).items;
  } catch (e) {
    if (e instanceof KubeApiError && (e.code === 403 || e.code === 404)) return [];
    throw e;
  }
  return items
    .map((e) => ({
      type: e.type ?? 'Normal',
      reason: e.reason ?? '',
      message: e.message ?? e.note ?? '',
      last:
        e.series?.lastObservedTime ??
        e.lastTimestamp ??
        e.eventTime ??
        e.firstTimestamp ??
        e.metadata?.creationTimestamp ??
        '',
      count: e.series?.count ?? e.count ?? 1,
    }))
    .sort((a, b) => (a.last < b.last ? -1 : a.last > b.last ? 1 : 0))
    .slice(-limit);
}
