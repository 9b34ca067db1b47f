// Where each source kind lives in the API, and how to read one namespace's worth of them. The
// kinds come from the registry (./source-kinds.ts); ReplicaSets are read as metadata only, for
// their owners (see rules.ts).
import { resourcePath } from '../kube/resources.js';
import { METADATA_LIST_ACCEPT, type KubeRest } from '../kube/rest.js';
import {
  BUILTIN,
  OWNER_KINDS,
  type OwnerKindSpec,
  type SourceKinds,
  type SourceKindSpec,
} from './source-kinds.js';
import { needsOwnerMetadata } from './owner-by-name.js';
import { stripMetadata, stripperFor, type RawObject, type StrippedObject } from './strip.js';
import type { NamespaceObjects } from './source-fields.js';

export function collectionPath(k: SourceKindSpec | OwnerKindSpec, namespace?: string): string {
  // A declared kind's plural comes from discovery. A cluster-scoped kind (`namespace` set) has
  // one collection, whichever namespace asks: only its own namespace does (inScope below).
  const cluster = 'namespace' in k && k.namespace !== undefined;
  const { group, version, plural } = k;
  return resourcePath({ group, version, plural, namespaced: !cluster }, cluster ? undefined : namespace);
}

/** Whether `k`'s objects can count in `namespace`: a cluster-scoped kind's count in one only. */
export const countsIn = (k: SourceKindSpec | OwnerKindSpec, namespace: string | undefined): boolean =>
  !('namespace' in k) || k.namespace === undefined || namespace === undefined || namespace === k.namespace;

const strippers = new WeakMap<SourceKindSpec, (o: RawObject) => StrippedObject>();
export function stripFor(k: SourceKindSpec | OwnerKindSpec): (o: RawObject) => StrippedObject {
  if (!('podSpecs' in k)) return stripMetadata;
  let s = strippers.get(k);
  if (!s) strippers.set(k, (s = stripperFor(k.podSpecs, k.workloadRefs, k.imageFields, k.namespace)));
  return s;
}

/** Everything one rebuild reads: the source kinds in force, then the owner kinds (metadata only). */
export function readKinds(kinds: SourceKinds = BUILTIN): (SourceKindSpec | OwnerKindSpec)[] {
  return [...kinds.all, ...OWNER_KINDS];
}

/** LIST of one kind (paginated), stripped on arrival; owner kinds as metadata only. */
export function listKind(
  rest: KubeRest,
  k: SourceKindSpec | OwnerKindSpec,
  namespace?: string,
  query?: Record<string, string>,
): Promise<{ items: StrippedObject[] }> {
  return rest.list<RawObject, StrippedObject>(collectionPath(k, namespace), {
    map: stripFor(k),
    query,
    ...('podSpecs' in k ? {} : { accept: METADATA_LIST_ACCEPT }),
  });
}

/**
 * Lists the source kinds of one namespace (paginated, in parallel), stripped on arrival;
 * only the objects matching `labelSelector` when one is given. Then the owner kinds (metadata,
 * always whole: a selected Pod's ReplicaSet need not carry its labels), but only when some Pod
 * needs them (./owner-by-name.ts): a steady namespace's Pods are settled by their ReplicaSets'
 * names, and a LIST less is most of a no-op rebuild's cost of following owners.
 * `owners: 'always'` lists them regardless (the bench compares both).
 */
export async function listNamespaceObjects(
  rest: KubeRest,
  namespace: string,
  labelSelector?: string,
  kinds: SourceKinds = BUILTIN,
  owners: 'when-needed' | 'always' = 'when-needed',
): Promise<NamespaceObjects> {
  const list = async (ks: readonly (SourceKindSpec | OwnerKindSpec)[], out: NamespaceObjects) => {
    const lists = await Promise.all(
      ks.map((k) =>
        countsIn(k, namespace)
          ? listKind(rest, k, namespace, labelSelector && 'podSpecs' in k ? { labelSelector } : undefined)
          : { items: [] },
      ),
    );
    ks.forEach((k, i) => (out[k.key] = lists[i]!.items));
    return out;
  };
  if (owners === 'always') return list(readKinds(kinds), {});
  const out = await list(kinds.all, {});
  // Known empty when not needed: the rules then never look a ReplicaSet up.
  if (!needsOwnerMetadata(out, kinds)) {
    for (const k of OWNER_KINDS) out[k.key] = [];
    return out;
  }
  return list(OWNER_KINDS, out);
}
