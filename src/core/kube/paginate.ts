// A paginated LIST (`limit`/`continue`), as client-go's reflector pages: the response limit
// applies to one page, never to a collection. The collection has bounds of its own, over all its
// pages (items, bytes over the wire, pages), and a continue token may not come back: a server
// that paginates forever, or loops, ends the list with a ListBoundError in bounded time and
// memory, instead of growing until the process dies (`inv watch` once reached 1.75 GB in two
// minutes against such a server). The page fetch is passed in (KubeRest.list).

export interface ListMeta {
  continue?: string;
  resourceVersion?: string;
}

/** Accept header of a metadata-only LIST (PartialObjectMetadataList): no spec crosses the wire. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** What one paginated LIST may take in all. */
export interface ListBounds {
  maxItems: number;
  maxBytes: number;
  maxPages: number;
}

/**
 * A million objects of one kind, 16 GiB over the wire (the objects before stripping), and 20,000
 * pages (a million at 50 per page): far above a cluster of 150,000 Pods, far below a runaway.
 */
export const LIST_BOUNDS: ListBounds = { maxItems: 1_000_000, maxBytes: 16 * 1024 ** 3, maxPages: 20_000 };

/** The longest continue token taken (the API server's are a few hundred bytes). */
const MAX_TOKEN = 64 * 1024;

/** A LIST went past its bounds: not transient, the same server would do it again. */
export class ListBoundError extends Error {
  override readonly name = 'ListBoundError';
}

type Page<T> = { items?: T[] | null; metadata?: ListMeta };

/**
 * This response was larger than the client takes (KubeTransportError kind too-large; the
 * process-wide budget is over-budget, a transient matter that a smaller page does not cure).
 */
const tooLarge = (e: unknown): boolean =>
  !!e && typeof e === 'object' && (e as { kind?: unknown }).kind === 'too-large';

/**
 * A 410 to an expired continue token (etcd compacted the list's revision while the client was
 * reading it), with the Status's own token: it resumes at the next key from the latest revision,
 * so the pages after it are not of the same snapshot as the ones before.
 */
const expiredContinue = (e: unknown): string | undefined => {
  if (!e || typeof e !== 'object') return undefined;
  const { code, continueToken } = e as { code?: unknown; continueToken?: unknown };
  return code === 410 && typeof continueToken === 'string' && continueToken ? continueToken : undefined;
};

/** One page of a LIST; `last` when no page follows. */
export interface ListPage<U> {
  items: U[];
  resourceVersion: string;
  last: boolean;
}

export interface PageOptions<T, U> {
  map?: (item: T) => U;
  bounds?: Partial<ListBounds>;
  pageSize?: number;
  /**
   * On a 410 to an expired continue token, go on with the token the 410 carries instead of
   * failing. For a reader that takes the collection page by page and needs no single snapshot
   * across pages (a merged cluster-wide scan: each namespace is rebuilt from what its pages say);
   * a caller that keeps the whole list (an informer's LIST) must start over instead, and fails.
   */
  resumeExpired?: boolean;
}

/**
 * The pages of one paginated LIST, each page's items mapped as they arrive, under the bounds of
 * the whole list (items, bytes, pages, tokens). The caller may drop each page once it has used it.
 */
export async function* pages<T, U>(
  path: string,
  fetchPage: (
    cont: string | undefined,
    pageSize: number,
    onBodyBytes: (n: number) => void,
  ) => Promise<Page<T>>,
  opts: PageOptions<T, U> = {},
): AsyncGenerator<ListPage<U>, void, undefined> {
  const bounds = { ...LIST_BOUNDS, ...opts.bounds };
  const seen = new Set<string>();
  let cont: string | undefined;
  let resourceVersion = '';
  let pages = 0;
  let bytes = 0;
  let count = 0;
  let pageSize = opts.pageSize ?? 500;
  const stop = (what: string): never => {
    throw new ListBoundError(
      `LIST ${path}: ${what}; stopped after ${pages} page(s), ${count} item(s), ${bytes} bytes`,
    );
  };
  const follow = (next: string | undefined) => {
    if (next !== undefined) {
      if (next.length > MAX_TOKEN) stop(`a continue token longer than ${MAX_TOKEN} bytes`);
      if (seen.has(next)) stop('the server sent the same continue token twice');
      seen.add(next);
    }
    cont = next;
  };
  for (;;) {
    if (pages >= bounds.maxPages) stop(`more than ${bounds.maxPages} pages, the bound of one list`);
    let page: Page<T>;
    try {
      page = await fetchPage(cont, pageSize, (n) => (bytes += n));
    } catch (e) {
      const resume = opts.resumeExpired && cont !== undefined ? expiredContinue(e) : undefined;
      if (resume !== undefined) {
        // Counted as a page, and its token as seen: a server that expires every token still ends.
        pages++;
        follow(resume);
        continue;
      }
      // Counted as a page: a server that answers too large forever still meets maxPages.
      if (!tooLarge(e) || pageSize <= 1) throw e;
      pageSize = Math.max(1, Math.floor(pageSize / 2));
      pages++;
      continue;
    }
    pages++;
    if (bytes > bounds.maxBytes) stop(`more than ${bounds.maxBytes} bytes, the bound of one list`);
    const got = page.items ?? [];
    if (count + got.length > bounds.maxItems)
      stop(`more than ${bounds.maxItems} items, the bound of one list`);
    count += got.length;
    const items = opts.map ? got.map((it) => opts.map!(it)) : (got as unknown as U[]);
    follow(page.metadata?.continue || undefined);
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    yield { items, resourceVersion, last: cont === undefined };
    if (cont === undefined) return;
  }
}

/** The whole of one paginated LIST (see pages()). */
export async function paginate<T, U>(
  path: string,
  fetchPage: Parameters<typeof pages<T, U>>[1],
  opts: Omit<PageOptions<T, U>, 'resumeExpired'> = {},
): Promise<{ items: U[]; resourceVersion: string }> {
  const items: U[] = [];
  let resourceVersion = '';
  for await (const page of pages(path, fetchPage, opts)) {
    for (const it of page.items) items.push(it);
    resourceVersion = page.resourceVersion;
  }
  return { items, resourceVersion };
}

/** What listPages needs of a client: one request (KubeRest satisfies it). */
export interface PageRequester {
  request<R>(
    method: 'GET',
    path: string,
    opts: {
      query: Record<string, string | number | undefined>;
      accept?: string;
      onBodyBytes: (n: number) => void;
    },
  ): Promise<R>;
}

/**
 * pages() over a client: the LIST of `path` page by page, for a reader that uses each page and
 * drops it (a merged cluster-wide scan), under the same bounds as KubeRest.list.
 */
export function listPages<T, U = T>(
  client: PageRequester,
  path: string,
  opts: PageOptions<T, U> & { query?: Record<string, string>; accept?: string } = {},
): AsyncGenerator<ListPage<U>, void, undefined> {
  return pages<T, U>(
    path,
    (cont, limit, onBodyBytes) =>
      client.request<Page<T>>('GET', path, {
        query: { ...opts.query, limit, continue: cont },
        accept: opts.accept,
        onBodyBytes,
      }),
    opts,
  );
}
