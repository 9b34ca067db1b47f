// A plain-HTTP proxy on loopback in front of the real API server that, while `gone` is on,
// answers every watch with 410 Gone (alternately as an HTTP status and, as a real API server
// does for an expired resourceVersion, as a 200 whose first event is an ERROR Status with code
// 410). Everything else (LISTs, discovery, writes) goes through to the real server with the
// client's own headers, over TLS with the kubeconfig's CA. It counts LISTs (GETs with a `limit`,
// which the informers' paginated LISTs always send) and WATCHes.
import type * as k8s from '@kubernetes/client-node';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';

export interface GoneProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  gone: boolean;
  readonly counts: { lists: number; watches: number };
  /** A kubeconfig for the proxy, with the original's credentials. */
  kubeConfig(): k8s.KubeConfig;
  close(): Promise<void>;
}

const GONE_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'too old resource version: 1 (2)',
  reason: 'Expired',
  code: 410,
};

export async function startGoneProxy(kc: k8s.KubeConfig): Promise<GoneProxy> {
  const target = new URL(kc.getCurrentCluster()!.server);
  const tls: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const agent = new https.Agent({ keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key });
  const sockets = new Set<net.Socket>();
  let watchesSeen = 0;
  const state = { gone: true, counts: { lists: 0, watches: 0 } };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const watch = url.searchParams.get('watch');
    const isWatch = watch === '1' || watch === 'true';
    if (isWatch) state.counts.watches++;
    else if (req.method === 'GET' && url.searchParams.has('limit')) state.counts.lists++;
    if (isWatch && state.gone) {
      req.resume();
      if (watchesSeen++ % 2 === 0) {
        res.writeHead(410, { 'content-type': 'application/json' });
        res.end(JSON.stringify(GONE_STATUS));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`${JSON.stringify({ type: 'ERROR', object: GONE_STATUS })}\n`);
      }
      return;
    }
    const up = https.request(
      {
        host: target.hostname,
        port: target.port || 443,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        agent,
      },
      (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        // A watch sends its headers at once and then nothing until an event: pass them on now.
        res.flushHeaders();
        ur.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    get gone() {
      return state.gone;
    },
    set gone(v: boolean) {
      state.gone = v;
    },
    counts: state.counts,
    kubeConfig: () => cloneWithServer(kc, url),
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

function cloneWithServer(kc: k8s.KubeConfig, server: string): k8s.KubeConfig {
  const Ctor = kc.constructor as new () => k8s.KubeConfig;
  const copy = new Ctor();
  copy.loadFromString(kc.exportConfig());
  const name = copy.getCurrentCluster()!.name;
  // client-node talks plain HTTP only with skipTLSVerify set (there is no TLS to verify).
  copy.clusters = copy.clusters.map((c) =>
    c.name === name ? { ...c, server, caData: undefined, caFile: undefined, skipTLSVerify: true } : c,
  );
  return copy;
}
