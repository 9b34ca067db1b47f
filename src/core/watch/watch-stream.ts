// One streaming watch request (`?watch=1`) against the API server, decoded line by line.
//
// Why not KubeRest.request: it buffers whole responses, and a watch is an endless response. It
// still goes through KubeRest (streamConnection): the same credentials, TLS settings and request
// counting as every other call, on an agent of its own. Why not client-node's Watch: we need to
// control the socket, abort it with a signal, and read HTTP errors (410 Gone) precisely.
//
// Bounded against a misbehaving server: the response headers must arrive within
// `connectTimeoutMs`; a complete event (or bookmark) within every `idleTimeoutMs` (a trickle of
// bytes that never completes a line does not count); and one event line may not exceed
// `maxEventBytes` (an endless line cannot exhaust memory).
import http from 'node:http';
import https from 'node:https';
import type { KubeRest } from '../kube/rest.js';

export interface WatchEvent<T = unknown> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** A watch that could not start (HTTP status) or ended with an ERROR event (its Status code). */
export class WatchError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const isGone = (e: unknown): boolean => e instanceof WatchError && (e.code === 410 || e.code === 504);

/** The default cap on one event: above the API server's object size limit (about 1.5 MiB in etcd). */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

export interface WatchRequest {
  rest: KubeRest;
  /** Collection path, e.g. /api/v1/pods or /api/v1/namespaces/a/pods. */
  path: string;
  /** Extra query parameters (labelSelector, fieldSelector). */
  query?: Record<string, string>;
  resourceVersion: string;
  /** Server-side timeout; the server ends the watch cleanly after it. */
  timeoutSeconds: number;
  /** Client-side: end the watch with an error when no event, not even a bookmark, arrived for this long. */
  idleTimeoutMs: number;
  /** Client-side: the response headers must arrive within this. Default 30 s. */
  connectTimeoutMs?: number;
  /** Cap on one event line. Default 16 MiB. */
  maxEventBytes?: number;
  signal: AbortSignal;
  /** Called for each event, in order. A throw aborts the watch with that error. */
  onEvent(ev: WatchEvent): void;
  /** Called once the server has accepted the watch (a 2xx status): the stream is open. */
  onOpen?(): void;
}

/**
 * Resolves when the watch ends normally (server timeout, connection closed by the server, or
 * `signal` aborted); rejects on connection errors, on an HTTP error status, on ERROR events,
 * and when a deadline or the event size cap is crossed.
 */
export async function runWatch(req: WatchRequest): Promise<void> {
  if (req.signal.aborted) return;
  const url = new URL(req.path, req.rest.server);
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
  url.searchParams.set('watch', '1');
  url.searchParams.set('allowWatchBookmarks', 'true');
  url.searchParams.set('timeoutSeconds', String(req.timeoutSeconds));
  if (req.resourceVersion) url.searchParams.set('resourceVersion', req.resourceVersion);
  const { headers, agent } = await req.rest.streamConnection(req.path);
  const isHttp = url.protocol === 'http:';
  const maxEvent = req.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const connectTimeoutMs = req.connectTimeoutMs ?? 30_000;

  if (req.signal.aborted) return;
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, why: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        finish(new Error(`watch ${req.path}: ${why}`));
        r.destroy();
      }, ms);
    };
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => {
      r.destroy();
      finish();
    };
    const r = (isHttp ? http : https).request(
      url,
      { method: 'GET', headers: { ...headers, accept: 'application/json' }, agent },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            if (text.length < 4096) text += c.slice(0, 4096 - text.length);
          });
          res.on('end', () => {
            let message = text.slice(0, 300);
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? message;
            } catch {
              // not a Status
            }
            finish(new WatchError(status, `watch ${req.path}: ${status}: ${message}`));
          });
          res.on('error', (e) => finish(e));
          return;
        }
        const idle = () => arm(req.idleTimeoutMs, `no event for ${req.idleTimeoutMs} ms`);
        idle();
        req.onOpen?.();
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          // Search only the new chunk for a line end: a long line costs linear time, not quadratic.
          let from = buf.length;
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n', from)) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            from = 0;
            if (!line.trim()) continue;
            try {
              const ev = JSON.parse(line) as WatchEvent;
              if (ev.type === 'ERROR') {
                const st = ev.object as { code?: number; message?: string };
                throw new WatchError(st.code ?? 500, `watch ${req.path}: ${st.code}: ${st.message ?? ''}`);
              }
              idle();
              req.onEvent(ev);
            } catch (e) {
              r.destroy();
              finish(e as Error);
              return;
            }
          }
          if (buf.length > maxEvent) {
            r.destroy();
            finish(
              new Error(`watch ${req.path}: an event larger than ${maxEvent} bytes, the limit for one event`),
            );
          }
        });
        res.on('end', () => finish());
        res.on('error', (e) => finish(req.signal.aborted ? undefined : e));
        res.on('close', () => finish());
      },
    );
    arm(connectTimeoutMs, `no response within ${connectTimeoutMs} ms`);
    r.on('error', (e) => finish(req.signal.aborted ? undefined : e));
    req.signal.addEventListener('abort', onAbort, { once: true });
    r.end();
  });
}
