// Finish: once no node is pending, Completed if (succeeded+skipped)/desired reaches the success
// ratio, else Failed; deleteAfter = now + delayOnSuccess/delayOnFailure. Written, then counted
// (metrics and the final Event), so a conflict means the next pass finishes and counts it once.
import { countResults, jobPhase } from '../../contract/results.js';
import type { JobContext } from './context.js';
import { jobEvent } from './job-events.js';
import { timeAfter } from '../../timestamps.js';
import { iso, nodesOmitted, recordStatus, type Pass } from './pass.js';
import { DEFAULT_RECORD_RETENTION } from '../config/record-retention.js';

/**
 * Each job that finishes has just added to the removal record: the records past the retention go
 * (by this controller's clock, as the administrator's settings say now). A failure is logged, never fails the job: the next one tries again.
 */
export async function pruneRecords(ctx: JobContext, p: Pass): Promise<void> {
  if (!ctx.records) return;
  try {
    const n = await ctx.records.prune(p.now, p.admin?.config.record ?? DEFAULT_RECORD_RETENTION);
    if (n) ctx.log.info('removal records past their retention deleted', { records: n });
  } catch (e) {
    ctx.log.warn('removal records could not be pruned', { error: (e as Error).message });
  }
}

export async function finish(ctx: JobContext, p: Pass): Promise<void> {
  const { job, name, st, now, cfg } = p;
  const counts = countResults(p.results);
  if (!(st.phase === 'Running' && counts.pending === 0) || nodesOmitted(st, p.results)) return;
  // A rollout stopped by its failure budget failed, whatever the ratio of the nodes it skipped.
  st.phase = st.rollout?.stopped ? 'Failed' : jobPhase(counts, cfg.successRatio);
  st.completionTime = iso(now);
  const delay = st.phase === 'Completed' ? cfg.delayOnSuccessSeconds : cfg.delayOnFailureSeconds;
  st.deleteAfter = iso(timeAfter(now, delay * 1000, 'deleteAfter'));
  ctx.log.info('job finished', { job: name, phase: st.phase, ...counts });
  // Saved before counting: a conflict here means the next pass finishes it (and counts it).
  recordStatus(p);
  await p.save();
  p.counted = true;
  await pruneRecords(ctx, p);
  const ran = (Date.parse(st.completionTime ?? '') - Date.parse(st.startTime ?? '')) / 1000;
  ctx.metrics?.jobFinished(st.phase, counts, Boolean(job.spec.dryRun), Number.isFinite(ran) ? ran : 0);
  if (job.spec.imageFs) ctx.metrics?.thresholdFinished?.(p.results, Boolean(job.spec.dryRun));
  await jobEvent(
    ctx,
    job,
    'finished',
    st.phase === 'Completed' ? 'Normal' : 'Warning',
    st.phase,
    `${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.skipped} skipped of ${counts.desired} node(s)${st.message ? `; ${st.message}` : ''}`,
  );
}
