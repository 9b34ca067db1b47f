// The cluster-wide bound on running jobs (the administrator's maxConcurrentJobs): without it,
// anyone allowed to create ImageLists could start 150 jobs and 300 worker Pods at once. A job
// not planned yet waits while the running jobs, and the jobs queued before it, fill the bound;
// it says so in its status (message, condition reason Queued) and an Event, and is looked at
// again every few seconds. Jobs go in creation order, then by name. A job that is running keeps
// running when the bound is lowered: the bound only holds back jobs that have not started.
import { isFinished, type ImageJob } from '../../api/types.js';
import type { JobContext } from '../context.js';
import { jobEvent } from '../job-events.js';
import type { Pass } from '../pass.js';

const QUEUED_PREFIX = 'queued: ';

/** How soon a queued job looks again (a finished job frees its place for the next look). */
export const QUEUE_RETRY_MS = 3000;

export interface QueuePlace {
  /** The running jobs that hold the places, by name. */
  running: string[];
  /** Jobs queued before this one. */
  ahead: number;
  limit: number;
}

const order = (j: ImageJob): [number, string] => [
  Date.parse(j.metadata.creationTimestamp ?? '') || 0,
  j.metadata.name,
];
const before = (a: ImageJob, b: ImageJob): boolean => {
  const [ta, na] = order(a);
  const [tb, nb] = order(b);
  return ta !== tb ? ta < tb : na < nb;
};

/**
 * Where `job` stands among the jobs of the same workers' namespace (one install's jobs: every
 * job in a cluster with one install), or undefined when it may start now. PURE.
 */
export function queuePlace(job: ImageJob, all: readonly ImageJob[], limit: number): QueuePlace | undefined {
  const others = all.filter(
    (j) =>
      j.metadata.name !== job.metadata.name &&
      j.spec?.namespace === job.spec.namespace &&
      !j.metadata.deletionTimestamp &&
      !isFinished(j.status?.phase),
  );
  const running = others.filter((j) => j.status?.planned).map((j) => j.metadata.name);
  const ahead = others.filter((j) => !j.status?.planned && before(j, job)).length;
  return running.length + ahead < limit ? undefined : { running: running.sort(), ahead, limit };
}

/** The status message of a queued job. PURE. */
export function queuedMessage(q: QueuePlace): string {
  const names =
    q.running.slice(0, 3).join(', ') + (q.running.length > 3 ? `, and ${q.running.length - 3} more` : '');
  return `${QUEUED_PREFIX}${q.running.length} job(s) running${names ? ` (${names})` : ''} and ${q.ahead} queued before this one, at the cluster's bound of ${q.limit} (maxConcurrentJobs)`;
}

/** Whether the job's last pass left it waiting in the queue (its message says so). */
export const isQueued = (st: { message?: string }): boolean => Boolean(st.message?.startsWith(QUEUED_PREFIX));

/** Returns when to look again while the job must wait, or undefined when it may be planned. */
export async function waitInQueue(ctx: JobContext, p: Pass): Promise<number | undefined> {
  const q = queuePlace(p.job, await ctx.reader.allJobs(), p.admin.config.maxConcurrentJobs);
  if (!q) return undefined;
  const first = !isQueued(p.st);
  p.st.message = queuedMessage(q);
  p.queued = true;
  await p.save();
  if (first) {
    ctx.log.info('job queued', { job: p.name, running: q.running.length, ahead: q.ahead, limit: q.limit });
    await jobEvent(ctx, p.job, 'queued', 'Normal', 'Queued', p.st.message);
  }
  return QUEUE_RETRY_MS;
}
