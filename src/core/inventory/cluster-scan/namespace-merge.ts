// The pure half of a merged cluster-wide scan: several cluster-wide LISTs (one per kind), each
// arriving page by page in the API server's order, regrouped namespace by namespace. The API
// server returns a collection in its storage keys' order, `<prefix>/<namespace>/<name>`, so a
// kind's objects come namespace by namespace; a namespace is complete once every kind has gone
// past it, and is then handed out and forgotten. What is held is what has arrived and is not yet
// handed out: a page or two per kind, not the cluster.
//
// The order is of the key, not of the name: "a-b/x" sorts before "a/x" ('-' < '/'), while the
// name "a" sorts before "a-b". Keys are compared as `<namespace>/`, which orders as the server
// does. A kind whose objects go backwards breaks the premise; it is reported (MergeOrderError),
// never regrouped silently.

/** The one field the merge reads. */
export interface Namespaced {
  metadata: { namespace?: string };
}

/** The sort key of a namespace, in the order of the API server's storage keys. */
export const namespaceKey = (ns: string): string => `${ns}/`;

/** Orders namespace names as the API server orders their objects. */
export const byNamespaceKey = (a: string, b: string): number => {
  const ka = namespaceKey(a);
  const kb = namespaceKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** A kind's objects went back to an earlier namespace: the order the merge relies on is not there. */
export class MergeOrderError extends Error {
  override readonly name = 'MergeOrderError';
  constructor(
    readonly stream: number,
    /** The namespace that came out of order (its objects may have been handed out incomplete). */
    readonly namespace: string,
    after: string,
  ) {
    super(`stream ${stream}: namespace "${namespace}" came after "${after}", out of the API server's order`);
  }
}

/** One namespace, complete: each stream's objects in it (in stream order). */
export interface MergedNamespace<T> {
  namespace: string;
  items: T[][];
}

interface StreamState<T> {
  /** Arrived, in key order; from `head` on not yet handed out. */
  buffer: T[];
  head: number;
  /** Key of the last object seen ('' before the first). */
  frontier: string;
  /** Namespace of the last object seen. */
  last: string;
  ended: boolean;
}

export class NamespaceMerge<T extends Namespaced> {
  private readonly order: string[];
  private next = 0;
  private readonly streams: StreamState<T>[];

  /** `namespaces`: the namespaces to hand out (others' objects are dropped); `streams`: how many kinds. */
  constructor(namespaces: readonly string[], streams: number) {
    this.order = [...new Set(namespaces)].sort(byNamespaceKey);
    this.streams = Array.from({ length: streams }, () => ({
      buffer: [],
      head: 0,
      frontier: '',
      last: '',
      ended: false,
    }));
  }

  /** Adds one page of stream `s`; `last` when the stream has no more. Throws MergeOrderError. */
  add(s: number, items: readonly T[], last: boolean): void {
    const st = this.streams[s]!;
    if (st.ended) throw new Error(`stream ${s} already ended`);
    for (const it of items) {
      const ns = it.metadata.namespace ?? '';
      const key = namespaceKey(ns);
      if (key < st.frontier) throw new MergeOrderError(s, ns, st.last);
      st.frontier = key;
      st.last = ns;
      st.buffer.push(it);
    }
    if (last) st.ended = true;
  }

  /** Whether every stream has gone past namespace `ns` (or ended). */
  private passed(ns: string): boolean {
    const key = namespaceKey(ns);
    return this.streams.every((st) => st.ended || st.frontier > key);
  }

  /** The namespaces complete now, in order; each is handed out once. */
  take(): MergedNamespace<T>[] {
    const out: MergedNamespace<T>[] = [];
    while (this.next < this.order.length && this.passed(this.order[this.next]!)) {
      const ns = this.order[this.next++]!;
      const key = namespaceKey(ns);
      const items = this.streams.map((st) => {
        // Objects of namespaces not asked for (created after the namespaces were listed) go.
        let i = st.head;
        while (i < st.buffer.length && namespaceKey(st.buffer[i]!.metadata.namespace ?? '') < key) i++;
        let j = i;
        while (j < st.buffer.length && st.buffer[j]!.metadata.namespace === ns) j++;
        const mine = st.buffer.slice(i, j);
        // Handed-out objects are let go by moving the head; the array is compacted now and then
        // (a splice per namespace would move the rest of the buffer each time).
        st.head = j;
        if (st.head === st.buffer.length || st.head > 1024) {
          st.buffer = st.buffer.slice(st.head);
          st.head = 0;
        }
        return mine;
      });
      out.push({ namespace: ns, items });
    }
    return out;
  }

  /**
   * The streams that must deliver more before the next namespace can be handed out (none once
   * all are handed out).
   */
  blocking(): number[] {
    if (this.finished) return [];
    const key = namespaceKey(this.order[this.next]!);
    return this.streams.flatMap((st, s) => (!st.ended && st.frontier <= key ? [s] : []));
  }

  /** Objects of stream `s` arrived and not yet handed out. */
  buffered(s: number): number {
    const st = this.streams[s]!;
    return st.buffer.length - st.head;
  }

  ended(s: number): boolean {
    return this.streams[s]!.ended;
  }

  /** Every namespace handed out. */
  get finished(): boolean {
    return this.next >= this.order.length;
  }

  /** The namespaces not yet handed out, in order: what a fallback must still read. */
  remaining(): string[] {
    return this.order.slice(this.next);
  }

  /** Objects held in all, for bounds and tests. */
  held(): number {
    return this.streams.reduce((n, st) => n + st.buffer.length - st.head, 0);
  }
}
