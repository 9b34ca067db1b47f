// Prometheus metrics of the erase controllers, registered on the daemon's registry. Counted once
// per finished job, by the reconcile that records the finish (a job is finished once).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { JobCounts } from './api/results.js';

export interface EraseMetrics {
  /** A job reached Completed or Failed; removals and bytes count only when it was not a dry run. */
  jobFinished(result: 'Completed' | 'Failed', counts: JobCounts, dryRun: boolean, seconds: number): void;
}

export function createEraseMetrics(registry: Registry): EraseMetrics {
  const registers = [registry];
  const jobs = new Counter({
    name: 'inv_erase_jobs_total',
    help: 'ImageJobs finished, by result (Completed or Failed).',
    labelNames: ['result'] as const,
    registers,
  });
  const removed = new Counter({
    name: 'inv_erase_images_removed_total',
    help: 'Images removed from nodes by finished jobs (dry runs not counted).',
    registers,
  });
  const bytes = new Counter({
    name: 'inv_erase_bytes_reclaimed_total',
    help: 'Bytes freed on nodes by finished jobs, as the runtimes listed the images (dry runs not counted).',
    registers,
  });
  const protectedImages = new Counter({
    name: 'inv_erase_protected_images_total',
    help: 'Images a * prune kept on a node because a workload references them.',
    registers,
  });
  const lastDuration = new Gauge({
    name: 'inv_erase_last_job_duration_seconds',
    help: 'How long the most recently finished ImageJob ran, from its start to its finish.',
    registers,
  });
  for (const result of ['Completed', 'Failed']) jobs.inc({ result }, 0);
  return {
    jobFinished(result, counts, dryRun, seconds) {
      jobs.inc({ result });
      if (!dryRun) {
        removed.inc(counts.removed);
        bytes.inc(counts.bytes);
      }
      protectedImages.inc(counts.protected);
      lastDuration.set(seconds);
    },
  };
}
