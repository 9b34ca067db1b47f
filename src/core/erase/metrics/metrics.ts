// Prometheus metrics of the erase controllers, registered on the daemon's registry. Counted once
// per finished job, by the reconcile that records the finish (a job is finished once).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { JobCounts, NodeResult } from '../../contract/results.js';
import type { ImageJob, ImageList } from '../api/types.js';
import { nodeFailureReason, SCAN_FAILURE_REASONS } from '../../contract/scan-failures.js';
import { scheduleSamples } from './schedule-metrics.js';
import { queueSample } from './queue-metrics.js';
import { PLACEMENT_FAILURES, type PlacementFailureKind } from '../../contract/placement-failures.js';

export interface EraseMetrics {
  /** A job reached Completed or Failed; removals and bytes count only when it was not a dry run. */
  jobFinished(result: 'Completed' | 'Failed', counts: JobCounts, dryRun: boolean, seconds: number): void;
  /** Scan mode: a node's result arrived from its worker (counted when it is recorded). */
  nodeScanned?(r: NodeResult, dryRun: boolean, scan?: boolean): void;
  /**
   * The ImageLists the schedule gauges read at each scrape: the running controllers' cache, or
   * undefined when none runs here (not the leader): then the gauges have no samples, and only
   * the leader's scrape tells when each schedule is due.
   */
  readLists?(lists: (() => readonly ImageList[]) | undefined): void;
  /** The same for the queue gauges: this install's ImageJobs, from the running controllers' cache. */
  readJobs?(jobs: (() => readonly ImageJob[]) | undefined): void;
  /** A worker could not be placed on its node (unschedulable) or its kubelet refused it; its node failed. */
  workerNotPlaced?(kind: PlacementFailureKind): void;
  /** A threshold run finished: each measured node's usage, and what the trigger freed. */
  thresholdFinished?(results: readonly NodeResult[], dryRun: boolean): void;
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
  const measured = new Counter({
    name: 'inv_erase_bytes_measured_freed_total',
    help: "Bytes freed on nodes by finished jobs as the runtimes measured their image file systems (usage before minus after; dry runs not counted), on the nodes that measured it: compare with inv_erase_bytes_measured_estimate_total, those nodes' listed sizes.",
    registers,
  });
  const measuredEstimate = new Counter({
    name: 'inv_erase_bytes_measured_estimate_total',
    help: 'The listed sizes of what finished jobs removed on the nodes that measured their freed space (inv_erase_bytes_measured_freed_total).',
    registers,
  });
  const notMeasured = new Counter({
    name: 'inv_erase_freed_not_measured_nodes_total',
    help: "Nodes of finished jobs that removed images but whose runtime gave no usable image file system figure (no ImageFsInfo, a figure that does not count the layers, or none taken after the removals within the worker's wait).",
    registers,
  });
  const protectedImages = new Counter({
    name: 'inv_erase_protected_images_total',
    help: 'Images a * prune kept on a node because a workload references them.',
    registers,
  });
  const notPlaced = new Counter({
    name: 'inv_erase_workers_not_placed_total',
    help: 'Worker Pods that never ran, failing their node: unschedulable (the scheduler could not place it past workerStartGrace, with no preemption under way) or rejected (its kubelet refused it: OutOfpods, OutOfcpu, OutOfmemory...).',
    labelNames: ['reason'] as const,
    registers,
  });
  // Both series exist from the start, so a rate() over them never lacks a baseline.
  for (const reason of PLACEMENT_FAILURES) notPlaced.inc({ reason }, 0);
  const lastDuration = new Gauge({
    name: 'inv_erase_last_job_duration_seconds',
    help: 'How long the most recently finished ImageJob ran, from its start to its finish.',
    registers,
  });
  const vulnerable = new Counter({
    name: 'inv_erase_vulnerable_images_total',
    help: 'Scan mode: images a scanner named on a node, by result: removed, would-remove (dry run), kept (in use, pinned, excluded or protected).',
    labelNames: ['result'] as const,
    registers,
  });
  const scanFailures = new Counter({
    name: 'inv_erase_scan_failures_total',
    help: 'Scan mode: failed scans, by reason: one per image the scanner could not judge (db, timeout, scanner-error, no-reference, bad-report, unreadable-image; kept unless deleteFailedImages), one per node whose whole scan failed (no-answer, invalid-answer, scanner-exit, config-mismatch, other; nothing removed there).',
    labelNames: ['reason'],
    registers,
  });
  const scanDuration = new Histogram({
    name: 'inv_erase_scan_duration_seconds',
    help: "Scan mode: from handing a node's candidates to the scanner to its answer (or inv's deadline).",
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  });
  const fsUsage = new Gauge({
    name: 'inv_erase_node_image_fs_usage_ratio',
    help: "Share (0-1) of each node's image file system its images took, as the last threshold run on the node measured it before removing.",
    labelNames: ['node'] as const,
    registers,
  });
  const thresholdBytes = new Counter({
    name: 'inv_erase_threshold_bytes_freed_total',
    help: 'Bytes freed by threshold runs (spec.imageFs), as the runtimes listed the images (dry runs not counted).',
    registers,
  });
  let lists: (() => readonly ImageList[]) | undefined;
  // Read at scrape time from the controllers' cache: no state to keep in step with the lists.
  const scheduleGauge = (name: string, help: string, which: 'next' | 'lastSuccess') =>
    new Gauge({
      name,
      help,
      labelNames: ['imagelist'] as const,
      registers,
      collect() {
        this.reset();
        for (const s of scheduleSamples(lists?.() ?? [], which))
          this.set({ imagelist: s.imagelist }, s.value);
      },
    });
  scheduleGauge(
    'inv_erase_schedule_next_run_timestamp_seconds',
    'When the next tick of each scheduled ImageList is due (Unix seconds; none while suspended), as its controller computed it.',
    'next',
  );
  scheduleGauge(
    'inv_erase_schedule_last_success_timestamp_seconds',
    'When a job of each scheduled ImageList last completed (Unix seconds).',
    'lastSuccess',
  );
  let jobList: (() => readonly ImageJob[]) | undefined;
  const queueGauge = (name: string, help: string, which: 'queued' | 'oldestAgeSeconds') =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.reset();
        if (jobList) this.set(queueSample(jobList(), Date.now())[which]);
      },
    });
  queueGauge(
    'inv_erase_queued_jobs',
    'ImageJobs not started yet (phase Queued): waiting for a place among maxConcurrentJobs, or for what planning needs.',
    'queued',
  );
  queueGauge(
    'inv_erase_oldest_queued_job_age_seconds',
    'How long the oldest ImageJob not started yet has waited since it was created (0 with none).',
    'oldestAgeSeconds',
  );
  for (const result of ['Completed', 'Failed']) jobs.inc({ result }, 0);
  for (const result of ['removed', 'would-remove', 'kept']) vulnerable.inc({ result }, 0);
  for (const reason of SCAN_FAILURE_REASONS) scanFailures.inc({ reason }, 0);
  return {
    thresholdFinished(results, dryRun) {
      for (const r of results) {
        if (r.imageFsBefore === undefined) continue;
        fsUsage.set({ node: r.node }, r.imageFsBefore / 10_000);
        if (!dryRun) thresholdBytes.inc(r.bytes);
      }
    },
    readLists(view) {
      lists = view;
    },
    readJobs(view) {
      jobList = view;
    },
    jobFinished(result, counts, dryRun, seconds) {
      jobs.inc({ result });
      if (!dryRun) {
        removed.inc(counts.removed);
        bytes.inc(counts.bytes);
        measured.inc(counts.bytesMeasured);
        measuredEstimate.inc(counts.bytesMeasuredEstimate);
        notMeasured.inc(counts.freedNotMeasured);
      }
      protectedImages.inc(counts.protected);
      lastDuration.set(seconds);
    },
    workerNotPlaced(kind) {
      notPlaced.inc({ reason: kind });
    },
    nodeScanned(r, dryRun, scan) {
      // Images the scanner could not judge, by its reason; else a scan-mode node that failed as a
      // whole (the scanner's fault or the worker's: nothing went either way), by what the
      // reason says.
      if (r.scanFailures)
        for (const [reason, n] of Object.entries(r.scanFailures)) scanFailures.inc({ reason }, n);
      else if (scan && r.outcome === 'Failed') scanFailures.inc({ reason: nodeFailureReason(r.reason) });
      if (!r.scanMs && !r.vulnerable && !r.vulnerableKept) return; // not a scan
      vulnerable.inc({ result: dryRun ? 'would-remove' : 'removed' }, r.vulnerable ?? 0);
      vulnerable.inc({ result: 'kept' }, r.vulnerableKept ?? 0);
      scanDuration.observe((r.scanMs ?? 0) / 1000);
    },
  };
}
