// A small JSON REST client for the API server. Credentials and TLS come from
// client-node's KubeConfig; requests go over one keep-alive agent so a rebuild that makes
// hundreds of calls does not pay a TLS handshake per call. Every request passes through
// `onRequest`, which is how callers count API calls (e.g. "a no-op rebuild writes nothing").
//
// Every request has an overall deadline that covers connecting, the TLS handshake and the whole
// body (a server trickling one byte every few seconds cannot hold a command forever), a cap on
// the response body (an endless stream cannot exhaust memory), and an optional AbortSignal.
// Failures to get a response are KubeTransportErrors: never a verdict on the request itself, so
// callers retry them rather than reject the request as bad input.
import { paginate, type ListBounds, type ListMeta } from './paginate.js';
import type { TokenBucket } from './rate-limit.js';
import { userAgent } from './user-agent.js';
import type { KubeConfig } from '@kubernetes/client-node';
import https from 'node:https';
import http from 'node:http';

export interface KubeStatusLike {
  code?: number;
  reason?: string;
  message?: string;
  /** StatusCause: its type is serialized as "reason". */
  details?: { causes?: { reason?: string; message?: string }[] };
  /** A 410 to an expired continue token carries one that resumes at the next key (inconsistently). */
  metadata?: { continue?: string };
}

export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly method: string,
    readonly path: string,
    /** StatusCause types from the Status details, e.g. NamespaceTerminating. */
    readonly causes: string[] = [],
    /** The Status's metadata.continue: set on a 410 to an expired continue token (paginate.ts). */
    readonly continueToken?: string,
  ) {
    super(message);
  }
}

/** No (complete) response: refused, reset, timed out, too large, aborted, or not JSON. Retryable. */
export class KubeTransportError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    /**
     * A short machine-readable kind: ECONNREFUSED, ECONNRESET, deadline, too-large (this
     * response over the cap), over-budget (the process's responses together), aborted, ...
     */
    readonly kind: string,
  ) {
    super(message);
  }
}

/** Errors worth retrying with backoff: no response, a server error, or throttling. */
export const isTransient = (e: unknown): boolean =>
  e instanceof KubeTransportError || (e instanceof KubeApiError && (e.code >= 500 || e.code === 429));

/** The default cap on one response body: far above any page of a LIST, far below a memory problem. */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** Connections kept for requests (watches have their own); docs/inventory.md says it. */
export const MAX_CONNECTIONS = 32;

// Response bodies being buffered, across every client of the process. A cap per response bounds
// one request; this bounds them together, so a server streaming garbage into many concurrent
// requests (every informer's LIST at once) cannot multiply the cap. Crossing it fails the
// request that crossed it like the per-response cap (a transport error: retried later).
const responseBudget = { limit: DEFAULT_MAX_RESPONSE_BYTES, used: 0 };

/** Sets the process-wide limit on response bytes buffered at once (`inv watch` lowers it). */
export function setResponseBudget(bytes: number): void {
  if (!(bytes > 0)) throw new Error(`response budget must be positive, got ${bytes}`);
  responseBudget.limit = bytes;
}

export const isNotFound = (e: unknown): boolean => e instanceof KubeApiError && e.code === 404;
export const isConflict = (e: unknown): boolean => e instanceof KubeApiError && e.code === 409;
export const isAlreadyExists = (e: unknown): boolean =>
  e instanceof KubeApiError && e.code === 409 && e.reason === 'AlreadyExists';
/** A create refused because the namespace is being deleted (NamespaceLifecycle admission). */
export const isNamespaceTerminating = (e: unknown): boolean =>
  e instanceof KubeApiError && e.code === 403 && e.causes.includes('NamespaceTerminating');

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  contentType?: string;
  /** Accept header; default application/json (metadata-only lists ask for PartialObjectMetadataList). */
  accept?: string;
  /** Overall deadline of this request (connect, TLS, headers and body). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Told the size of a complete response body, in bytes (list() adds up its pages). */
  onBodyBytes?: (bytes: number) => void;
  /** The body is text, not JSON (a Pod's log): resolve with it as it came. */
  text?: boolean;
}

export interface KubeRestOptions {
  /** Overall deadline of each request. Default 30 s. */
  timeoutMs?: number;
  /** Cap on each response body. Default 256 MiB. */
  maxResponseBytes?: number;
  /**
   * Client-side rate limit of writes (POST, PUT, PATCH, DELETE): a token bucket (rate-limit.ts).
   * Every KubeRest built from the same options object shares it. Default: none.
   */
  writeLimiter?: TokenBucket;
}

