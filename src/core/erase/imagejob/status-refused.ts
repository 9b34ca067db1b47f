// A job whose status write the API server refuses for its size (413, etcd's "request is too
// large") or its content (422), or whose times cannot be computed, fails with the reason instead
// of every reconcile throwing and retrying forever with the job Running and holding its slot.
// The budget (../api/status-budget.ts) keeps this from happening; this is the net under it,
// for what it did not foresee (a CRD that refuses a field, a server with a lower limit).
//
// The job is read fresh from the server: what is stored there fits, so the failed status built
// from it (pending nodes Failed, active objects scheduled for deletion, node entries in the
// first form that fits, left out if none does, the totals kept) is written, with a Warning Event
// (StatusRefused) and the job counted as Failed once. Its cleanup then runs as for any failed job.
import { ApplyInventory } from '../../apply-inventory/apply-inventory.js';
import { KubeApiError } from '../../kube/rest.js';
import { InvalidTimeError, rfc3339, timeAfter } from '../../timestamps.js';
import { TerminalError } from '../../controller/reconcile.js';
import { jobConditions } from '../api/conditions.js';
import { cleanText } from '../../contract/report-check.js';
import { countResults } from '../../contract/results.js';
import { fitNodes, nodesAtomic, roomForNodes, statusNodes } from '../api/status-budget.js';
import { isFinished, type ImageJob } from '../api/types.js';
import type { JobContext } from './context.js';
import { jobEvent } from './job-events.js';
import { putStatus } from './pass.js';

/**
 * Why retrying cannot help, when `e` is a refused status write of a job or a time that cannot be
 * computed; undefined for anything else (retried as before).
 */
export function refusal(e: unknown): string | undefined {
  if (e instanceof InvalidTimeError) return e.message;
  if (!(e instanceof KubeApiError)) return undefined;
  if (!(e.method === 'PUT' && /\/imagejobs\/[^/]+\/status$/.test(e.path))) return undefined;
  if (e.code === 413 || (e.code >= 500 && /request is too large|too large/i.test(e.message)))
    return `the API server refused the job's status for its size: ${e.message}`;
  if (e.code === 422 || e.code === 400) return `the API server refused the job's status: ${e.message}`;
  return undefined;
}

/**
 * Fails job `name` with `why` (see the top of this file); when to look again: at once for a job
 * it just failed (its cleanup goes on), after a resync for one that had finished already (its
 * later writes were refused too: never in a tight loop).
 */
export async function failRefused(ctx: JobContext, name: string, why: string): Promise<number | undefined> {
  const job = await ctx.direct.job(name);
  if (!job) return undefined;
  // Being deleted: the finalizer writes only the inventory; retried with the queue's backoff.
  if (job.metadata.deletionTimestamp) throw new Error(why);
  const st = (job.status ??= {});
  const now = ctx.now();
  const reason = cleanText(why, 1000);
  const omitted = !st.nodes?.length && !st.nodesPacked && (st.desired ?? 0) > 0;
  // Stored as Completed but without its node entries: the write landed and the server dropped
  // them (a CRD without nodesPacked). What each node did is lost, so the job cannot stand as
  // Completed (a failure never looks like success): it fails, and is counted, like an unfinished one.
  const wasFinished = isFinished(st.phase) && !(omitted && st.phase === 'Completed');
  const results = statusNodes(st, true).map((r) =>
    r.outcome === 'Pending' ? { ...r, outcome: 'Failed' as const, reason: 'status refused' } : r,
  );
  const inv = ApplyInventory.decode(st.inventory);
  inv.scheduleDeletion(inv.activeKeys());
  st.inventory = inv.encode();
  if (!wasFinished) {
    st.phase = 'Failed';
    st.completionTime = rfc3339(now);
    let delay = now;
    try {
      delay = timeAfter(now, job.spec.config.delayOnFailureSeconds * 1000, 'deleteAfter');
    } catch {
      // A delay that is not a number: clean up now.
    }
    st.deleteAfter = rfc3339(delay);
  }
  st.message = reason;
  if (!omitted) {
    const c = countResults(results);
    Object.assign(st, { succeeded: c.succeeded, failed: c.failed, skipped: c.skipped });
  }
  delete st.nodes;
  delete st.nodesPacked;
  const fit = omitted ? undefined : fitNodes(results, roomForNodes(job), nodesAtomic(job));
  if (fit && 'nodes' in fit && fit.nodes) st.nodes = fit.nodes;
  else if (fit && 'nodesPacked' in fit && fit.nodesPacked) st.nodesPacked = fit.nodesPacked;
  st.conditions = jobConditions(st, job.metadata.generation ?? 1, 'Observing', now);
  await write(ctx, job);
  ctx.log.warn('job status refused, job failed', { job: name, reason });
  await jobEvent(ctx, job, 'status-refused', 'Warning', 'StatusRefused', reason);
  if (!wasFinished) {
    const ran = (now.getTime() - Date.parse(st.startTime ?? '')) / 1000;
    ctx.metrics?.jobFinished('Failed', countResults(results), Boolean(job.spec.dryRun), ran > 0 ? ran : 0);
  }
  return wasFinished ? ctx.resyncMs : 0;
}

/** The failed status; without its node entries if even that is refused; else for good. */
async function write(ctx: JobContext, job: ImageJob): Promise<void> {
  try {
    await putStatus(ctx, job);
    return;
  } catch (e) {
    if (!refusal(e) || (!job.status?.nodes && !job.status?.nodesPacked)) throw terminal(e);
  }
  delete job.status!.nodes;
  delete job.status!.nodesPacked;
  await putStatus(ctx, job).catch((e: unknown) => Promise.reject(terminal(e)));
}

const terminal = (e: unknown) =>
  refusal(e) ? new TerminalError(`the job's status cannot be written: ${(e as Error).message}`) : e;
