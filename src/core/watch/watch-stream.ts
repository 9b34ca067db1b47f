// One streaming watch request (`?watch=1`) against the API server, decoded line by line.
//
// Why not KubeRest: it buffers whole responses, and a watch is an endless response. Why not
// client-node's Watch: we need to control the socket (an idle timeout that catches a silently
// dead connection), abort it with a signal, and read HTTP errors (410 Gone) precisely.
// Credentials are re-derived from the KubeConfig on every open, so rotated tokens are used.
import type { KubeConfig } from '@kubernetes/client-node';
import http from 'node:http';
import https from 'node:https';

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

export interface WatchRequest {
  kubeConfig: KubeConfig;
  /** Collection path, e.g. /api/v1/pods or /api/v1/namespaces/a/pods. */
  path: string;
  resourceVersion: string;
  /** Server-side timeout; the server ends the watch cleanly after it. */
  timeoutSeconds: number;
  /** Client-side: abort when nothing (not even a bookmark) arrived for this long. */
  idleTimeoutMs: number;
  signal: AbortSignal;
  /** Called for each event, in order. A throw aborts the watch with that error. */
  onEvent(ev: WatchEvent): void;
  agent?: http.Agent;
}

/**
 * Resolves when the watch ends normally (server timeout, connection closed by the server, or
 * `signal` aborted); rejects on connection errors, on an HTTP error status and on ERROR events.
 */
export async function runWatch(req: WatchRequest): Promise<void> {
  const cluster = req.kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const opts: https.RequestOptions = {};
  await req.kubeConfig.applyToHTTPSOptions(opts);
  const url = new URL(req.path, cluster.server);
  url.searchParams.set('watch', '1');
  url.searchParams.set('allowWatchBookmarks', 'true');
  url.searchParams.set('timeoutSeconds', String(req.timeoutSeconds));
  if (req.resourceVersion) url.searchParams.set('resourceVersion', req.resourceVersion);
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
  if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  const isHttp = url.protocol === 'http:';

  if (req.signal.aborted) return;
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      req.signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => {
      r.destroy();
      finish();
    };
    const requestOptions: https.RequestOptions = {
      method: 'GET',
      headers,
      agent: req.agent,
      ...(isHttp
        ? {}
        : {
            ca: opts.ca,
            cert: opts.cert,
            key: opts.key,
            servername: opts.servername,
            rejectUnauthorized: opts.rejectUnauthorized,
          }),
    };
    const r = (isHttp ? http : https).request(url, requestOptions, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c.length < 4096 ? c : ''));
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
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          try {
            const ev = JSON.parse(line) as WatchEvent;
            if (ev.type === 'ERROR') {
              const st = ev.object as { code?: number; message?: string };
              throw new WatchError(st.code ?? 500, `watch ${req.path}: ${st.code}: ${st.message ?? ''}`);
            }
            req.onEvent(ev);
          } catch (e) {
            r.destroy();
            finish(e as Error);
            return;
          }
        }
      });
      res.on('end', () => finish());
      res.on('error', (e) => finish(req.signal.aborted ? undefined : e));
      res.on('close', () => finish());
    });
    r.setTimeout(req.idleTimeoutMs, () =>
      r.destroy(new Error(`watch ${req.path}: idle for ${req.idleTimeoutMs} ms`)),
    );
    r.on('error', (e) => finish(req.signal.aborted ? undefined : e));
    req.signal.addEventListener('abort', onAbort, { once: true });
    r.end();
  });
}
