// A TCP proxy in front of the real API server that drops connections, for tests of what the
// controllers do when the network misbehaves: every `resetEvery`-th new connection is reset at
// once, and every `cutEveryMs` all open connections (watches and requests in flight) are cut.
// TLS passes through untouched, so the client still talks to the real server.
import net from 'node:net';

export interface DroppingProxy {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Connections reset or cut so far. */
  dropped(): number;
  close(): Promise<void>;
}

export async function startDroppingProxy(
  target: URL,
  opts: { resetEvery?: number; cutEveryMs?: number } = {},
): Promise<DroppingProxy> {
  const open = new Set<net.Socket>();
  let accepted = 0;
  let dropped = 0;
  const server = net.createServer((client) => {
    accepted++;
    if (opts.resetEvery && accepted % opts.resetEvery === 0) {
      dropped++;
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 443), target.hostname);
    open.add(client);
    const done = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    client.pipe(upstream).pipe(client);
  });
  const cutter = opts.cutEveryMs
    ? setInterval(() => {
        for (const s of open) {
          dropped++;
          s.resetAndDestroy();
        }
      }, opts.cutEveryMs)
    : undefined;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    dropped: () => dropped,
    async close() {
      clearInterval(cutter);
      for (const s of open) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
