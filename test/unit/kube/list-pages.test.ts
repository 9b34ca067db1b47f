// paginate.ts's page stream: the bounds of the whole list hold page by page, and a 410 to an
// expired continue token goes on with the token it carries only when asked (resumeExpired).
// The real API server's 410 is test/inventory/merged-scan's.
import assert from 'node:assert/strict';
import { ListBoundError, pages, paginate } from '../../../src/core/kube/paginate.js';

type Page = { items: number[]; metadata?: { continue?: string } };
const expired = (token?: string) =>
  Object.assign(new Error('410 Expired'), { code: 410, continueToken: token });

async function all<T>(
  g: AsyncGenerator<{ items: T[]; last: boolean }>,
): Promise<{ items: T[]; lasts: boolean[] }> {
  const items: T[] = [];
  const lasts: boolean[] = [];
  for await (const p of g) {
    items.push(...p.items);
    lasts.push(p.last);
  }
  return { items, lasts };
}

describe('the pages of a LIST', () => {
  const three = async (cont: string | undefined): Promise<Page> =>
    cont === undefined
      ? { items: [1, 2], metadata: { continue: 't1' } }
      : cont === 't1'
        ? { items: [3, 4], metadata: { continue: 't2' } }
        : { items: [5] };

  it('yields each page, mapped, the last one marked', async () => {
    const r = await all(pages('/x', three, { map: (n: number) => n * 10 }));
    assert.deepEqual(r, { items: [10, 20, 30, 40, 50], lasts: [false, false, true] });
    assert.deepEqual((await paginate('/x', three)).items, [1, 2, 3, 4, 5]);
  });

  it('keeps the bounds of the whole list across pages (items, pages)', async () => {
    await assert.rejects(all(pages('/x', three, { bounds: { maxItems: 4 } })), ListBoundError);
    await assert.rejects(all(pages('/x', three, { bounds: { maxPages: 2 } })), ListBoundError);
  });

  it('goes on after a 410 with its token when asked, and fails without resumeExpired', async () => {
    const sent: (string | undefined)[] = [];
    const fetch = async (cont: string | undefined): Promise<Page> => {
      sent.push(cont);
      if (cont === 't1') throw expired('t1-inconsistent');
      if (cont === 't1-inconsistent') return { items: [3] };
      return { items: [1, 2], metadata: { continue: 't1' } };
    };
    assert.deepEqual((await all(pages('/x', fetch, { resumeExpired: true }))).items, [1, 2, 3]);
    assert.deepEqual(sent, [undefined, 't1', 't1-inconsistent']);
    await assert.rejects(all(pages('/x', fetch)), /410/);
  });

  it('a server that expires every token still ends, at the bound of pages', async () => {
    let n = 0;
    const fetch = async (cont: string | undefined): Promise<Page> => {
      if (cont === undefined) return { items: [1], metadata: { continue: 't0' } };
      throw expired(`t${++n}`);
    };
    await assert.rejects(
      all(pages('/x', fetch, { resumeExpired: true, bounds: { maxPages: 50 } })),
      ListBoundError,
    );
    // A 410 without a token cannot be resumed.
    const bare = async (cont: string | undefined): Promise<Page> => {
      if (cont === undefined) return { items: [1], metadata: { continue: 't0' } };
      throw expired();
    };
    await assert.rejects(all(pages('/x', bare, { resumeExpired: true })), /410/);
  });
});