export {
  LIST_BOUNDS,
  ListBoundError,
  METADATA_LIST_ACCEPT,
  type ListBounds,
  type ListMeta,
} from './paginate.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const isWrite = (method: string): boolean => WRITE_METHODS.has(method);

export class KubeRest {
  readonly server: URL;
  private agent?: https.Agent | http.Agent;
  // Watches hold their socket for minutes: a pool of their own, so they never starve requests.
  private streamAgent?: https.Agent | http.Agent;
  private headers?: { value: Record<string, string | string[]>; expires: number };
  onRequest?: (method: string, path: string) => void;

  private readonly defaultTimeoutMs: number;
  private readonly maxResponseBytes: number;
  readonly writeLimiter?: TokenBucket;

  constructor(
    private readonly kc: KubeConfig,
    opts: KubeRestOptions | number = {},
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    const o = typeof opts === 'number' ? { timeoutMs: opts } : opts;
    this.defaultTimeoutMs = o.timeoutMs ?? 30_000;
    this.maxResponseBytes = o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.writeLimiter = o.writeLimiter;
  }

  private sibling?: KubeRest;

  /**
   * This client without the write limit (its own connections, the same credentials, requests
   * still counted through this client's onRequest): for Lease renewals, which must never queue
   * behind a backlog of writes (kube-controller-manager gives leader election a client of its own).
   */
  withoutWriteLimit(): KubeRest {
    if (!this.writeLimiter) return this;
    this.sibling ??= this.detached();
    return this.sibling;
  }

  /**
   * A new client of its own (its own connections, no write limit, the same credentials, requests
   * counted through this client's onRequest), which the caller closes: for the metrics endpoint's
   * token reviews, paced by a budget of their own so a flood of them never delays a write.
   */
  detached(): KubeRest {
    const c = new KubeRest(this.kc, {
      timeoutMs: this.defaultTimeoutMs,
      maxResponseBytes: this.maxResponseBytes,
    });
    c.onRequest = (m, p) => this.onRequest?.(m, p);
    return c;
  }

