// An input ConfigMap whose name is taken by an object this controller did not create is never
// used: the input moves to a fresh, unguessable name (at most MAX_RENAMES times, ../worker/inputs.ts),
// with a Warning Event.
import { renamed, renames, type JobInput } from '../worker/inputs.js';
import { inputsOf } from '../worker/pod-spec.js';
import type { JobContext } from './context.js';
import { jobEvent } from './job-events.js';
import type { Pass } from './pass.js';
import { workerObjects } from './worker-objects.js';

/**
 * Re-plans one input under a fresh name: recorded in the status with the same digest, a new
 * item to create, and the worker objects not created yet follow it (their manifests read the
 * recorded names; the PodTemplate is updated in place).
 */
export async function moveInput(ctx: JobContext, p: Pass, input: JobInput): Promise<void> {
  const moved = renamed(p.name, input);
  const inputs = inputsOf(p.job).map((i) => (i.role === input.role ? moved : i));
  p.st.inputs = inputs;
  const contents = ctx.inputs.known(p.job);
  const selected = p.results.filter((r) => r.outcome !== 'Skipped').map((r) => r.node);
  const fresh = workerObjects(p.job, selected, p.ns, p.admin, contents);
  // Only objects not created yet, and the PodTemplate, take the new manifests' digests.
  const added = [...fresh.values()]
    .filter((d) => d.item.kind === 'ConfigMap' && d.item.name === moved.name)
    .map((d) => ({ ...d.item }));
  p.inv.revise(new Map([...fresh].map(([k, d]) => [k, d.item])), (i) => i.kind === 'PodTemplate', added);
  p.desired = fresh;
  const line = `ConfigMap ${p.ns}/${input.name} was not created by this controller; the ${input.role} input moves to ${moved.name}`;
  p.st.message = line;
  ctx.log.warn('input name taken, moved to a fresh name', {
    job: p.name,
    input: input.role,
    to: moved.name,
  });
  await jobEvent(ctx, p.job, `moved-${input.role}-${renames(moved)}`, 'Warning', 'InputNameTaken', line);
}
