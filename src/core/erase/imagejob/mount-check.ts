// Whether an overdue worker is stuck mounting the runtime socket (worker/mount-failure.ts): only
// asked for a worker still creating its container after the grace, with one LIST of that Pod's
// Events (bounded, at most every 5 s per Pod by the injected clock), so healthy jobs cost nothing.
// Events that cannot be read (403) leave the job to its deadline, as before.
import { resourcePath } from '../../kube/resources.js';
import { KubeApiError, type KubeRest } from '../../kube/rest.js';
import {
  socketMountFailure,
  stillCreating,
  type MountEvent,
  type MountPod,
} from '../worker/mount-failure.js';
import type { StartFailure } from '../worker/start-failure.js';
import type { PodLike } from './pod.js';

const MEMO_MS = 5000;

export class MountCheck {
  private readonly memo = new Map<string, number>();

  constructor(private readonly rest: KubeRest) {}

  async failure(pod: PodLike & MountPod, now: Date, graceSeconds: number): Promise<StartFailure | undefined> {
    const meta = pod.metadata ?? { name: '' };
    const created = Date.parse(meta.creationTimestamp ?? '');
    if (Number.isNaN(created) || now.getTime() - created < graceSeconds * 1000) return undefined;
    if (!stillCreating(pod)) return undefined;
    const key = `${meta.namespace ?? ''}/${meta.name}`;
    const last = this.memo.get(key);
    if (last !== undefined && now.getTime() - last < MEMO_MS) return undefined;
    this.memo.set(key, now.getTime());
    if (this.memo.size > 10_000) this.memo.delete(this.memo.keys().next().value!);
    let events: MountEvent[];
    try {
      // One page: the kubelet aggregates a repeated failure into one Event.
      const page = await this.rest.request<{ items?: MountEvent[] }>(
        'GET',
        resourcePath('Event', meta.namespace),
        {
          query: { fieldSelector: `involvedObject.name=${meta.name},reason=FailedMount`, limit: 20 },
        },
      );
      events = page.items ?? [];
    } catch (e) {
      if (e instanceof KubeApiError && (e.code === 403 || e.code === 404)) return undefined;
      throw e;
    }
    const reason = socketMountFailure(pod, events);
    // No verdict otherwise: node readiness (or the deadline) decides when to look again.
    return reason ? { failNow: true, reason } : undefined;
  }
}
