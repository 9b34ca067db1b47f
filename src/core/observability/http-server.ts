// A minimal node:http server for the daemon's operational endpoints: /metrics, /healthz and
// /readyz. No framework: three GET routes do not justify a dependency in a restricted image.
//
// Why metrics and probes can live on separate servers: the shipped Deployment binds metrics to
// 127.0.0.1 (reachable only through a sidecar or port-forward), while the kubelet probes need an
// address it can reach, so each server gets its own bind address.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { noopLogger, type Logger } from './logger.js';
import {
  CONNECTION_LIMITS,
  guardConnections,
  type ConnectionGuard,
  type ConnectionLimits,
} from './connection-guard.js';

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export interface BindAddress {
  /** Empty means every interface (Go's `:8080` convention). */
  host: string;
  /** 0 asks the OS for a free port. */
  port: number;
}

export interface HttpServerOptions {
  /** `host:port`, `:port` (all interfaces) or `[v6addr]:port`; port 0 picks a free port. */
  bindAddress: string;
  /** Exact paths (query strings ignored). Only GET and HEAD are served. */
  routes: Record<string, RouteHandler>;
  logger?: Logger;
  /** How long close() lets in-flight requests finish before cutting connections. Default 1000. */
  closeGraceMs?: number;
  /** Serve HTTPS with this key and certificate (PEM); setTls() replaces them later. */
  tls?: TlsPair;
  /** Bounds on connections and their handshake and idle time (default CONNECTION_LIMITS). */
  limits?: Partial<ConnectionLimits>;
}

export interface TlsPair {
  key: string;
  cert: string;
}

export interface RunningHttpServer {
  /** The bound address, with the real port when 0 was asked for. */
  readonly address: BindAddress;
  /** `http(s)://host:port` for clients (loopback when bound to every interface). */
  readonly url: string;
  /** New key and certificate for new connections (rotation); only for a server started with tls. */
  setTls(pair: TlsPair): void;
  /** Connections held and refused (connection-guard.ts). */
  readonly connections: ConnectionGuard;
  close(): Promise<void>;
}

/**
 * controller-runtime's convention: a bind address of "0" disables the server. Callers check
 * this before parseBindAddress, which rejects "0" as it has no port.
 */
export function bindAddressDisabled(value: string): boolean {
  return value.trim() === '0';
}

const hostnameRe = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const ipv6Re = /^[0-9A-Fa-f:.]+$/;

/** Parses `host:port`, `:port` or `[v6]:port`, with errors that name the offending value. */
export function parseBindAddress(value: string): BindAddress {
  const fail = (why: string): never => {
    throw new Error(`invalid bind address "${value}": ${why} (expected host:port, :port or [ipv6]:port)`);
  };
  let host: string;
  let portText: string;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) fail('missing "]"');
    host = value.slice(1, end);
    if (!ipv6Re.test(host) || !host.includes(':')) fail(`"${host}" is not an IPv6 address`);
    if (value[end + 1] !== ':') fail('missing port');
    portText = value.slice(end + 2);
  } else {
    const colon = value.lastIndexOf(':');
    if (colon < 0) fail('missing port');
    host = value.slice(0, colon);
    portText = value.slice(colon + 1);
    if (host.includes(':')) fail('IPv6 addresses need brackets, e.g. [::1]:8080');
    if (host !== '' && !hostnameRe.test(host)) fail(`"${host}" is not a valid host`);
  }
  if (!/^\d{1,5}$/.test(portText))
    fail(portText === '' ? 'missing port' : `"${portText}" is not a port number`);
  const port = Number(portText);
  if (port > 65535) fail(`port ${port} is out of range 0-65535`);
  return { host, port };
}

