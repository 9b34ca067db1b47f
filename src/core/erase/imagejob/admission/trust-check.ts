// Act only on jobs of a live ImageList, within the administrator's configuration and policy: a
// job refused before it was planned is marked Failed for good (a TerminalError); a running job
// whose list went away creates nothing more and stops what has not finished.
import { TerminalError } from '../../../controller/reconcile.js';
import { trustProblem } from './trust.js';
import type { JobContext } from '../context.js';
import { jobEvent } from '../job-events.js';
import { failPending, iso, type Pass } from '../pass.js';

export async function checkTrust(ctx: JobContext, p: Pass): Promise<void> {
  const { job, name, st } = p;
  if (!(!st.planned || (st.phase === 'Running' && p.inv.applying))) return;
  // A refusal is for good: a verdict read from a cache is confirmed at the server first.
  let problem = await trustProblem(ctx.reader, job, !st.planned);
  if (problem && ctx.reader !== ctx.direct) problem = await trustProblem(ctx.direct, job, !st.planned);
  if (!problem) return;
  if (!st.planned) {
    st.phase = 'Failed';
    st.message = `refused: ${problem}`;
    st.completionTime = iso(p.now);
    await p.save();
    ctx.log.warn('ImageJob refused, nothing created', { job: name, reason: problem });
    throw new TerminalError(`ImageJob ${name} refused: ${problem}`);
  }
  // Its list went away while it ran: create nothing more, stop what has not finished.
  failPending(p, `refused: ${problem}`);
  st.message = `refused: ${problem}`;
}

/** A job that may not run: Failed before anything is created, for good. */
export async function refuse(ctx: JobContext, p: Pass, reason: string): Promise<undefined> {
  const { st, name } = p;
  st.phase = 'Failed';
  st.message = reason;
  st.completionTime = iso(p.now);
  await p.save();
  ctx.log.warn('ImageJob refused, nothing created', { job: name, reason });
  await jobEvent(ctx, p.job, 'refused', 'Warning', 'Refused', reason);
  throw new TerminalError(`ImageJob ${name} refused: ${reason}`);
}
