// A small JSON REST client for the API server. Credentials and TLS come from
// client-node's KubeConfig; requests go over one keep-alive agent so a rebuild that makes
// hundreds of calls does not pay a TLS handshake per call. Every request passes through
// `onRequest`, which is how callers count API calls (e.g. "a no-op rebuild writes nothing").
import type { KubeConfig } from '@kubernetes/client-node';
import https from 'node:https';
import http from 'node:http';

export interface KubeStatusLike {
  code?: number;
  reason?: string;
  message?: string;
  /** StatusCause: its type is serialized as "reason". */
  details?: { causes?: { reason?: string; message?: string }[] };
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
  ) {
    super(message);
  }
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
  timeoutMs?: number;
}

export interface ListMeta {
  continue?: string;
  resourceVersion?: string;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const isWrite = (method: string): boolean => WRITE_METHODS.has(method);

export class KubeRest {
  readonly server: URL;
  private agent?: https.Agent | http.Agent;
  private headers?: { value: Record<string, string>; expires: number };
  onRequest?: (method: string, path: string) => void;

  constructor(
    private readonly kc: KubeConfig,
    private readonly defaultTimeoutMs = 30_000,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
  }

  /** Auth headers are re-derived every 30 s so rotated tokens (in-cluster, exec plugins) are picked up. */
  private async prepare(): Promise<Record<string, string>> {
    const now = Date.now();
    if (this.headers && this.headers.expires > now && this.agent) return this.headers.value;
    const opts: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts);
    if (!this.agent) {
      const base = { keepAlive: true, maxSockets: 32 };
      this.agent =
        this.server.protocol === 'http:'
          ? new http.Agent(base)
          : new https.Agent({
              ...base,
              ca: opts.ca,
              cert: opts.cert,
              key: opts.key,
              servername: opts.servername,
              rejectUnauthorized: opts.rejectUnauthorized,
            });
    }
    const value: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (typeof v === 'string') value[k] = v;
    }
    if (opts.auth) value.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    this.headers = { value, expires: now + 30_000 };
    return value;
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const auth = await this.prepare();
    const url = new URL(path, this.server);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    }
    const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    this.onRequest?.(method, url.pathname);
    const mod = url.protocol === 'http:' ? http : https;
    return new Promise<T>((resolve, reject) => {
      const req = mod.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            ...auth,
            accept: 'application/json',
            ...(payload
              ? { 'content-type': opts.contentType ?? 'application/json', 'content-length': payload.length }
              : {}),
          },
          timeout: opts.timeoutMs ?? this.defaultTimeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              try {
                resolve((text ? JSON.parse(text) : undefined) as T);
              } catch (e) {
                reject(
                  new Error(`${method} ${url.pathname}: invalid JSON in response: ${(e as Error).message}`),
                );
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
              ),
            );
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname}: timed out`)));
      req.on('error', (e) =>
        reject(e instanceof KubeApiError ? e : new Error(`${method} ${url.href}: ${e.message}`)),
      );
      if (payload) req.write(payload);
      req.end();
    });
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  /**
   * Lists a collection page by page (`limit`/`continue`), handing each item to `map` as it
   * arrives so that only the mapped (stripped) form is kept in memory.
   */
  async list<T, U = T>(
    path: string,
    opts: { query?: Query; pageSize?: number; map?: (item: T) => U } = {},
  ): Promise<{ items: U[]; resourceVersion: string }> {
    const items: U[] = [];
    let cont: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.get<{ items: T[]; metadata?: ListMeta }>(path, {
        ...opts.query,
        limit: opts.pageSize ?? 500,
        continue: cont,
      });
      for (const it of page.items ?? []) items.push(opts.map ? opts.map(it) : (it as unknown as U));
      cont = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    } while (cont);
    return { items, resourceVersion };
  }

  close(): void {
    this.agent?.destroy();
  }
}
