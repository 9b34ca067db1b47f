// A gRPC server of the tests (fake runtimes, fault proxies) on a unix socket in a fresh
// temporary folder, as the CRI client reaches a runtime.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';

export interface BoundSocket {
  /** unix://<socketPath> */
  endpoint: string;
  socketPath: string;
  /** Shuts the server down and removes the folder. */
  close(): Promise<void>;
}

/** Binds `server` to `<tmp>/<prefix>XXXXXX/cri.sock`. */
export async function bindUnixSocket(server: grpc.Server, prefix: string): Promise<BoundSocket> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const socketPath = path.join(dir, 'cri.sock');
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return {
    endpoint: `unix://${socketPath}`,
    socketPath,
    async close() {
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
