// The API server's create ceiling on this machine, for `bench scan-all`'s writing scan to be read
// against: bare POSTs of Image objects as inv creates them (the managed-by label, spec.image and
// the status, nothing else per object: no read before, no plan), `concurrency` in flight, into
// namespaces of their own, timed from the first send to the last answer. Each level's Images are
// then removed with one deletecollection per namespace, so the scans that follow find those
// namespaces empty.
import { forEachConcurrent, range } from '../../src/core/concurrency.js';
import { imagesPath, MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../src/core/inventory/image-resource.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import type { KubeRest } from '../../src/core/kube/rest.js';

export interface CeilingLevel {
  concurrency: number;
  creates: number;
  perSecond: number;
}

/** Creates `creates` Images at each concurrency level (KubeRest keeps at most 32 connections). */
export async function createCeiling(
  rest: KubeRest,
  creates: number,
  levels: readonly number[],
  opts: { spread?: number } = {},
): Promise<CeilingLevel[]> {
  const spread = opts.spread ?? 100;
  const nss = range(spread).map((i) => `ceiling-${String(i).padStart(3, '0')}`);
  for (const ns of nss) await ensureNamespace(rest, ns);
  const out: CeilingLevel[] = [];
  for (const [l, concurrency] of levels.entries()) {
    const t0 = Date.now();
    await forEachConcurrent(range(creates), concurrency, async (i) => {
      const ns = nss[i % spread]!;
      const name = `c${l}-${i}`;
      await rest.request('POST', imagesPath(ns), {
        body: {
          apiVersion: 'imageinventory.dev/v1alpha1',
          kind: 'Image',
          metadata: { name, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
          spec: { image: `registry.example.com/ceiling/c${l}:${i}` },
          status: { kinds: 'Deployment,Pod', users: [`Deployment/web`, `Pod/web-${i}`], userCount: 2 },
        },
      });
    });
    const ms = Date.now() - t0;
    out.push({ concurrency, creates, perSecond: Math.round((creates * 1000) / ms) });
    await forEachConcurrent(nss, 16, async (ns) => {
      await rest.request('DELETE', imagesPath(ns));
    });
  }
  return out;
}
