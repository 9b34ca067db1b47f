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

export async function paginate<T, U>(
  path: string,
  fetchPage: (
    cont: string | undefined,
    pageSize: number,
    onBodyBytes: (n: number) => void,
  ) => Promise<Page<T>>,
  opts: { map?: (item: T) => U; bounds?: Partial<ListBounds>; pageSize?: number } = {},
): Promise<{ items: U[]; resourceVersion: string }> {
  const bounds = { ...LIST_BOUNDS, ...opts.bounds };
  const items: U[] = [];
  const seen = new Set<string>();
  let cont: string | undefined;
  let resourceVersion = '';
  let pages = 0;
  let bytes = 0;
  let pageSize = opts.pageSize ?? 500;
  const stop = (what: string): never => {
    throw new ListBoundError(
      `LIST ${path}: ${what}; stopped after ${pages} page(s), ${items.length} item(s), ${bytes} bytes`,
    );
  };
  for (;;) {
    if (pages >= bounds.maxPages) stop(`more than ${bounds.maxPages} pages, the bound of one list`);
    let page: Page<T>;
    try {
      page = await fetchPage(cont, pageSize, (n) => (bytes += n));
    } catch (e) {
      // Counted as a page: a server that answers too large forever still meets maxPages.
      if (!tooLarge(e) || pageSize <= 1) throw e;
      pageSize = Math.max(1, Math.floor(pageSize / 2));
      pages++;
      continue;
    }
    pages++;
    if (bytes > bounds.maxBytes) stop(`more than ${bounds.maxBytes} bytes, the bound of one list`);
    const got = page.items ?? [];
    if (items.length + got.length > bounds.maxItems)
      stop(`more than ${bounds.maxItems} items, the bound of one list`);
    for (const it of got) items.push(opts.map ? opts.map(it) : (it as unknown as U));
    cont = page.metadata?.continue || undefined;
    if (cont !== undefined) {
      if (cont.length > MAX_TOKEN) stop(`a continue token longer than ${MAX_TOKEN} bytes`);
      if (seen.has(cont)) stop('the server sent the same continue token twice');
      seen.add(cont);
    }
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    if (cont === undefined) break;
  }
  return { items, resourceVersion };
}
