// The one place a REST path is built, and requests by kind over KubeRest: get, list, create,
// replace, patch, delete, and the one server-side-apply writer. A kind is a name of the kind
// table (kinds.ts: `'Pod'`, `'ImageJob'`) or a ResourceType found by discovery (a declared
// source kind, a namespace's resources); the path's shape (`/api/v1` for the core group,
// `/apis/GROUP/VERSION` otherwise, `/namespaces/NS` for a namespaced kind) is decided here and
// nowhere else (test/unit/kube/api-paths.test.ts keeps path literals out of every other folder).
// Namespaces and names are URL-encoded, which leaves every valid Kubernetes name as it is.
import { KINDS, kindInfo, type KindName, type ResourceType } from './kinds.js';
import type { KubeRest, ListBounds, Query, RequestOptions } from './rest.js';

export type Kind = KindName | ResourceType;

const typeOf = (k: Kind): ResourceType & { kind?: string } => (typeof k === 'string' ? KINDS[k] : k);

/** The discovery path of the API groups (the core group's versions are at `/api`). */
export const API_GROUPS_PATH = '/apis';

/** The discovery path of a group version: `/api/v1` for the core group, `/apis/GROUP/VERSION`. */
export const groupVersionPath = (group: string, version: string): string =>
  group ? `/apis/${group}/${version}` : `/api/${version}`;

/**
 * The path of a kind's collection (no name) or of one object, e.g.
 * `/apis/apps/v1/namespaces/shop/deployments/web`. No namespace on a namespaced kind means all
 * namespaces (a collection); a namespace on a cluster-scoped kind is refused.
 */
export function resourcePath(kind: Kind, namespace?: string, name?: string, subresource?: string): string {
  const t = typeOf(kind);
  if (!t.namespaced && namespace)
    throw new Error(
      `${t.kind ?? t.plural} is cluster-scoped; it has no namespace (got ${JSON.stringify(namespace)})`,
    );
  let p = groupVersionPath(t.group, t.version);
  if (namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${t.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

type Opts = Omit<RequestOptions, 'body'> & { subresource?: string };
interface ListOpts<T, U> {
  query?: Query;
  pageSize?: number;
  map?: (item: T) => U;
  signal?: AbortSignal;
  accept?: string;
  bounds?: Partial<ListBounds>;
}

const strip = <O extends { subresource?: string }>(opts: O): Omit<O, 'subresource'> => {
  const { subresource, ...o } = opts;
  void subresource;
  return o;
};

/** GET one object (or its subresource). */
export const get = <T>(
  rest: KubeRest,
  kind: Kind,
  namespace: string | undefined,
  name: string,
  opts: Opts = {},
) => rest.request<T>('GET', resourcePath(kind, namespace, name, opts.subresource), strip(opts));

/** LIST a collection, paginated and bounded (KubeRest.list). */
export const list = <T, U = T>(rest: KubeRest, kind: Kind, namespace?: string, opts?: ListOpts<T, U>) =>
  rest.list<T, U>(resourcePath(kind, namespace), opts);

/** POST to a collection: create an object, or ask a review. */
export const create = <T>(
  rest: KubeRest,
  kind: Kind,
  namespace: string | undefined,
  body: unknown,
  opts: Opts = {},
) => rest.request<T>('POST', resourcePath(kind, namespace), { ...strip(opts), body });

/** PUT an object (or its status), conditional on the body's resourceVersion. */
export const replace = <T>(
  rest: KubeRest,
  kind: Kind,
  namespace: string | undefined,
  name: string,
  body: unknown,
  opts: Opts = {},
) => rest.request<T>('PUT', resourcePath(kind, namespace, name, opts.subresource), { ...strip(opts), body });

/** PATCH an object; opts.contentType says which patch (merge, JSON). */
export const patch = <T>(
  rest: KubeRest,
  kind: Kind,
  namespace: string | undefined,
  name: string,
  body: unknown,
  opts: Opts & { contentType: string },
) =>
  rest.request<T>('PATCH', resourcePath(kind, namespace, name, opts.subresource), { ...strip(opts), body });

/** DELETE an object (opts.body for DeleteOptions: preconditions, propagation). */
const remove = <T>(
  rest: KubeRest,
  kind: Kind,
  namespace: string | undefined,
  name: string,
  opts: Opts & { body?: unknown } = {},
) => rest.request<T>('DELETE', resourcePath(kind, namespace, name, opts.subresource), strip(opts));

export interface ApplyOptions {
  fieldManager: string;
  /** Take the fields we set from other field managers (server-side apply's force). */
  force: boolean;
  /** Server-side dry run: validated and computed by the API server, stored nowhere. */
  dryRun?: boolean;
  subresource?: string;
  timeoutMs?: number;
}

/**
 * Server-side apply (PATCH, application/apply-patch+yaml): the one writer of it. The body's
 * metadata.resourceVersion, when set, makes it conditional (409 when the object changed).
 */
export const apply = <T>(
  rest: KubeRest,
  kind: Kind,
  namespace: string | undefined,
  name: string,
  body: unknown,
  opts: ApplyOptions,
) =>
  rest.request<T>('PATCH', resourcePath(kind, namespace, name, opts.subresource), {
    query: {
      fieldManager: opts.fieldManager,
      force: opts.force,
      dryRun: opts.dryRun ? 'All' : undefined,
    } satisfies Query,
    body,
    contentType: 'application/apply-patch+yaml',
    timeoutMs: opts.timeoutMs,
  });

/** The collection path of a kind of the table by group and kind name; `version` overrides the table's. */
export function kindCollectionPath(
  group: string,
  kind: string,
  namespace?: string,
  version?: string,
): string {
  const k = kindInfo(group, kind);
  return resourcePath(version ? { ...k, version } : k, namespace);
}

/** One object of a table kind, at the version it was written in. */
export interface ObjectRef {
  group: string;
  version: string;
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
}

/** The collection an object reference is in (a kind the table does not declare is refused). */
export const collectionPath = (ref: Omit<ObjectRef, 'name'>): string =>
  kindCollectionPath(ref.group, ref.kind, ref.namespace || undefined, ref.version);

/** The path of the object an ObjectRef names. */
export const objectPath = (ref: ObjectRef): string =>
  `${collectionPath(ref)}/${encodeURIComponent(ref.name)}`;

export { remove as delete };
