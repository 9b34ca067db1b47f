// The merge of cluster-wide LISTs namespace by namespace (core/inventory/cluster-scan/): pure,
// so its cases are pages written out here: interleaved pages, a kind that ends early, namespaces
// present in one kind only, the storage-key order ('-' before '/'), what is held, a kind out of
// order, a failing stream. What the API server really returns is test/inventory/merged-scan.
import assert from 'node:assert/strict';
import {
  byNamespaceKey,
  MergeOrderError,
  NamespaceMerge,
  type Namespaced,
} from '../../../src/core/inventory/cluster-scan/namespace-merge.js';
import { mergeStreams, type StreamPage } from '../../../src/core/inventory/cluster-scan/merged-pages.js';

type Obj = Namespaced & { metadata: { namespace: string; name: string } };
const o = (ns: string, name: string): Obj => ({ metadata: { namespace: ns, name } });
/** Objects "ns/name" in the API server's order. */
const objs = (...ids: string[]): Obj[] =>
  ids.map((id) => o(id.slice(0, id.lastIndexOf('/')), id.slice(id.lastIndexOf('/') + 1)));
const names = (xs: Obj[]) => xs.map((x) => x.metadata.name);

/** A stream of fixed pages, counting how many were asked for. */
function pagesOf(pages: Obj[][], asked = { n: 0 }): () => AsyncIterator<StreamPage<Obj>> {
  return async function* () {
    for (let i = 0; i < pages.length; i++) {
      asked.n++;
      await Promise.resolve();
      yield { items: pages[i]!, last: i === pages.length - 1 };
    }
  };
}

async function drain<T, R>(g: AsyncGenerator<T, R>): Promise<{ out: T[]; end: R }> {
  const out: T[] = [];
  for (;;) {
    const r = await g.next();
    if (r.done) return { out, end: r.value };
    out.push(r.value);
  }
}