/** Starts serving `routes`; rejects (naming the bind address) if the address cannot be bound. */
export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const bind = parseBindAddress(opts.bindAddress);
  const log = opts.logger ?? noopLogger;
  const routes = new Map(Object.entries(opts.routes));

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const handler = routes.get(path);
    if (!handler) {
      sendText(res, 404, 'not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      sendText(res, 405, 'method not allowed\n');
      return;
    }
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((err: unknown) => {
        log.error('http handler failed', { path, err });
        if (!res.headersSent) sendText(res, 500, 'internal error\n');
        else res.destroy();
      });
  };
  const limits: ConnectionLimits = { ...CONNECTION_LIMITS, ...opts.limits };
  // Probes and scrapes are tiny; don't let a slow client hold a socket for Node's 5-minute
  // default. Partial headers are checked every second, not Node's 30 s.
  const timeouts = { requestTimeout: 30_000, headersTimeout: 10_000, connectionsCheckingInterval: 1000 };
  const server = opts.tls
    ? https.createServer(
        {
          key: opts.tls.key,
          cert: opts.tls.cert,
          minVersion: 'TLSv1.2',
          handshakeTimeout: limits.handshakeTimeoutMs,
          ...timeouts,
        },
        onRequest,
      )
    : http.createServer(timeouts, onRequest);
  const connections = guardConnections(server, limits, !!opts.tls, log);

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`cannot listen on bind address "${opts.bindAddress}": ${err.code ?? err.message}`));
    };
    server.once('error', onError);
    server.listen({ host: bind.host || undefined, port: bind.port }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => log.error('http server error', { bindAddress: opts.bindAddress, err }));

  const info = server.address() as AddressInfo;
  const address: BindAddress = { host: bind.host, port: info.port };
  const clientHost = bind.host === '' ? '127.0.0.1' : bind.host.includes(':') ? `[${bind.host}]` : bind.host;
  let closing: Promise<void> | undefined;

  return {
    address,
    url: `${opts.tls ? 'https' : 'http'}://${clientHost}:${info.port}`,
    connections,
    setTls(pair) {
      if (!(server instanceof https.Server)) throw new Error('setTls on a plain HTTP server');
      server.setSecureContext({ key: pair.key, cert: pair.cert, minVersion: 'TLSv1.2' });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets (e.g. a Prometheus scraper's) would otherwise hold close() open.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), opts.closeGraceMs ?? 1000).unref();
      });
      return closing;
    },
  };
}

function sendText(res: http.ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** Serves the registry in the Prometheus text format. */
export function metricsHandler(registry: Registry): RouteHandler {
  return async (_req, res) => {
    const body = await registry.metrics();
    res.statusCode = 200;
    res.setHeader('Content-Type', registry.contentType);
    res.end(body);
  };
}

/** A named health check: true (or a resolved true) means healthy; false, a string or a throw means not. */
/** true: healthy; false or a string (the reason, shown by /readyz): failing. */
export type HealthCheck = () => boolean | string | Promise<boolean | string>;

/**
 * A /healthz or /readyz handler in the Kubernetes style: 200 `ok` when every check passes,
 * else 503 listing the failing checks (`[-]name failed`); `?verbose` lists all of them. With no
 * checks it always answers ok, which suits /healthz (the process is up and serving).
 */
export function healthHandler(checks: Record<string, HealthCheck> = {}): RouteHandler {
  return async (req, res) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          const r = await check();
          return { name, ok: r === true, reason: typeof r === 'string' ? r : undefined };
        } catch (e) {
          return { name, ok: false, reason: e instanceof Error ? e.message : undefined };
        }
      }),
    );
    const healthy = results.every((r) => r.ok);
    const verbose = /[?&]verbose(=|&|$)/.test(req.url ?? '');
    const lines = results
      .filter((r) => verbose || !r.ok)
      .map(
        (r) => `[${r.ok ? '+' : '-'}]${r.name} ${r.ok ? 'ok' : `failed${r.reason ? `: ${r.reason}` : ''}`}`,
      );
    lines.push(healthy ? 'ok' : 'check failed');
    sendText(res, healthy ? 200 : 503, lines.join('\n') + '\n');
  };
}
