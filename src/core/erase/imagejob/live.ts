// The job's live worker objects, as the reader shows them, keyed like the inventory's items.
import { isNotFound } from '../../kube/rest.js';
import { itemKey, type InventoryItem } from '../../apply-inventory/apply-inventory.js';
import { isOwnedBy, objectPath, type KubeObject, type Owner } from '../../apply-inventory/objects.js';
import { JOB_LABEL } from '../api/types.js';
import type { JobContext } from './context.js';

/** The job's worker Pods that carry our owner label, by item key. */
export async function livePods(
  ctx: JobContext,
  name: string,
  ns: string,
  owner: Owner,
): Promise<Map<string, KubeObject>> {
  const live = new Map<string, KubeObject>();
  for (const p of await ctx.reader.workers('Pod', ns, name))
    if (isOwnedBy(p, owner)) live.set(`/Pod/${p.metadata?.namespace}/${p.metadata?.name}`, p);
  return live;
}

/**
 * Live objects of the job (Pods already read; ConfigMaps and PodTemplates by label), for the
 * next delete wave (`wave`). An object holding one of our names without our labels is not
 * listed: it counts as "gone" and is dropped, so it is never deleted (a DELETE also needs our
 * owner label). A wave item the cache does not show is read from the server: "not in the
 * cache yet" must not drop an object we created a moment ago.
 */
export async function liveObjects(
  ctx: JobContext,
  name: string,
  ns: string,
  pods: Map<string, KubeObject>,
  wave: readonly InventoryItem[],
): Promise<Map<string, KubeObject>> {
  const out = new Map(pods);
  for (const kind of ['ConfigMap', 'PodTemplate'] as const)
    for (const o of await ctx.reader.workers(kind, ns, name))
      out.set(`/${kind}/${ns}/${o.metadata?.name}`, o);
  if (ctx.reader === ctx.direct) return out;
  for (const item of wave) {
    if (out.has(itemKey(item)) || item.deletePolicy === 'Orphan') continue;
    const o = await ctx.rest
      .get<KubeObject>(objectPath(item))
      .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (o?.metadata?.labels?.[JOB_LABEL] === name) out.set(itemKey(item), o);
  }
  return out;
}
