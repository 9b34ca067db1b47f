// The images of CRI-O's store served to Trivy by a registry on the scanner container's loopback
// (Trivy's `--image-src remote` against 127.0.0.1, which it reads over plain HTTP): Trivy has no
// CRI-O source, and the registry the image came from is not the node's copy. Each image is
// served only while it is scanned: a manifest made here (its configuration from the store, one
// uncompressed tar layer per store layer, digest and size as the store recorded them), its
// configuration, and each layer rebuilt on the fly from the store (./tar-split.ts). Nothing is
// written anywhere; Trivy verifies each layer's SHA-256, so a damaged layer cannot pass as clean.
// Bytes served are bounded per image; a read error is kept to say why Trivy failed.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AddressInfo } from 'node:net';
import { layerTar } from './tar-split.js';
import type { StoreImage } from './crio-store.js';

const REPO = 'crio-store';
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

export interface Served {
  /** The reference Trivy scans. */
  ref: string;
  /** Why serving a layer failed, when it did (the scan's reason then). */
  error(): string | undefined;
  bytes(): number;
  close(): void;
}

interface Entry {
  image: StoreImage;
  manifest: Buffer;
  manifestDigest: string;
  maxBytes: number;
  bytes: number;
  error?: string;
}

export interface StoreRegistry {
  serve(image: StoreImage, maxBytes: number): Served;
  close(): Promise<void>;
}

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export async function startStoreRegistry(): Promise<StoreRegistry> {
  const entries = new Map<string, Entry>();
  const server = http.createServer((req, res) => {
    void handle(entries, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    serve(image, maxBytes) {
      const manifest = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: OCI_MANIFEST,
          config: {
            mediaType: 'application/vnd.oci.image.config.v1+json',
            digest: `sha256:${image.id}`,
            size: image.config.length,
          },
          layers: image.layers.map((l) => ({
            mediaType: 'application/vnd.oci.image.layer.v1.tar',
            digest: l.diffDigest,
            size: l.diffSize,
          })),
        }),
      );
      const e: Entry = { image, manifest, manifestDigest: sha256(manifest), maxBytes, bytes: 0 };
      entries.set(image.id, e);
      return {
        ref: `127.0.0.1:${port}/${REPO}/${image.id}@${e.manifestDigest}`,
        error: () => e.error,
        bytes: () => e.bytes,
        close: () => entries.delete(image.id),
      };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const PATH = new RegExp(`^/v2/${REPO}/([a-f0-9]{64})/(manifests|blobs)/([^/]+)$`);

async function handle(entries: Map<string, Entry>, req: http.IncomingMessage, res: http.ServerResponse) {
  const url = (req.url ?? '').split('?')[0]!;
  if (req.method !== 'GET' && req.method !== 'HEAD') return end(res, 405);
  if (url === '/v2/' || url === '/v2') return end(res, 200, '{}', 'application/json');
  const m = PATH.exec(url);
  const e = m ? entries.get(m[1]!) : undefined;
  if (!m || !e) return end(res, 404);
  const [, , kind, ref] = m;
  if (kind === 'manifests') {
    if (ref !== e.manifestDigest && ref !== 'scan') return end(res, 404);
    res.setHeader('Docker-Content-Digest', e.manifestDigest);
    return end(res, 200, e.manifest, OCI_MANIFEST);
  }
  if (ref === `sha256:${e.image.id}`) return end(res, 200, e.image.config, 'application/octet-stream');
  const layer = e.image.layers.find((l) => l.diffDigest === ref);
  if (!layer) return end(res, 404);
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(layer.diffSize),
    'Docker-Content-Digest': layer.diffDigest,
  });
  if (req.method === 'HEAD') return res.end();
  const counted = async function* () {
    for await (const b of layerTar(layer)) {
      e.bytes += b.length;
      if (e.bytes > e.maxBytes)
        throw new Error(`the image is larger than the per-image limit of ${e.maxBytes} bytes`);
      yield b;
    }
  };
  try {
    await pipeline(Readable.from(counted()), res);
  } catch (err) {
    // The response is cut short: Trivy fails on it; this is the reason the scan reports.
    e.error ??= (err as Error).message;
    res.destroy();
  }
}

function end(res: http.ServerResponse, status: number, body: string | Buffer = '', type?: string): void {
  if (type) res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', String(Buffer.byteLength(body)));
  res.writeHead(status);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
