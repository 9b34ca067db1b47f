// The cluster-wide LISTs of a merged scan (`inv scan -A`): one paginated stream per kind a
// rebuild reads (the source kinds, the owner kinds as metadata, and the Images unless the scan
// is read-only), each stripped on arrival and bounded as every LIST is (kube/paginate.ts), and
// the regrouping of one merged namespace into what a rebuild takes. A few dozen requests in all
// instead of 8 per namespace; the order and memory are ./merged-pages.ts's.
import { listPages } from '../../kube/paginate.js';
import { METADATA_LIST_ACCEPT, type KubeRest } from '../../kube/rest.js';
import { imagesPath, stripImage, type ImageResource } from '../image-resource.js';
import { needsOwnerMetadata } from '../owner-by-name.js';
import { BUILTIN, OWNER_KINDS, type SourceKinds } from '../source-kinds.js';
import type { NamespaceObjects } from '../source-fields.js';
import { collectionPath, readKinds, stripFor } from '../sources.js';
import type { StrippedObject } from '../strip.js';
import type { MergedNamespace } from './namespace-merge.js';
import type { StreamPage } from './merged-pages.js';

type Listed = StrippedObject | ImageResource;

export interface KindStreams {
  streams: (() => AsyncIterator<StreamPage<Listed>>)[];
  /** One merged namespace as a rebuild takes it: the objects, and the Images when listed. */
  objects(m: MergedNamespace<Listed>): { objs: NamespaceObjects; existing?: ImageResource[] };
}

export function kindStreams(
  rest: KubeRest,
  opts: {
    kinds?: SourceKinds;
    selector?: string;
    images: boolean;
    pageSize?: number;
    owners?: 'when-needed' | 'always';
  },
): KindStreams {
  const kinds = opts.kinds ?? BUILTIN;
  const read = readKinds(kinds);
  const streams: KindStreams['streams'] = read.map(
    (k) => () =>
      listPages<Record<string, unknown>, StrippedObject>(rest, collectionPath(k), {
        map: stripFor(k) as (o: Record<string, unknown>) => StrippedObject,
        pageSize: opts.pageSize,
        resumeExpired: true,
        ...('podSpecs' in k
          ? opts.selector !== undefined
            ? { query: { labelSelector: opts.selector } }
            : {}
          : { accept: METADATA_LIST_ACCEPT }),
      }),
  );
  if (opts.images)
    streams.push(() =>
      listPages<ImageResource, ImageResource>(rest, imagesPath(), {
        map: stripImage,
        pageSize: opts.pageSize,
        resumeExpired: true,
      }),
    );
  return {
    streams,
    objects(m) {
      const objs: NamespaceObjects = {};
      read.forEach((k, i) => (objs[k.key] = m.items[i] as StrippedObject[]));
      // As a namespace's own listing has them: owners only when some Pod needs them
      // (../sources.ts), so the rules see exactly what they would see there.
      if (opts.owners !== 'always' && !needsOwnerMetadata(objs, kinds))
        for (const k of OWNER_KINDS) objs[k.key] = [];
      return opts.images ? { objs, existing: m.items[read.length] as ImageResource[] } : { objs };
    },
  };
}