describe('merging cluster-wide LISTs namespace by namespace', () => {
  it('orders namespaces as storage keys: "a-b" before "a", "a" before "ab"', () => {
    assert.deepEqual(['ab', 'a', 'a-b', 'b'].sort(byNamespaceKey), ['a-b', 'a', 'ab', 'b']);
  });

  it('hands a namespace out once every kind has gone past it, with interleaved pages', () => {
    const m = new NamespaceMerge<Obj>(['a', 'b', 'c'], 2);
    m.add(0, objs('a/p1', 'a/p2'), false);
    assert.deepEqual(m.take(), [], 'kind 1 has not reached a');
    assert.deepEqual(m.blocking(), [0, 1], 'kind 0 may still have more of a');
    m.add(1, objs('a/d1', 'c/d1'), false);
    assert.deepEqual(m.take(), [], 'kind 0 may still have more of a');
    m.add(0, objs('a/p3', 'b/p1'), false);
    const first = m.take();
    assert.deepEqual(
      first.map((x) => [x.namespace, x.items.map(names)]),
      [['a', [['p1', 'p2', 'p3'], ['d1']]]],
    );
    assert.deepEqual(m.blocking(), [0], 'b waits on kind 0 alone: kind 1 is at c');
    m.add(0, [], true);
    assert.deepEqual(
      m.take().map((x) => [x.namespace, x.items.map(names)]),
      [['b', [['p1'], []]]],
      'b is in kind 0 only',
    );
    m.add(1, [], true);
    assert.deepEqual(
      m.take().map((x) => [x.namespace, x.items.map(names)]),
      [['c', [[], ['d1']]]],
    );
    assert.ok(m.finished);
    assert.equal(m.held(), 0);
  });

  it('hands out empty namespaces and drops objects of namespaces not asked for', () => {
    const m = new NamespaceMerge<Obj>(['empty', 'z'], 2);
    m.add(0, objs('a/x', 'new/x', 'z/x'), true);
    m.add(1, objs('q/y'), true);
    const got = m.take().map((x) => [x.namespace, x.items.map(names)]);
    assert.deepEqual(got, [
      ['empty', [[], []]],
      ['z', [['x'], []]],
    ]);
    assert.equal(m.held(), 0);
  });

  it('a kind that ends early (no objects at all) never holds the others back', () => {
    const m = new NamespaceMerge<Obj>(['a', 'b'], 3);
    m.add(2, [], true);
    m.add(0, objs('a/1', 'b/1'), true);
    m.add(1, objs('a/2'), false);
    assert.deepEqual(m.take(), [], 'kind 1 may have more of a');
    m.add(1, objs('b/2'), false);
    assert.deepEqual(
      m.take().map((x) => x.namespace),
      ['a'],
    );
    m.add(1, [], true);
    assert.deepEqual(
      m.take().map((x) => x.namespace),
      ['b'],
    );
  });

  it('follows the key order across "a-b" and "a"', () => {
    const m = new NamespaceMerge<Obj>(['a', 'a-b'], 1);
    m.add(0, objs('a-b/1', 'a/1'), true);
    assert.deepEqual(
      m.take().map((x) => [x.namespace, x.items.map(names)]),
      [
        ['a-b', [['1']]],
        ['a', [['1']]],
      ],
    );
  });

  it('refuses a kind that goes back to an earlier namespace', () => {
    const m = new NamespaceMerge<Obj>(['a', 'b'], 1);
    m.add(0, objs('b/1'), false);
    assert.throws(() => m.add(0, objs('a/1'), false), MergeOrderError);
  });

  it('asks a kind for a page only when needed or short, so what is held stays near a page per kind', async () => {
    // 200 namespaces; kind 0 has 5 objects per namespace in pages of 10, kind 1 one per
    // namespace in pages of 10. Nothing is consumed while the consumer holds a namespace.
    const nss = Array.from({ length: 200 }, (_, i) => `ns-${String(i).padStart(3, '0')}`);
    const page = (xs: Obj[], size: number) =>
      Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));
    const k0 = page(
      nss.flatMap((ns) => [1, 2, 3, 4, 5].map((i) => o(ns, `p${i}`))),
      10,
    );
    const k1 = page(
      nss.map((ns) => o(ns, 'd')),
      10,
    );
    const asked0 = { n: 0 };
    const asked1 = { n: 0 };
    const g = mergeStreams(nss, [pagesOf(k0, asked0), pagesOf(k1, asked1)], { lookahead: 10 });
    let maxAhead = 0;
    const seen: string[] = [];
    for (;;) {
      const r = await g.next();
      if (r.done) {
        assert.deepEqual(r.value, { remaining: [] });
        break;
      }
      seen.push(r.value.namespace);
      assert.deepEqual(names(r.value.items[0]!), ['p1', 'p2', 'p3', 'p4', 'p5']);
      assert.deepEqual(names(r.value.items[1]!), ['d']);
      // Pages asked for beyond the namespaces handed out: kind 1's 10 namespaces per page
      // against kind 0's 2; never the whole list.
      const ahead = asked1.n * 10 - seen.length;
      maxAhead = Math.max(maxAhead, ahead);
    }
    assert.deepEqual(seen, nss);
    assert.equal(asked0.n, k0.length);
    assert.equal(asked1.n, k1.length);
    assert.ok(maxAhead <= 20, `kind 1 ran ${maxAhead} namespaces ahead (two pages at most)`);
  });

  it('stops at a failing stream and names the namespaces not handed out', async () => {
    const failing = () =>
      (async function* (): AsyncGenerator<StreamPage<Obj>> {
        yield { items: objs('a/1', 'b/1'), last: false };
        throw new Error('403 Forbidden');
      })();
    const { out, end } = await drain(
      mergeStreams(['a', 'b', 'c'], [failing, pagesOf([objs('a/x', 'b/x', 'c/x')])]),
    );
    assert.deepEqual(
      out.map((x) => x.namespace),
      ['a'],
    );
    assert.deepEqual(end.remaining, ['b', 'c']);
    assert.match((end.error as Error).message, /403/);
    assert.equal(end.rereadAll, undefined);
  });

  it('a kind out of order makes every namespace to be read again', async () => {
    const { end } = await drain(
      mergeStreams(['a', 'b', 'c'], [pagesOf([objs('c/1'), objs('a/1')]), pagesOf([objs('a/x', 'c/x')])]),
    );
    assert.ok(end.error instanceof MergeOrderError);
    assert.equal(end.rereadAll, true);
    assert.deepEqual(end.remaining, ['a', 'b', 'c']);
  });
});
