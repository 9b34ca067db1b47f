// Loopback stand-ins for what scan mode's DB traffic goes through, so the bytes are counted for
// real: a minimal OCI registry serving one Trivy DB artifact (as ghcr.io/aquasecurity/trivy-db:2
// is laid out: one tar+gzip layer holding trivy.db and metadata.json; an air-gapped cluster's
// mirror is the same), and a TCP proxy counting the bytes between Trivy clients and a Trivy
// server. Loopback only, bounded, stopped by the returned close().
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { repoRoot } from '../paths.js';

const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export interface DbRegistry {
  /** What --db-repository takes: 127.0.0.1:<port>/trivy-db:2. */
  repository: string;
  /** Bytes of the DB layer (what one download moves). */
  layerBytes: number;
  /** Completed layer downloads, and all bytes the registry sent. */
  downloads(): number;
  bytesSent(): number;
  close(): Promise<void>;
}

/** Serves the DB in `cacheDir/db` as the artifact `trivy-db:2`. */
export async function startDbRegistry(cacheDir: string): Promise<DbRegistry> {
  const { tar } = (await import(path.join(repoRoot, 'scripts', 'oci-archive.mjs'))) as {
    tar(entries: { name: string; data: Buffer }[]): Buffer;
  };
  const db = path.join(cacheDir, 'db');
  const layer = zlib.gzipSync(
    tar(['trivy.db', 'metadata.json'].map((name) => ({ name, data: fs.readFileSync(path.join(db, name)) }))),
  );
  const config = Buffer.from('{}');
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.aquasec.trivy.config.v1+json',
        digest: sha(config),
        size: config.length,
      },
      layers: [
        {
          mediaType: 'application/vnd.aquasec.trivy.db.layer.v1.tar+gzip',
          digest: sha(layer),
          size: layer.length,
          annotations: { 'org.opencontainers.image.title': 'db.tar.gz' },
        },
      ],
    }),
  );
  const blobs = new Map([
    [sha(config), config],
    [sha(layer), layer],
  ]);
  let downloads = 0;
  let sent = 0;
  const server = http.createServer((req, res) => {
    const send = (code: number, body: Buffer, type = 'application/octet-stream', extra = {}) => {
      res.writeHead(code, { 'Content-Type': type, 'Content-Length': body.length, ...extra });
      if (req.method === 'HEAD') return res.end();
      sent += body.length;
      res.end(body, () => {
        if (body === layer) downloads++;
      });
    };
    const url = req.url ?? '';
    if (url === '/v2/' || url === '/v2') return send(200, Buffer.from('{}'), 'application/json');
    if (url === '/v2/trivy-db/manifests/2' || url === `/v2/trivy-db/manifests/${sha(manifest)}`) {
      return send(200, manifest, 'application/vnd.oci.image.manifest.v1+json', {
        'Docker-Content-Digest': sha(manifest),
      });
    }
    const m = /^\/v2\/trivy-db\/blobs\/(sha256:[0-9a-f]{64})$/.exec(url);
    const blob = m && blobs.get(m[1]!);
    if (blob) return send(200, blob, 'application/octet-stream', { 'Docker-Content-Digest': m![1] });
    send(404, Buffer.from('{"errors":[{"code":"NOT_FOUND"}]}'), 'application/json');
  });
  server.requestTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    repository: `127.0.0.1:${port}/trivy-db:2`,
    layerBytes: layer.length,
    downloads: () => downloads,
    bytesSent: () => sent,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface CountingProxy {
  url: string;
  /** Bytes from the clients to the target, and back. */
  up(): number;
  down(): number;
  reset(): void;
  close(): Promise<void>;
}

/** A loopback TCP proxy to 127.0.0.1:`targetPort` that counts the bytes both ways. */
export async function startCountingProxy(targetPort: number): Promise<CountingProxy> {
  let up = 0;
  let down = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const target = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, target]) {
      sockets.add(s);
      s.setTimeout(120_000, () => s.destroy());
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (b: Buffer) => (up += b.length));
    target.on('data', (b: Buffer) => (down += b.length));
    client.pipe(target);
    target.pipe(client);
    client.on('close', () => target.destroy());
    target.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    up: () => up,
    down: () => down,
    reset: () => {
      up = 0;
      down = 0;
    },
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
