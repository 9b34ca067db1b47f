// The API server's create ceiling on this machine, for `bench scan-all`'s writing scan to be read
// against: bare POSTs of Image objects (the CRD inv writes, nothing else per object: no status,
// no read before), `concurrency` in flight, into namespaces of their own, timed from the first
// send to the last answer. Also the same POST followed by the status write an Image needs (a
// server-side apply to its status subresource, as image-store.ts makes it): the most Images per
// second the two writes of each allow, without inv's reads and plans. Each level's Images are
// then removed with one deletecollection per namespace, so the scans that follow find those
// namespaces empty.
import { forEachConcurrent, range } from '../../src/core/concurrency.js';
import { imagesPath } from '../../src/core/inventory/image-resource.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import type { KubeRest } from '../../src/core/kube/rest.js';
import * as resources from '../../src/core/kube/resources.js';

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
  opts: { withStatus?: boolean; spread?: number } = {},
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
      const made = await rest.request<{ metadata: { resourceVersion: string } }>('POST', imagesPath(ns), {
        body: {
          apiVersion: 'imageinventory.dev/v1alpha1',
          kind: 'Image',
          metadata: { name },
          spec: { image: `registry.example.com/ceiling/c${l}:${i}` },
        },
      });
      if (opts.withStatus)
        await resources.apply(
          rest,
          'Image',
          ns,
          name,
          {
            apiVersion: 'imageinventory.dev/v1alpha1',
            kind: 'Image',
            metadata: { name, namespace: ns, resourceVersion: made.metadata.resourceVersion },
            status: { kinds: 'Deployment', users: [], userCount: 0 },
          },
          { fieldManager: 'inv-bench', force: true, subresource: 'status' },
        );
    });
    const ms = Date.now() - t0;
    out.push({ concurrency, creates, perSecond: Math.round((creates * 1000) / ms) });
    await forEachConcurrent(nss, 16, async (ns) => {
      await rest.request('DELETE', imagesPath(ns));
    });
  }
  return out;
}
