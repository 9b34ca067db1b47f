// A job failed in this pass because its node results could not fit beside its spec
// (pass.ts recordStatus, ../api/status-budget.ts): once its status is saved, a Warning Event
// (StatusTooLarge) says why and the job is counted as Failed, once (unless finish.ts, which
// ended it in the same pass, counted it).
import { countResults } from '../../contract/results.js';
import type { JobContext } from './context.js';
import { jobEvent } from './job-events.js';
import type { Pass } from './pass.js';

export async function reportTooLarge(ctx: JobContext, p: Pass): Promise<void> {
  if (!p.tooLarge) return;
  ctx.log.warn('job status too large, job failed', { job: p.name, reason: p.tooLarge });
  await jobEvent(ctx, p.job, 'status-too-large', 'Warning', 'StatusTooLarge', p.tooLarge);
  if (p.counted) return;
  p.counted = true;
  const ran = (p.now.getTime() - Date.parse(p.st.startTime ?? '')) / 1000;
  ctx.metrics?.jobFinished('Failed', countResults(p.results), Boolean(p.job.spec.dryRun), ran > 0 ? ran : 0);
}
