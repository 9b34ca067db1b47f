// Recognises a worker Pod that cannot start: the kubelet reports it as a waiting container with
// one of a few reasons, and retries forever (with back-off), so without this the node would only
// fail at the job deadline (30 minutes by default). Pure: the Pod status and the clock in, a
// verdict out.

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
      reason: `${code}: ${waiting!.reason}${detail ? `: ${detail}` : ''}`.slice(0, 200),
    };
  }
  return undefined;
}
