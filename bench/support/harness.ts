// The benches' stand-in for kubelets: Node objects with no kubelet behind them, marked Ready so
// the erase controllers plan a worker on each, and worker Pods moved to Succeeded with the
// termination message node-remove would have written. One copy, so every erase bench plays the
// kubelet the same way.
import { forEachConcurrent } from '../../src/core/concurrency.js';
import { isAlreadyExists, isNotFound, type KubeRest } from '../../src/core/kube/rest.js';

/** An RFC 3339 time in whole seconds, as the kubelet writes it. */
export const ts = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Creates the harness Nodes `names` (an existing one is reused) with `labels`, and marks each
 * Ready. `status` adds Node status fields (capacity, images) beside the Ready condition.
 */
export async function createReadyNodes(
  rest: KubeRest,
  names: readonly string[],
  opts: { labels: Record<string, string>; status?: Record<string, unknown>; concurrency?: number },
): Promise<void> {
  await forEachConcurrent(names, opts.concurrency ?? 32, async (name) => {
    const created = await rest
      .request<Record<string, unknown>>('POST', '/api/v1/nodes', {
        body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: opts.labels } },
      })
      .catch((e) =>
        isAlreadyExists(e) ? rest.get<Record<string, unknown>>(`/api/v1/nodes/${name}`) : Promise.reject(e),
      );
    const now = ts();
    const ready = {
      type: 'Ready',
      status: 'True',
      reason: 'KubeletReady',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    };
    await rest.request('PUT', `/api/v1/nodes/${name}/status`, {
      body: { ...created, status: { conditions: [ready], ...opts.status } },
    });
  });
}

export interface HarnessPod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: { name: string; image: string }[] };
  status?: { phase?: string };
}

/**
 * Plays the kubelet for one worker Pod: phase Succeeded, its container terminated with exit code
 * 0 and `message` (node-remove's termination summary). A Pod already gone is left alone: the
 * answer is false then, so a bench counts only the workers it really finished.
 */
export async function succeedWorker(
  rest: KubeRest,
  podsPath: string,
  pod: HarnessPod,
  message: string,
): Promise<boolean> {
  const c = pod.spec.containers[0]!;
  const terminated = { exitCode: 0, reason: 'Completed', message, startedAt: ts(), finishedAt: ts() };
  return rest
    .request('PUT', `${podsPath}/${pod.metadata.name}/status`, {
      body: {
        ...pod,
        status: {
          phase: 'Succeeded',
          startTime: ts(),
          containerStatuses: [
            {
              name: c.name,
              image: c.image,
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated },
            },
          ],
        },
      },
    })
    .then(
      () => true,
      (e) => (isNotFound(e) ? false : Promise.reject(e)),
    );
}
