// Bounds on the connections the daemon's HTTP servers hold, so that a client opening connections
// and leaving them idle cannot grow the daemon's memory without end (12,444 idle connections once
// took it from 122 to 322 MB; a Pod reopening them would pass the 512Mi limit).
//
// Node bounds none of this by default: a TLS handshake may take 120 s, a connection that never
// sends a byte is kept forever (headersTimeout only starts with a request's first byte), and there
// is no cap on connections. So:
// - at most `maxConnections` at once, and `maxPerAddress` from one client address, so one flooding
//   Pod cannot take the connections another (Prometheus, the kubelet) needs; a connection past
//   its address's share is closed at once, before any TLS or HTTP work. At the overall cap, a
//   newcomer whose address holds fewer connections than the busiest address takes the place of
//   that address's oldest connection (which is closed): several flooding Pods that fill the cap
//   together cannot lock out the kubelet's probes or Prometheus; only one that holds as many as
//   the busiest is refused;
// - the TLS handshake has `handshakeTimeoutMs` (tls.Server's handshakeTimeout);
// - the first request must start within `firstRequestMs` of the connection (of the handshake's
//   end over TLS); after a response, an idle connection is closed after `keepAliveMs`.
import type http from 'node:http';
import type net from 'node:net';
import type { Logger } from './logger.js';

export interface ConnectionLimits {
  /** Connections held at once; more are closed on arrival. */
  maxConnections: number;
  /** Connections held at once from one client address. */
  maxPerAddress: number;
  /** Deadline of a TLS handshake (HTTPS only). */
  handshakeTimeoutMs: number;
  /** A connection that has not started a request by then is closed. */
  firstRequestMs: number;
  /** An idle kept-alive connection is closed after this long. */
  keepAliveMs: number;
}

/** The bounds of every operational server (docs/daemon.md "Secure metrics" states them). */
export const CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  maxConnections: 256,
  maxPerAddress: 32,
  handshakeTimeoutMs: 5_000,
  firstRequestMs: 10_000,
  keepAliveMs: 5_000,
});

export interface ConnectionGuard {
  /** Connections held now. */
  readonly open: number;
  /** Connections closed because a cap was reached (on arrival, or evicted by a lighter address), since start. */
  readonly refused: number;
  /** Connections closed because no request came in time, since start. */
  readonly idleClosed: number;
}

const LOG_EVERY_MS = 60_000;

/**
 * Applies `limits` to `server` (http or https; for https, `handshakeTimeoutMs` must also be given
 * to createServer). `secure` says whether requests come over TLS, so the first-request deadline
 * starts when the handshake is done.
 */
export function guardConnections(
  server: http.Server,
  limits: ConnectionLimits,
  secure: boolean,
  log?: Logger,
): ConnectionGuard {
  let open = 0;
  let refused = 0;
  let idleClosed = 0;
  let lastLog = 0;
  // Each address's open connections, oldest first (a Set keeps insertion order).
  const perAddress = new Map<string, Set<net.Socket>>();
  const waiting = new WeakMap<net.Socket, NodeJS.Timeout>();

  /** Forgets `socket` once, when it closes or is evicted (whichever comes first). */
  const release = (addr: string, socket: net.Socket) => {
    const mine = perAddress.get(addr);
    if (!mine?.delete(socket)) return;
    open--;
    if (mine.size === 0) perAddress.delete(addr);
  };

  /** At the overall cap: the oldest connection of the busiest address, if it holds more than `than`. */
  const evictable = (than: number): [string, net.Socket] | undefined => {
    let busiest: [string, Set<net.Socket>] | undefined;
    for (const e of perAddress) if (!busiest || e[1].size > busiest[1].size) busiest = e;
    if (!busiest || busiest[1].size <= than) return undefined;
    const oldest = busiest[1].values().next().value as net.Socket;
    return [busiest[0], oldest];
  };

  server.keepAliveTimeout = limits.keepAliveMs;

  const awaitRequest = (socket: net.Socket) => {
    const timer = setTimeout(() => {
      idleClosed++;
      socket.destroy();
    }, limits.firstRequestMs);
    timer.unref();
    waiting.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  };

  server.on('connection', (socket: net.Socket) => {
    const addr = socket.remoteAddress ?? '';
    const mine = perAddress.get(addr)?.size ?? 0;
    const evict = open >= limits.maxConnections ? evictable(mine + 1) : undefined;
    if (evict) {
      refused++;
      release(evict[0], evict[1]);
      evict[1].destroy();
    }
    if (open >= limits.maxConnections || mine >= limits.maxPerAddress) {
      refused++;
      socket.destroy();
      const now = Date.now();
      if (log && now - lastLog >= LOG_EVERY_MS) {
        lastLog = now;
        log.warn('refusing connections over the cap', {
          address: addr,
          open,
          fromAddress: mine,
          maxConnections: limits.maxConnections,
          maxPerAddress: limits.maxPerAddress,
          refusedSinceStart: refused,
        });
      }
      return;
    }
    open++;
    let set = perAddress.get(addr);
    if (!set) perAddress.set(addr, (set = new Set()));
    set.add(socket);
    socket.once('close', () => release(addr, socket));
    if (!secure) awaitRequest(socket);
  });
  if (secure) server.on('secureConnection', (socket: net.Socket) => awaitRequest(socket));
  server.on('request', (req: http.IncomingMessage) => {
    const timer = waiting.get(req.socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    waiting.delete(req.socket);
  });

  return {
    get open() {
      return open;
    },
    get refused() {
      return refused;
    },
    get idleClosed() {
      return idleClosed;
    },
  };
}
