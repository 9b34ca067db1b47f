// Recognises a worker Pod that cannot start: the kubelet reports it as a waiting container with
// one of a few reasons, and retries forever (with back-off), so without this the node would only
// fail at the job deadline (30 minutes by default). Pure: the Pod status and the clock in, a
// verdict out.
import { MAX_REASON } from '../../contract/results.js';

/** Waiting reasons that never clear by themselves, and the short reason code a node fails with. */
const START_FAILURES: Record<string, string> = {
  ErrImagePull: 'image-pull',
  ImagePullBackOff: 'image-pull',
  InvalidImageName: 'image-pull',
  ErrImageNeverPull: 'image-pull',
  CreateContainerConfigError: 'container-config',
  CreateContainerError: 'container-create',
  RunContainerError: 'container-create',
};

export interface PodStartStatus {
  startTime?: string;
  containerStatuses?: { state?: { waiting?: { reason?: string; message?: string } } }[];
}

/** How much of the start a cut reason keeps: the code, the waiting reason and what failed. */
const KEEP_HEAD = 80;

/**
 * `s` cut to `max` characters in the middle (the status would cut its end). The runtime's errors
 * wrap their cause last (`failed to pull and unpack image "…": failed to resolve reference "…":
 * … 401 Unauthorized`), so the end is what the administrator acts on and is never cut.
 */
export function keepEnds(s: string, max: number): string {
  if (s.length <= max) return s;
  const sep = ' … ';
  const head = Math.min(KEEP_HEAD, Math.floor((max - sep.length) / 2));
  return `${s.slice(0, head)}${sep}${s.slice(s.length - (max - head - sep.length))}`;
}

export type StartFailure = { failNow: true; reason: string } | { failNow: false; retryInMs: number };

/**
 * undefined when no container is stuck. Otherwise, once `graceSeconds` have passed since the
 * kubelet started the Pod (status.startTime), `failNow` with a reason such as
 * `image-pull: ImagePullBackOff: Back-off pulling image "x"`; before that, when to look again.
 */
export function startFailure(
  status: PodStartStatus | undefined,
  now: Date,
  graceSeconds: number,
): StartFailure | undefined {
  for (const cs of status?.containerStatuses ?? []) {
    const waiting = cs.state?.waiting;
    const code = waiting?.reason ? START_FAILURES[waiting.reason] : undefined;
    if (!code) continue;
    const since = Date.parse(status?.startTime ?? '');
    const elapsedMs = Number.isNaN(since) ? 0 : now.getTime() - since;
    const left = graceSeconds * 1000 - elapsedMs;
    if (left > 0) return { failNow: false, retryInMs: Math.min(left, 5000) };
    const detail = (waiting?.message ?? '').replace(/\s+/g, ' ').trim();
    return {
      failNow: true,
      reason: keepEnds(`${code}: ${waiting!.reason}${detail ? `: ${detail}` : ''}`, MAX_REASON),
    };
  }
  return undefined;
}

export interface WorkerPodState {
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
    containerStatuses?: {
      state?: { waiting?: { reason?: string; message?: string }; running?: unknown };
    }[];
  };
}

/**
 * Why a worker has not finished, naming its Pod and the Pod's state, for a node that fails at
 * the job deadline: `Pod j-abc Pending: Unschedulable: 0/3 nodes are available...`,
 * `Pod j-abc Pending: ErrImagePull: ...`, `Pod j-abc Running`, or, when the Pod does not exist,
 * `Pod j-abc not created: <the API's answer>`. Pure; the caller caps the length.
 */
export function describeWorker(
  podName: string,
  pod: WorkerPodState | undefined,
  createError?: string,
): string {
  if (!pod) return `Pod ${podName} not created${createError ? `: ${createError}` : ''}`;
  const st = pod.status ?? {};
  const phase = st.phase || 'Pending';
  const clean = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
  const waiting = st.containerStatuses?.map((c) => c.state?.waiting).find((w) => w?.reason);
  if (waiting)
    return `Pod ${podName} ${phase}: ${waiting.reason}${waiting.message ? `: ${clean(waiting.message)}` : ''}`;
  const unscheduled = st.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled)
    return `Pod ${podName} ${phase}: ${unscheduled.reason || 'Unschedulable'}${unscheduled.message ? `: ${clean(unscheduled.message)}` : ''}`;
  if (st.reason) return `Pod ${podName} ${phase}: ${st.reason}${st.message ? `: ${clean(st.message)}` : ''}`;
  // Not even PodScheduled: no scheduler has looked at it (workers are placed by the scheduler).
  if (phase === 'Pending' && !st.conditions?.length)
    return `Pod ${podName} Pending: not placed by the scheduler (is kube-scheduler running?)`;
  return `Pod ${podName} ${phase}`;
}
