// PURE: what the queue gauges say about the jobs that have not started (phase Queued: waiting for
// a place among maxConcurrentJobs, or for what planning needs): how many, and how long the oldest
// has waited. A queue that only grows, or an oldest age past a night, means the places are held:
// by long jobs, or by requesters (requesterLimits, ../../config/requester-limits.ts).
import { isFinished, type ImageJob } from '../api/types.js';

export interface QueueSample {
  queued: number;
  /** Seconds since the oldest queued job was created; 0 with none. */
  oldestAgeSeconds: number;
}

export function queueSample(jobs: readonly ImageJob[], now: number): QueueSample {
  let queued = 0;
  let oldest = Infinity;
  for (const j of jobs) {
    if (j.metadata.deletionTimestamp || j.status?.planned || isFinished(j.status?.phase)) continue;
    queued++;
    const t = Date.parse(j.metadata.creationTimestamp ?? '');
    if (Number.isFinite(t)) oldest = Math.min(oldest, t);
  }
  return {
    queued,
    oldestAgeSeconds: queued && Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0,
  };
}
