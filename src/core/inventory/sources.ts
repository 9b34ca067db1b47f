// Where each source kind lives in the API, and how to read one namespace's worth of them. The
// kinds come from the registry (./source-kinds.ts); ReplicaSets are read as metadata only, for
// their owners (see rules.ts).
import type { KubeRest } from '../kube/rest.js';
import {
  BUILTIN,
  OWNER_KINDS,
  type OwnerKindSpec,
  type SourceKinds,
  type SourceKindSpec,
} from './source-kinds.js';
import { stripMetadata, stripperFor, type RawObject, type StrippedObject } from './strip.js';
import type { NamespaceObjects } from './types.js';

/** Metadata-only LIST (PartialObjectMetadataList): no spec crosses the wire. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

export function collectionPath(k: SourceKindSpec | OwnerKindSpec, namespace?: string): string {
  // Every source and owner kind is namespaced; a declared kind's plural comes from discovery.
  const base = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  return namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${k.plural}`
    : `${base}/${k.plural}`;
}

const strippers = new WeakMap<SourceKindSpec, (o: RawObject) => StrippedObject>();
export function stripFor(k: SourceKindSpec | OwnerKindSpec): (o: RawObject) => StrippedObject {
  if (!('podSpecs' in k)) return stripMetadata;
  let s = strippers.get(k);
  if (!s) strippers.set(k, (s = stripperFor(k.podSpecs, k.workloadRefs)));
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
 * only the objects matching `labelSelector` when one is given (owners are always listed whole:
 * a selected Pod's ReplicaSet need not carry its labels).
 */
export async function listNamespaceObjects(
  rest: KubeRest,
  namespace: string,
  labelSelector?: string,
  kinds: SourceKinds = BUILTIN,
): Promise<NamespaceObjects> {
  const all = readKinds(kinds);
  const lists = await Promise.all(
    all.map((k) =>
      listKind(rest, k, namespace, labelSelector && 'podSpecs' in k ? { labelSelector } : undefined),
    ),
  );
  const out: NamespaceObjects = {};
  all.forEach((k, i) => (out[k.key] = lists[i]!.items));
  return out;
}
