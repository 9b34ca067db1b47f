// Whether an overdue worker's node is still there and Ready. Node readiness comes from one LIST
// shared by every job, at most every 5 s by the injected clock, and only while some worker is
// overdue, so healthy jobs cost no extra request.
import type { EraseReader } from '../cluster/reader.js';
import type { StartFailure } from '../worker/start-failure.js';
import type { PodLike } from './pod.js';

const MEMO_MS = 5000;

export class NodeReadiness {
  private memo?: { at: number; ready: Map<string, string | undefined> };

  constructor(
    private readonly reader: EraseReader,
    private readonly now: () => Date,
  ) {}

  /**
   * A worker older than the grace whose node is not Ready (its kubelet died, the node lifecycle
   * controller marked it Unknown) will not finish: its node fails with reason node-not-ready.
   */
  async lostNode(
    node: string,
    pod: PodLike,
    now: Date,
    graceSeconds: number,
  ): Promise<StartFailure | undefined> {
    const created = Date.parse(pod.metadata?.creationTimestamp ?? '');
    if (Number.isNaN(created) || now.getTime() - created < graceSeconds * 1000) return undefined;
    if (!this.memo || this.now().getTime() - this.memo.at > MEMO_MS) {
      const ready = new Map<string, string | undefined>();
      for (const n of await this.reader.nodes()) {
        const c = n.status?.conditions?.find((x) => x.type === 'Ready') as
          { status?: string; reason?: string; message?: string } | undefined;
        ready.set(
          n.metadata?.name ?? '',
          c?.status === 'True'
            ? undefined
            : `${c?.reason ?? 'NotReady'}: ${c?.message ?? 'no Ready condition'}`,
        );
      }
      this.memo = { at: this.now().getTime(), ready };
    }
    const notReady = this.memo.ready.has(node)
      ? this.memo.ready.get(node)
      : 'NodeGone: the Node object no longer exists';
    if (notReady === undefined) return { failNow: false, retryInMs: 5000 };
    return { failNow: true, reason: `node-not-ready: ${notReady}`.slice(0, 200) };
  }
}
