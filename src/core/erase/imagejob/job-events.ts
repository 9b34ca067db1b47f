// Events on the ImageJob: one per thing reported, named after it (../cluster/events.ts), so a repeated
// pass writes no second Event; node failures aggregated per pass and bounded per job.
import { writeEvent } from '../cluster/events.js';
import type { NodeResult } from '../../contract/results.js';
import type { ImageJob } from '../api/types.js';
import type { JobContext } from './context.js';

/** After this many failed nodes, node failures are reported only in the job's final Event. */
const MAX_FAILURE_EVENT_NODES = 50;

/** One Event on the job, named after what it reports: written once however often seen. */
export async function jobEvent(
  ctx: JobContext,
  job: ImageJob,
  key: string,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string | undefined,
): Promise<void> {
  const err = await writeEvent(ctx.rest, {
    name: `${job.metadata.name}.${(job.metadata.uid ?? '').slice(0, 8)}.${key}`,
    involved: { kind: 'ImageJob', name: job.metadata.name, uid: job.metadata.uid },
    type,
    reason,
    message: message ?? '',
    component: 'inv-erase-imagejob-controller',
  });
  if (err) ctx.log.warn('could not write an Event', { job: job.metadata.name, reason, error: err });
}

/**
 * Nodes that failed in this pass, as one Warning Event (NodesFailed) naming the first few and
 * their reasons. Bounded: the name carries the number of failures so far, and once
 * MAX_FAILURE_EVENT_NODES nodes have failed, later failures are left to the job's final Event
 * and its status, so 5,000 failing nodes never mean 5,000 Events.
 */
export async function reportFailures(
  ctx: JobContext,
  job: ImageJob,
  results: NodeResult[],
  before: Set<string>,
): Promise<void> {
  if (before.size >= MAX_FAILURE_EVENT_NODES) return;
  const fresh = results.filter((r) => r.outcome === 'Failed' && !before.has(r.node));
  if (!fresh.length) return;
  const shown = fresh.slice(0, 5).map((r) => `${r.node} (${r.reason})`);
  const more = fresh.length > shown.length ? `; and ${fresh.length - shown.length} more` : '';
  await jobEvent(
    ctx,
    job,
    `failed-${before.size + fresh.length}`,
    'Warning',
    'NodesFailed',
    `${fresh.length} node(s) failed: ${shown.join('; ')}${more}`,
  );
}
