// A cluster-wide LIST made one namespace at a time, for when the collection cannot be listed
// whole: one tenant's object larger than the client takes in a response (even at a page of
// one), or one a conversion webhook cannot serve, fails the whole collection, and with it every
// other namespace's inventory. Listed namespace by namespace, only the namespaces that fail are
// lost, and they are reported (Informer.unreadable()).
//
// The watch that follows is cluster-wide, from the oldest of the namespaces' resourceVersions
// (etcd revisions, compared as numbers): events between that and a later namespace's LIST are
// delivered again, which the cache absorbs as updates. Bounded: at most MAX_NAMESPACES, a few at
// a time, each LIST under the client's own limits and deadlines; how often a kind is listed
// this way is the informer's (informer-health.ts). It needs `list namespaces` (the shipped
// ClusterRole grants it; `inv check` verifies it): when the namespaces cannot be listed, the
// error says so next to the cluster-wide LIST's, for the log and /readyz, never silently.
import { forEachConcurrent } from '../concurrency.js';
import { LIST_BOUNDS, ListBoundError } from '../kube/paginate.js';
import type { Logger } from '../observability/logger.js';

/** The most namespaces listed one by one (far above a usual cluster). */
export const MAX_NAMESPACES = 10_000;
const CONCURRENCY = 4;

export interface PerNamespaceList {
  /** Every namespace's name now. */
  namespaces(): Promise<string[]>;
  /** The collection path of one namespace. */
  path(namespace: string): string;
}

export async function listByNamespace<T>(
  per: PerNamespaceList,
  listPath: (path: string) => Promise<{ items: T[]; resourceVersion: string }>,
  err: unknown,
  signal: AbortSignal,
): Promise<{ items: T[]; resourceVersion: string; unreadable: Map<string, string> }> {
  let names: string[];
  const unreadable = new Map<string, string>();
  try {
    const all = await per.namespaces();
    names = all.slice(0, MAX_NAMESPACES);
    // Past the bound a namespace is not listed: it is unreadable, never silently absent (its
    // cached objects stay and a * prune waits, as for any namespace that cannot be read).
    for (const ns of all.slice(MAX_NAMESPACES))
      unreadable.set(ns, `not listed: past the ${MAX_NAMESPACES} namespaces listed one at a time`);
  } catch (e) {
    throw new Error(
      `${(err as Error).message}; and it cannot be listed one namespace at a time: listing the namespaces failed: ${(e as Error).message}`,
    );
  }
  const items: T[] = [];
  const versions: bigint[] = [];
  let tooMany = false;
  await forEachConcurrent(names, CONCURRENCY, async (ns) => {
    if (signal.aborted || tooMany) return;
    let r: { items: T[]; resourceVersion: string };
    try {
      r = await listPath(per.path(ns));
      if (!/^\d{1,30}$/.test(r.resourceVersion))
        throw new Error(`resourceVersion ${r.resourceVersion} is not a number`);
    } catch (e) {
      unreadable.set(ns, (e as Error).message);
      return;
    }
    // The collection's bound holds over its namespaces together, as over its pages.
    if (items.length + r.items.length > LIST_BOUNDS.maxItems) {
      tooMany = true;
      return;
    }
    for (const it of r.items) items.push(it);
    versions.push(BigInt(r.resourceVersion));
  });
  if (tooMany)
    throw new ListBoundError(
      `listed one namespace at a time: more than ${LIST_BOUNDS.maxItems} items, the bound of one list`,
    );
  if (signal.aborted || versions.length === 0) throw err;
  const oldest = versions.reduce((a, b) => (a < b ? a : b));
  return { items, resourceVersion: oldest.toString(), unreadable };
}

/**
 * The whole collection at `path`; when that fails and `per` is given, one namespace at a time
 * (onPass is told; the failure is rethrown when that cannot help either: no namespace readable,
 * no resourceVersion to watch from, or the namespaces cannot be listed).
 */
export async function listCollection<T>(
  listPath: (path: string) => Promise<{ items: T[]; resourceVersion: string }>,
  path: string,
  per: PerNamespaceList | undefined,
  log: Logger,
  signal: AbortSignal,
  onPass?: () => void,
): Promise<{ items: T[]; resourceVersion: string; unreadable: Map<string, string> }> {
  try {
    return { ...(await listPath(path)), unreadable: new Map() };
  } catch (err) {
    if (!per || signal.aborted) throw err;
    onPass?.();
    const listed = await listByNamespace(per, listPath, err, signal);
    log.warn('listed one namespace at a time: some namespaces cannot be read', {
      unreadable: [...listed.unreadable.keys()].slice(0, 10),
      count: listed.unreadable.size,
      err: (err as Error).message,
    });
    return listed;
  }
}
