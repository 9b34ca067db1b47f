// Between plan and apply: the desired worker objects of a planned job (with the contents their
// input ConfigMaps carry) and what the later phases look up (Pod → node, the nodes that
// had failed before this pass).
import { podNames } from '../api/types.js';
import type { JobContext } from './context.js';
import { failPending, type Pass } from './pass.js';
import { workerObjects } from './worker-objects.js';

export async function prepare(ctx: JobContext, p: Pass): Promise<void> {
  const { job, name } = p;
  const selected = p.results.filter((r) => r.outcome !== 'Skipped').map((r) => r.node);
  let contents: ReadonlyMap<string, string>;
  try {
    contents = await ctx.inputs.forJob(job, p.inv.items, p.admin);
  } catch (e) {
    // Fail closed: the inputs cannot be handed to the workers as planned.
    const msg = (e as Error).message;
    failPending(p, msg.startsWith('the protected set') ? `protected set: ${msg}` : `inputs: ${msg}`);
    contents = new Map();
  }
  p.desired = workerObjects(job, selected, p.ns, p.admin, contents);
  p.podToNode = new Map([...podNames(name, selected)].map(([n, pod]) => [pod, n]));
  p.failedBefore = new Set(p.results.filter((r) => r.outcome === 'Failed').map((r) => r.node));
}
