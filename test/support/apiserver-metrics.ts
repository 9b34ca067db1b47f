// Requests as the API server counts them (apiserver_request_total on /metrics): what a client
// really sent, whichever code path sent it.
import type { KubeConfig } from '@kubernetes/client-node';
import https from 'node:https';

export interface RequestCount {
  verb: string;
  resource: string;
  count: number;
}

async function metricsText(kc: KubeConfig): Promise<string> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const url = new URL('/metrics', kc.getCurrentCluster()!.server);
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: opts.ca, cert: opts.cert, key: opts.key, headers: opts.headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** Total requests per verb and resource so far (summed over codes, scopes and subresources). */
export async function serverRequests(kc: KubeConfig): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await metricsText(kc)).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([a-z]*)"/.exec(line)?.[1] ?? '';
    const key = `${verb} ${resource}`;
    out.set(key, (out.get(key) ?? 0) + Number(line.split(' ').pop()));
  }
  return out;
}

/** What changed between two serverRequests() readings, e.g. { "LIST pods": 2 }. */
export function requestDelta(
  before: Map<string, number>,
  after: Map<string, number>,
): Record<string, number> {
  const d: Record<string, number> = {};
  for (const [k, v] of after) {
    const n = v - (before.get(k) ?? 0);
    if (n > 0) d[k] = n;
  }
  return d;
}
