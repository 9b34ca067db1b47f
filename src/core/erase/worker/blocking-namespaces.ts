// Which namespace stops a `*` prune. The protected set needs every namespace's workloads (fail
// closed), and a cluster-wide LIST fails whole: one tenant's object the client cannot take (over
// the response limit on its own), or one that a conversion webhook cannot serve, fails the
// collection for everyone. The prune still waits, but the job's message names the namespace
// and the reason, found by listing the failing kind one namespace at a time, so an
// administrator knows whose object to look at. Bounded: at most MAX_PROBED namespaces, a few at
// a time, each LIST under the client's own deadline and limits. Under the daemon, what its
// informers already know of unreadable namespaces names them without a probe.
import * as resources from '../../kube/resources.js';
import { forEachConcurrent } from '../../concurrency.js';
import { METADATA_LIST_ACCEPT } from '../../kube/paginate.js';
import type { KubeRest } from '../../kube/rest.js';
import type { OwnerKindSpec, SourceKindSpec } from '../../inventory/source-kinds.js';
import { listKind } from '../../inventory/sources.js';

/** Namespaces probed at most (a cluster of 10,000 namespaces is far past the usual). */
export const MAX_PROBED = 10_000;
/** Namespaces named in a message at most. */
const NAMED = 3;

export interface BlockedNamespace {
  namespace: string;
  reason: string;
}

/** The namespaces whose `kind` objects cannot be listed, in name order (empty: none found). */
export async function blockingNamespaces(
  rest: KubeRest,
  kind: SourceKindSpec | OwnerKindSpec,
  concurrency = 4,
): Promise<BlockedNamespace[]> {
  // A cluster-scoped declared kind has one collection: no namespace blocks it, its error stands.
  if ('namespace' in kind && kind.namespace !== undefined) return [];
  const { items } = await resources.list<{ metadata: { name: string } }>(rest, 'Namespace', undefined, {
    accept: METADATA_LIST_ACCEPT,
    bounds: { maxItems: MAX_PROBED },
  });
  const out: BlockedNamespace[] = [];
  await forEachConcurrent(
    items.map((n) => n.metadata.name),
    concurrency,
    async (namespace) => {
      try {
        await listKind(rest, kind, namespace);
      } catch (e) {
        out.push({ namespace, reason: (e as Error).message });
      }
    },
  );
  return out.sort((a, b) => (a.namespace < b.namespace ? -1 : 1));
}

/**
 * The error of a failed cluster-wide LIST of `kind`, naming the namespaces that block it when a
 * probe finds them (the original error when it finds none, or cannot run).
 */
export async function namingBlockers(
  rest: KubeRest,
  kind: SourceKindSpec | OwnerKindSpec,
  err: unknown,
): Promise<Error> {
  let blocked: BlockedNamespace[];
  try {
    blocked = await blockingNamespaces(rest, kind);
  } catch {
    return err as Error;
  }
  return blockersError(kind, blocked, err);
}

/** The error naming `blocked` (the original error when it is empty). */
export function blockersError(
  kind: SourceKindSpec | OwnerKindSpec,
  blocked: BlockedNamespace[],
  err: unknown,
): Error {
  if (!blocked.length) return err as Error;
  const named = blocked
    .slice(0, NAMED)
    .map((b) => `namespace ${b.namespace} (${b.reason})`)
    .join('; ');
  const more = blocked.length > NAMED ? `; and ${blocked.length - NAMED} more namespace(s)` : '';
  return new Error(
    `the ${kind.kind} objects of ${named}${more} cannot be read, and every namespace's workloads are needed`,
  );
}
