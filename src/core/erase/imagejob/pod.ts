// The fields of a worker Pod the ImageJob controller reads.
import type { KubeObject } from '../../apply-inventory/objects.js';
import { cleanText } from '../../contract/report-check.js';
import type { WorkerPod } from '../worker/worker-pod.js';

/** A worker Pod as the API returns it: the object's own fields and the worker's (one shape, ../worker/worker-pod.ts). */
export interface PodLike extends KubeObject, Omit<WorkerPod, 'metadata'> {}

type ContainerStatus = NonNullable<NonNullable<PodLike['status']>['containerStatuses']>[number];

/** The status of the worker's own container (`inv node-remove`), by name; the first for old Pods. */
export function workerStatus(pod: PodLike, name: string): ContainerStatus | undefined {
  const all = pod.status?.containerStatuses ?? [];
  return all.find((c) => c.name === name) ?? (all.length === 1 ? all[0] : undefined);
}

/**
 * The phase that decides the node: the Pod's, or, when a scanner runs beside the worker, the
 * worker container's own end (the worker decides and reports; a scanner still running, or
 * stuck, changes nothing the worker did, and the Pod's deadline stops it).
 */
export function workerPhase(pod: PodLike, name: string): 'Succeeded' | 'Failed' | undefined {
  const phase = pod.status?.phase;
  const term = workerStatus(pod, name)?.state?.terminated;
  // With a scanner beside it, the worker's own exit decides (a scanner failing after the
  // worker finished makes the Pod Failed, not the node).
  if (term && (pod.status?.containerStatuses?.length ?? 0) >= 2)
    return term.exitCode === 0 ? 'Succeeded' : 'Failed';
  if (phase === 'Succeeded' || phase === 'Failed') return phase;
  return undefined;
}

/**
 * Scan mode: the scanner container ended with an error while the worker still waits for its
 * answer. The worker would only give up at the scan deadline (it cannot see the other
 * container); after `graceS` (time for an answer it did write to be read and acted on) the node
 * fails with the scanner's exit, and the Pod is stopped. undefined: nothing to say (yet), with
 * when to look again.
 */
export function scannerExit(
  pod: PodLike,
  scanner: string,
  now: Date,
  graceS: number,
): { reason: string } | { retryInMs: number } | undefined {
  const term = pod.status?.containerStatuses?.find((c) => c.name === scanner)?.state?.terminated;
  if (!term || term.exitCode === 0) return undefined;
  const left = Date.parse(term.finishedAt ?? '') + graceS * 1000 - now.getTime();
  if (Number.isFinite(left) && left > 0) return { retryInMs: Math.min(left, 5000) };
  // The scanner's own words, from the node: cleaned of control characters and bounded.
  const why = cleanText(
    [term.reason, term.message?.trim().split('\n').pop()].filter(Boolean).join(': '),
    120,
  );
  return {
    reason: `the scanner exited with code ${term.exitCode ?? '?'}${why ? ` (${why})` : ''} before the worker finished; the worker was stopped, it removes only after a valid answer`,
  };
}
