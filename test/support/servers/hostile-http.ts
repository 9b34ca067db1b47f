// Local servers that misbehave, for the tests of KubeRest and the CLI against hostile
// endpoints, and a kubeconfig that points at one.
import * as k8s from '@kubernetes/client-node';
import http from 'node:http';
import type net from 'node:net';

export interface Hostile {
  url: string;
  close(): Promise<void>;
}

/** An HTTP server whose handler misbehaves; every socket is destroyed on close. */
export async function httpServer(handler: http.RequestListener): Promise<Hostile> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A kubeconfig for `server` (http or https; TLS not verified: the servers are local). */
export const kubeConfig = (server: string): k8s.KubeConfig => {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
};
