// Recognises a worker that cannot be placed on its node or that the node refused: the scheduler
// keeps an unplaceable Pod Pending with PodScheduled=False (reason Unschedulable) and retries it
// forever; a kubelet that refuses a Pod at admission (its Pod capacity, CPU or memory is full)
// makes it Failed with the refusal as its reason (OutOfpods, OutOfcpu, OutOfmemory...), before
// any container ran. Either way the node was not cleaned, so it fails, with the reason the
// scheduler or the kubelet gave (../../contract/placement-failures.ts names the two). Pure: the Pod and the clock in, a verdict out.
import { MAX_REASON } from '../../contract/results.js';
import { keepEnds, type StartFailure } from './start-failure.js';
import type { WorkerPod } from './worker-pod.js';

const clean = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/** Pod reasons of a Failed Pod that are not the kubelet's refusal at admission. */
const NOT_ADMISSION = new Set(['DeadlineExceeded', 'Evicted', 'Preempting', 'Terminated']);

/**
 * `rejected: OutOfpods: Pod was rejected: Node didn't have enough resource: pods, ...` when the
 * node's kubelet refused the worker before any of its containers ran; undefined otherwise.
 */
export function rejection(pod: WorkerPod): string | undefined {
  const st = pod.status;
  if (st?.phase !== 'Failed' || !st.reason || NOT_ADMISSION.has(st.reason)) return undefined;
  if (st.containerStatuses?.some((c) => c.state?.running || c.state?.terminated)) return undefined;
  const msg = clean(st.message);
  return keepEnds(`rejected: ${st.reason}${msg ? `: ${msg}` : ''}`, MAX_REASON);
}

/**
 * A worker the scheduler cannot place: after `graceSeconds` unschedulable (from the condition's
 * last transition), `failNow` with `unschedulable: Unschedulable: 0/3 nodes are available: 1 Too
 * many pods...`; before that, when to look again. While the scheduler has nominated the node for
 * it (it is preempting lower-priority Pods there to make room), it waits: the victims' graceful
 * ends take their time, and the job deadline bounds the wait. undefined: placed, or not yet
 * looked at by the scheduler (the job deadline names that).
 */
export function unschedulable(pod: WorkerPod, now: Date, graceSeconds: number): StartFailure | undefined {
  if (pod.spec?.nodeName) return undefined;
  const st = pod.status;
  const cond = st?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (!cond) return undefined;
  if (st?.nominatedNodeName) return { failNow: false, retryInMs: 5000 };
  const since = Date.parse(cond.lastTransitionTime ?? pod.metadata?.creationTimestamp ?? '');
  const left = graceSeconds * 1000 - (Number.isNaN(since) ? 0 : now.getTime() - since);
  if (left > 0) return { failNow: false, retryInMs: Math.min(left, 5000) };
  const msg = clean(cond.message);
  return {
    failNow: true,
    reason: keepEnds(`unschedulable: ${cond.reason || 'Unschedulable'}${msg ? `: ${msg}` : ''}`, MAX_REASON),
  };
}
