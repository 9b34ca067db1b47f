// Between plan and apply: the desired worker objects of a planned job (with the protected-set
// chunks their ConfigMaps carry) and what the later phases look up (Pod → node, the nodes that
// had failed before this pass).
import { podNames } from '../api/types.js';
import type { JobContext } from './context.js';
import { failPending, type Pass } from './pass.js';
import { workerObjects } from './worker-objects.js';

export async function prepare(ctx: JobContext, p: Pass): Promise<void> {
  const { job, name, st } = p;
  const selected = p.results.filter((r) => r.outcome !== 'Skipped').map((r) => r.node);
  let chunks: string[];
  try {
    chunks = await ctx.chunks.forJob(job, p.inv.items);
  } catch (e) {
    // Fail closed: the protected set cannot be handed to the workers as planned.
    failPending(p, `protected set: ${(e as Error).message}`);
    chunks = Array.from({ length: st.protectedChunks ?? 0 }, () => '');
  }
  p.desired = workerObjects(job, selected, p.ns, p.admin, chunks);
  p.podToNode = new Map([...podNames(name, selected)].map(([n, pod]) => [pod, n]));
  p.failedBefore = new Set(p.results.filter((r) => r.outcome === 'Failed').map((r) => r.node));
}
