// Drives a NamespaceMerge (./namespace-merge.ts) from live page streams, one per kind: it asks a
// kind for its next page only when the merge needs it (the next namespace waits on that kind) or
// when less than `lookahead` of its objects are waiting, so each kind holds about a page ahead
// of the slowest, and no page is asked for while the consumer has not taken the namespace handed
// out (a generator runs only when pulled). Kinds that must advance are asked in parallel.
//
// A stream that fails (a 403 on a cluster-wide LIST, a bound, an object too large even for a
// page of one, a network error) ends the merge: the namespaces handed out so far are complete and
// stay done, and the return value names the rest, for the caller to read one namespace at a
// time as before. A kind out of the API server's order (MergeOrderError) may have made earlier
// namespaces incomplete, so then every namespace is to be read again.
import { MergeOrderError, NamespaceMerge, type MergedNamespace, type Namespaced } from './namespace-merge.js';

/** One page of a stream; `last` when none follows. */
export interface StreamPage<T> {
  items: T[];
  last: boolean;
}

/** How the merge ended: `remaining` still to read (empty when it completed). */
export interface MergeEnd {
  remaining: string[];
  /** Why it stopped early. */
  error?: unknown;
  /** Namespaces already handed out may be incomplete: read every namespace again. */
  rereadAll?: boolean;
}

export async function* mergeStreams<T extends Namespaced>(
  namespaces: readonly string[],
  streams: readonly (() => AsyncIterator<StreamPage<T>>)[],
  opts: { lookahead?: number } = {},
): AsyncGenerator<MergedNamespace<T>, MergeEnd, undefined> {
  const lookahead = opts.lookahead ?? 500;
  const merge = new NamespaceMerge<T>(namespaces, streams.length);
  const iterators = streams.map((open) => open());
  const pending = new Map<number, Promise<void>>();
  let failure: unknown;
  let failed = false;
  const fail = (e: unknown) => {
    if (failed) return;
    failed = true;
    failure = e;
  };
  const ask = (s: number) => {
    const p = iterators[s]!.next().then((r) => {
      if (failed) return;
      try {
        if (r.done) merge.add(s, [], true);
        else merge.add(s, r.value.items, r.value.last);
      } catch (e) {
        fail(e);
      }
    }, fail);
    pending.set(
      s,
      p.finally(() => pending.delete(s)),
    );
  };
  try {
    for (;;) {
      if (failed) break;
      for (const m of merge.take()) yield m;
      if (merge.finished || failed) break;
      const blocking = new Set(merge.blocking());
      for (let s = 0; s < streams.length; s++)
        if (!merge.ended(s) && !pending.has(s) && (blocking.has(s) || merge.buffered(s) < lookahead)) ask(s);
      if (pending.size === 0) {
        // Nothing to wait for and nothing complete: a stream ended without reaching its end.
        fail(new Error('merged LIST stalled: no kind can advance'));
        break;
      }
      await Promise.race(pending.values());
    }
  } finally {
    // Abandoned (failure, or the consumer stopped): close every stream not finished.
    for (let s = 0; s < iterators.length; s++)
      if (!merge.ended(s)) void iterators[s]!.return?.()?.catch?.(() => undefined);
  }
  if (!failed) return { remaining: [] };
  if (failure instanceof MergeOrderError)
    return { remaining: [...namespaces], error: failure, rereadAll: true };
  return { remaining: merge.remaining(), error: failure };
}
