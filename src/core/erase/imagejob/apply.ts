// Apply: the next wave of the job's inventory (ConfigMaps and PodTemplate, then one Pod per
// node), a chunk at a time. A name held by a foreign object fails that Pod's node (or, for a
// ConfigMap or the template, every pending node); objects the API refuses are retried with the
// work queue's backoff: the pass throws at its end, after saving.
import * as resources from '../../kube/resources.js';
import { isNotFound } from '../../kube/rest.js';
import { itemKey } from '../../apply-inventory/apply-inventory.js';
import { pendingResult } from '../../contract/results.js';
import { MAX_RENAMES, renames } from '../worker/inputs.js';
import { inputsOf } from '../worker/pod-spec.js';
import { moveInput } from './move-input.js';
import type { JobContext } from './context.js';
import { failPending, setResult, type Pass } from './pass.js';

export async function apply(ctx: JobContext, p: Pass): Promise<void> {
  const { name, st } = p;
  if (!(st.phase === 'Running' && p.inv.applying)) return;
  // The rollout holds every worker back in this pass (the inputs' wave goes on).
  if (p.admit && !p.inv.applyWaveItems().some(p.admit)) return;
  const pendingBefore = new Set(
    p.inv.items.filter((i) => i.kind === 'Pod' && i.phase !== 'Ready').map(itemKey),
  );
  const pendingBeforeAll = p.inv.items.filter((i) => i.phase === 'Creating' || i.phase === 'Updating').length;
  const r = await p.inv.apply(ctx.rest, {
    owner: p.owner,
    manifest: (item) => p.desired.get(itemKey(item))!.manifest,
    limit: ctx.applyChunk,
    select: p.admit,
    now: ctx.now,
  });
  // Pods created by this pass: the cache may not show them yet, and they cannot have ended.
  for (const i of p.inv.items)
    if (i.phase === 'Ready' && pendingBefore.has(itemKey(i))) p.justCreated.add(itemKey(i));
  for (const c of r.collisions) {
    const line = `${c.ref.kind} ${c.ref.namespace}/${c.ref.name} is held by ${c.holder}`;
    st.collisions = [...new Set([...(st.collisions ?? []), line])];
    ctx.log.warn('name collision, foreign object left untouched', { job: name, object: line });
    const node = p.podToNode.get(c.ref.name);
    const input = c.ref.kind === 'ConfigMap' ? inputsOf(p.job).find((i) => i.name === c.ref.name) : undefined;
    if (input && renames(input) < MAX_RENAMES && st.phase === 'Running') {
      // Never use an input we did not create: move it to a fresh, unguessable name.
      await moveInput(ctx, p, input);
      continue;
    }
    if (c.ref.kind === 'Pod' && node) {
      setResult(p, { ...pendingResult(node), outcome: 'Failed', reason: `name collision: ${line}` });
    } else {
      // Without its ConfigMaps or template the job cannot run: fail every pending node.
      failPending(p, 'name collision', true);
      st.message = `name collision: ${line}`;
    }
  }
  for (const e of r.errors) {
    ctx.log.warn('apply failed, will retry', { job: name, object: e.key, error: e.error.message });
    p.applyErrors.set(e.key, e.error.message);
  }
  // No object of the wave got anywhere and no error was reported: apply takes a 404 on a
  // create for "changed under us, next pass", but a missing namespace answers the same forever.
  const stillPending = p.inv.items.filter((i) => i.phase === 'Creating' || i.phase === 'Updating').length;
  if (!r.errors.length && !r.collisions.length && stillPending === pendingBeforeAll) {
    const missing = await namespaceMissing(ctx, p.ns);
    if (missing) {
      for (const i of p.inv.applyWaveItems()) p.applyErrors.set(itemKey(i), missing);
      p.applyFailed = missing;
      ctx.log.warn('apply failed, will retry', { job: name, error: missing });
    }
  }
  // Objects the API refused (admission, quota): retried with the work queue's exponential
  // backoff (the pass throws at its end, after saving), not every 2 s until the deadline.
  if (r.errors.length)
    p.applyFailed = `${r.errors.length} object(s) could not be created, first: ${r.errors[0]!.key}: ${r.errors[0]!.error.message}`;
  // Next wave or next chunk right away (with a rollout, rolloutProgress says when).
  if (p.inv.applying && !p.admit) p.requeue = 0;
}

/** The API server's answer when the workers' namespace does not exist, else undefined. */
async function namespaceMissing(ctx: JobContext, ns: string): Promise<string | undefined> {
  try {
    await resources.get(ctx.rest, 'Namespace', undefined, ns);
    return undefined;
  } catch (e) {
    if (isNotFound(e)) return `the workers' namespace does not exist: namespaces "${ns}" not found`;
    throw e;
  }
}