  /** Auth headers are re-derived every 30 s so rotated tokens (in-cluster, exec plugins) are picked up. */
  private async prepare(): Promise<Record<string, string | string[]>> {
    const now = Date.now();
    if (this.headers && this.headers.expires > now && this.agent) return this.headers.value;
    const opts: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts);
    if (!this.agent) {
      const make = (maxSockets: number) =>
        this.server.protocol === 'http:'
          ? new http.Agent({ keepAlive: true, maxSockets })
          : new https.Agent({
              keepAlive: true,
              maxSockets,
              ca: opts.ca,
              cert: opts.cert,
              key: opts.key,
              servername: opts.servername,
              rejectUnauthorized: opts.rejectUnauthorized,
            });
      this.agent = make(MAX_CONNECTIONS);
      this.streamAgent = make(Infinity);
    }
    const value: Record<string, string | string[]> = { 'User-Agent': userAgent() };
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      // An array is one header line per value (Impersonate-Group, core/kube/connection.ts).
      if (typeof v === 'string' || Array.isArray(v)) value[k] = v;
    }
    if (opts.auth) value.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    this.headers = { value, expires: now + 30_000 };
    return value;
  }

  /**
   * What a streaming request (a watch, src/core/controller/watch-stream.ts) needs to open a connection
   * with the same credentials and TLS settings: current auth headers and the stream agent.
   * Counted through onRequest as method WATCH.
   */
  async streamConnection(
    path: string,
  ): Promise<{ headers: Record<string, string | string[]>; agent: http.Agent }> {
    const headers = await this.prepare();
    this.onRequest?.('WATCH', new URL(path, this.server).pathname);
    return { headers, agent: this.streamAgent! };
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    // Throttled before the deadline starts, as client-go does (rate-limit.ts).
    if (this.writeLimiter && isWrite(method)) await this.writeLimiter.take(opts.signal);
    const auth = await this.prepare();
    const url = new URL(path, this.server);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    }
    const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    this.onRequest?.(method, url.pathname);
    const mod = url.protocol === 'http:' ? http : https;
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    const max = this.maxResponseBytes;
    const fail = (kind: string, detail: string) =>
      new KubeTransportError(`${method} ${url.pathname}: ${detail}`, method, url.pathname, kind);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const done = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        opts.signal?.removeEventListener('abort', onAbort);
        f();
      };
      const req = mod.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            ...auth,
            accept: opts.accept ?? 'application/json',
            ...(payload
              ? { 'content-type': opts.contentType ?? 'application/json', 'content-length': payload.length }
              : {}),
          },
          // Inactivity on the socket; the overall deadline below bounds the whole exchange.
          timeout: timeoutMs,
        },
        (res) => {
          let chunks: Buffer[] = [];
          let size = 0;
          let released = false;
          const release = () => {
            if (released) return;
            released = true;
            responseBudget.used -= size;
            chunks = [];
          };
          res.on('data', (c: Buffer) => {
            if (released) return;
            size += c.length;
            responseBudget.used += c.length;
            if (size > max) {
              release();
              req.destroy(fail('too-large', `response larger than ${max} bytes, the limit for one response`));
              return;
            }
            if (responseBudget.used > responseBudget.limit) {
              release();
              req.destroy(
                fail(
                  'over-budget',
                  `responses in flight exceed ${responseBudget.limit} bytes, the limit for this process`,
                ),
              );
              return;
            }
            chunks.push(c);
          });
          res.on('close', release);
          res.on('end', () =>
            done(() => {
              const text = Buffer.concat(chunks).toString('utf8');
              opts.onBodyBytes?.(size);
              release();
              const status = res.statusCode ?? 0;
              if (status >= 200 && status < 300) {
                try {
                  if (opts.text) return resolve(text as T);
                  resolve((text ? JSON.parse(text) : undefined) as T);
                } catch (e) {
                  reject(fail('invalid-json', `invalid JSON in response: ${(e as Error).message}`));
                }
                return;
              }
              let st: KubeStatusLike = {};
              try {
                st = JSON.parse(text) as KubeStatusLike;
              } catch {
                st = { message: text.slice(0, 200) };
              }
              reject(
                new KubeApiError(
                  status,
                  st.reason ?? '',
                  `${method} ${url.pathname}: ${status} ${st.reason ?? ''}: ${st.message ?? ''}`.trim(),
                  method,
                  url.pathname,
                  (st.details?.causes ?? []).map((c) => c.reason ?? ''),
                  st.metadata?.continue || undefined,
                ),
              );
            }),
          );
          res.on('error', (e) => done(() => reject(asTransport(e))));
          // Destroyed mid-body (deadline, size cap, abort, reset): whichever error came first wins;
          // this only covers a close that reported none.
          res.on('close', () => {
            if (!res.complete)
              done(() => reject(fail('closed', 'connection closed before the response ended')));
          });
        },
      );
      const asTransport = (e: Error): Error =>
        e instanceof KubeApiError || e instanceof KubeTransportError
          ? e
          : fail((e as NodeJS.ErrnoException).code ?? 'error', `${url.host}: ${e.message}`);
      const deadline = setTimeout(
        () => req.destroy(fail('deadline', `no complete response within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => req.destroy(fail('aborted', 'aborted'));
      if (opts.signal?.aborted) onAbort();
      else opts.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('timeout', () => req.destroy(fail('deadline', `no data for ${timeoutMs} ms`)));
      req.on('error', (e) => done(() => reject(asTransport(e))));
      if (payload) req.write(payload);
      req.end();
    });
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, { query, signal });
  }

  /**
   * Lists a collection page by page (`limit`/`continue`), handing each item to `map` as it
   * arrives so that only the mapped (stripped) form is kept in memory; bounded as paginate.ts
   * says (ListBoundError past the bounds).
   */
  list<T, U = T>(
    path: string,
    opts: {
      query?: Query;
      pageSize?: number;
      map?: (item: T) => U;
      signal?: AbortSignal;
      accept?: string;
      bounds?: Partial<ListBounds>;
    } = {},
  ): Promise<{ items: U[]; resourceVersion: string }> {
    return paginate<T, U>(
      path,
      (cont, limit, onBodyBytes) =>
        this.request<{ items: T[]; metadata?: ListMeta }>('GET', path, {
          query: { ...opts.query, limit, continue: cont },
          signal: opts.signal,
          accept: opts.accept,
          onBodyBytes,
        }),
      opts,
    );
  }

  close(): void {
    this.agent?.destroy();
    this.streamAgent?.destroy();
    this.sibling?.close();
  }
}
