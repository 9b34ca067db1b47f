// Reads which image backs each pod sandbox, through CRI: ListPodSandbox, then
// PodSandboxStatus(verbose) per sandbox. A sandbox's image never changes, so answers are kept
// and the re-check before each removal only asks about sandboxes it has not seen yet.
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { CriClient } from '../../cri/client.js';
import { CriError } from '../../cri/errors.js';
import { forEachConcurrent } from '../../concurrency.js';
import type { SandboxView } from './in-use.js';
import { sandboxImageFromPodSandboxInfo, type SandboxFacts } from './sandbox.js';

/** PodSandboxStatus calls in flight at once (a node has at most a few hundred sandboxes). */
const STATUS_CONCURRENCY = 8;

export type SandboxRead = Pick<SandboxFacts, 'sandboxes' | 'unreadable'>;

export class SandboxReader {
  private readonly known = new Map<string, SandboxView>();

  constructor(private readonly cri: Pick<CriClient, 'listPodSandboxes' | 'podSandboxStatus'>) {}

  /**
   * Every sandbox the runtime knows, whatever its state, with its image. A failing
   * ListPodSandbox throws (without it nothing is known to be unused); a failing
   * PodSandboxStatus makes that one sandbox `unreadable`, and a sandbox removed meanwhile
   * (NOT_FOUND) is skipped.
   */
  async read(): Promise<SandboxRead> {
    const listed = await this.cri.listPodSandboxes();
    const unreadable: { id: string; pod?: string; reason: string }[] = [];
    const fresh = listed.filter((s) => !this.known.has(s.id));
    await forEachConcurrent(fresh, STATUS_CONCURRENCY, async (s) => {
      const pod = s.metadata ? `${s.metadata.namespace}/${s.metadata.name}` : undefined;
      try {
        const st = await this.cri.podSandboxStatus(s.id, true);
        const image = sandboxImageFromPodSandboxInfo(st.info);
        if (image) this.known.set(s.id, { id: s.id, pod, image });
        else unreadable.push({ id: s.id, pod, reason: 'its verbose PodSandboxStatus names no image' });
      } catch (e) {
        if (e instanceof CriError && e.code === GrpcStatus.NOT_FOUND) return;
        unreadable.push({ id: s.id, pod, reason: (e as Error).message });
      }
    });
    const ids = new Set(listed.map((s) => s.id));
    return { sandboxes: [...this.known.values()].filter((v) => ids.has(v.id)), unreadable };
  }
}
