// A conversion webhook for tests of a kind whose objects the API server cannot always serve:
// between v1 (the stored version) and v2 of a CRD, it converts every object except, towards v2,
// one labelled POISON, which it refuses. A LIST of v2 then fails cluster-wide and in the
// poisoned object's namespace only, and the API server's watch cache of v2 cannot start: what a
// tenant's object that a real webhook refuses does (test/watch/poisoned-kind.test.ts).
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '../../../src/core/observability/self-signed.js';

/** The label that makes an object unconvertible to v2. */
export const POISON = 'example.com/poison';

export interface ConversionWebhook {
  /** For the CRD's spec.conversion.webhook.clientConfig.url. */
  url: string;
  /** PEM; base64 it for clientConfig.caBundle. */
  ca: string;
  close(): Promise<void>;
}

/** A conversion webhook between v1 (stored) and v2 that refuses, towards v2, every object labelled POISON. */
export async function conversionWebhook(): Promise<ConversionWebhook> {
  const pair = selfSignedCertificate(['127.0.0.1']);
  type Obj = { apiVersion: string; metadata?: { labels?: Record<string, string> } };
  const server = https.createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as {
        request: { uid: string; desiredAPIVersion: string; objects: Obj[] };
      };
      const { uid, desiredAPIVersion, objects } = review.request;
      const bad = desiredAPIVersion.endsWith('/v2') && objects.some((o) => o.metadata?.labels?.[POISON]);
      const response = bad
        ? { uid, result: { status: 'Failure', message: 'this gadget cannot be converted to v2' } }
        : {
            uid,
            result: { status: 'Success' },
            convertedObjects: objects.map((o) => ({ ...o, apiVersion: desiredAPIVersion })),
          };
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/convert`,
    ca: pair.cert,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
