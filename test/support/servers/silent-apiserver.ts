// An API server that accepts every connection and request and never answers, as a hung
// kube-apiserver does: for what a command does while it waits (a spinner, ^C, --request-timeout).
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface SilentApiServer {
  /** A kubeconfig file whose current context is this server. */
  kubeconfig: string;
  /** How many requests have come in so far. */
  requests(): number;
  /** Drops every open connection, stops listening and removes the kubeconfig. */
  close(): Promise<void>;
}

export async function silentApiServer(): Promise<SilentApiServer> {
  const sockets = new Set<net.Socket>();
  let requests = 0;
  const server = http.createServer(() => void requests++);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-hung-'));
  const kubeconfig = path.join(dir, 'config');
  fs.writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'hung', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } },
      ],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'hung', context: { cluster: 'hung', user: 'u' } }],
      'current-context': 'hung',
    }),
  );
  return {
    kubeconfig,
    requests: () => requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
