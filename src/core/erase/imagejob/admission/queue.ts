// The cluster-wide bound on running jobs (the administrator's maxConcurrentJobs): without it,
// anyone allowed to create ImageLists could start 150 jobs and 300 worker Pods at once. A job
// not planned yet waits while the running jobs, and the jobs queued before it, fill the bound;
// it says so in its status (message, condition reason Queued) and an Event, and is looked at
// again every few seconds, in phase Queued (never Running: nothing of it runs yet). Jobs go in
// creation order, then by name, the administrator's lists first; requesters' lists together hold
// at most requesterLimits.maxJobs places (../../config/requester-limits.ts), so the rest stay free
// for the administrator's. A job that is running keeps running when the bound is lowered: the
// bound only holds back jobs that have not started.
import { isFinished, type ImageJob } from '../../api/types.js';
import type { JobContext } from '../context.js';
import { jobEvent } from '../job-events.js';
import { limitsOf } from '../../config/requester-limits.js';
import type { Pass } from '../pass.js';

const QUEUED_PREFIX = 'queued: ';

/** How soon a queued job looks again (a finished job frees its place for the next look). */
export const QUEUE_RETRY_MS = 3000;

export interface QueuePlace {
  /** The running jobs that hold the places, by name (with `share`: the requesters' only). */
  running: string[];
  /** Jobs queued before this one. */
  ahead: number;
  limit: number;
  /** Held back by requesterLimits.maxJobs (requesters' share), not by maxConcurrentJobs. */
  share?: boolean;
}

/** Which jobs are the administrator's, and the requesters' share (requester-limits.ts). */
export interface QueuePolicy {
  /** ImageList names of the administrator's lists. */
  administratorLists: readonly string[];
  /** Places requesters' jobs hold together (at most `limit`). */
  requesterJobs: number;
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
 * job in a cluster with one install), or undefined when it may start now. The administrator's
 * jobs go first (in creation order among themselves) and may take every place; requesters' jobs
 * follow, in creation order, and hold at most `policy.requesterJobs` places together. A running
 * job is never stopped for another. PURE.
 */
export function queuePlace(
  job: ImageJob,
  all: readonly ImageJob[],
  limit: number,
  policy: QueuePolicy = { administratorLists: [], requesterJobs: limit },
): QueuePlace | undefined {
  const admin = (j: ImageJob) => policy.administratorLists.includes(j.spec?.imageList?.name ?? '');
  const mine = admin(job);
  const others = all.filter(
    (j) =>
      j.metadata.name !== job.metadata.name &&
      j.spec?.namespace === job.spec.namespace &&
      !j.metadata.deletionTimestamp &&
      !isFinished(j.status?.phase),
  );
  const running = others.filter((j) => j.status?.planned);
  // Ahead: the administrator's waiting jobs before a requester's; the same kind, by age.
  const ahead = others.filter((j) => !j.status?.planned && (admin(j) === mine ? before(j, job) : admin(j)));
  if (running.length + ahead.length >= limit)
    return { running: running.map((j) => j.metadata.name).sort(), ahead: ahead.length, limit };
  if (mine) return undefined;
  const theirs = running.filter((j) => !admin(j));
  const theirsAhead = ahead.filter((j) => !admin(j)).length;
  if (theirs.length + theirsAhead < Math.min(limit, policy.requesterJobs)) return undefined;
  return {
    running: theirs.map((j) => j.metadata.name).sort(),
    ahead: theirsAhead,
    limit: Math.min(limit, policy.requesterJobs),
    share: true,
  };
}

/** The status message of a queued job. PURE. */
export function queuedMessage(q: QueuePlace, maxConcurrentJobs = q.limit): string {
  const names =
    q.running.slice(0, 3).join(', ') + (q.running.length > 3 ? `, and ${q.running.length - 3} more` : '');
  const runs = `${q.running.length} job(s)${q.share ? " of requesters' lists" : ''} running${names ? ` (${names})` : ''} and ${q.ahead} queued before this one`;
  return q.share
    ? `${QUEUED_PREFIX}${runs}, at requesters' share of ${q.limit} of the cluster's ${maxConcurrentJobs} places (requesterLimits.maxJobs; the rest are kept for the administrator's lists)`
    : `${QUEUED_PREFIX}${runs}, at the cluster's bound of ${q.limit} (maxConcurrentJobs)`;
}

/** Whether the job's last pass left it waiting in the queue (its message says so). */
export const isQueued = (st: { message?: string }): boolean => Boolean(st.message?.startsWith(QUEUED_PREFIX));

/** Returns when to look again while the job must wait, or undefined when it may be planned. */
export async function waitInQueue(ctx: JobContext, p: Pass): Promise<number | undefined> {
  const cfg = p.admin.config;
  const limits = limitsOf(cfg);
  const q = queuePlace(p.job, await ctx.reader.allJobs(), cfg.maxConcurrentJobs, {
    administratorLists: limits.administratorLists,
    requesterJobs: limits.maxJobs,
  });
  if (!q) return undefined; // plan makes it Running (until then it stays Queued: pass.ts)
  const first = !isQueued(p.st);
  p.st.message = queuedMessage(q, cfg.maxConcurrentJobs);
  p.st.phase = 'Queued';
  p.queued = true;
  await p.save();
  if (first) {
    ctx.log.info('job queued', { job: p.name, running: q.running.length, ahead: q.ahead, limit: q.limit });
    await jobEvent(ctx, p.job, 'queued', 'Normal', 'Queued', p.st.message);
  }
  return QUEUE_RETRY_MS;
}
