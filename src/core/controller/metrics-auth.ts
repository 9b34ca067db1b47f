// Who may read /metrics on the secure listener, decided as controller-runtime's
// WithAuthenticationAndAuthorization filter does: the bearer token is authenticated by the API
// server (TokenReview), and the user it names must be allowed `get` on the non-resource URL
// /metrics (SubjectAccessReview), which the ClusterRole inv-metrics-reader grants.
//
// The cost on a scrape: a token not seen in the last `ttlMs` (10 s by default) costs two POSTs
// to the API server, a TokenReview and a SubjectAccessReview; a token seen since costs none. So a
// Prometheus scraping every 30 s costs two small requests per scrape, and several scrapers sharing
// a token within 10 s cost two in all. Denials are cached the same way, so a flood with one bad
// token costs two requests per 10 s; distinct bad tokens cost one TokenReview each, at most
// `maxConcurrent` at a time (the others get 503 at once), and the cache holds at most
// `maxEntries` tokens, by SHA-256 (never the token itself).
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { KubeRest } from '../kube/rest.js';
import { noopLogger, type Logger } from '../observability/logger.js';

export type Decision = { status: 200; user: string } | { status: 401 | 403 | 503; reason: string };

export interface MetricsAuthOptions {
  rest: KubeRest;
  logger?: Logger;
  /** How long a decision is reused for the same token. Default 10 s. */
  ttlMs?: number;
  /** Tokens remembered at once (oldest dropped first). Default 1000. */
  maxEntries?: number;
  /** Reviews in flight at once; more get 503 without asking the API server. Default 16. */
  maxConcurrent?: number;
  /** Deadline of each review. Default 5 s. */
  timeoutMs?: number;
  now?: () => number;
}

interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export const METRICS_PATH = '/metrics';

/** The bearer token of a request, or undefined. */
export function bearerToken(req: http.IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || h.length > 16 * 1024) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

export class MetricsAuthorizer {
  private readonly cache = new Map<string, { decision: Decision; expires: number }>();
  private inFlight = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly maxConcurrent: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly log: Logger;
  /** Reviews sent to the API server (both kinds), for tests and the documented cost. */
  reviews = 0;

  constructor(private readonly opts: MetricsAuthOptions) {
    this.ttlMs = opts.ttlMs ?? 10_000;
    this.maxEntries = opts.maxEntries ?? 1000;
    this.maxConcurrent = opts.maxConcurrent ?? 16;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.now = opts.now ?? Date.now;
    this.log = opts.logger ?? noopLogger;
  }

  async decide(token: string | undefined): Promise<Decision> {
    if (!token) return { status: 401, reason: 'no bearer token' };
    const key = createHash('sha256').update(token).digest('hex');
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.now()) return hit.decision;
    if (this.inFlight >= this.maxConcurrent) return { status: 503, reason: 'too many reviews in flight' };
    this.inFlight++;
    let decision: Decision;
    try {
      decision = await this.review(token);
    } catch (err) {
      // The API server could not say: refuse, and ask again next time (nothing cached).
      this.log.warn('metrics authorization failed', { err });
      return { status: 503, reason: 'authorization unavailable' };
    } finally {
      this.inFlight--;
    }
    this.cache.delete(key);
    this.cache.set(key, { decision, expires: this.now() + this.ttlMs });
    while (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    return decision;
  }

  private async review(token: string): Promise<Decision> {
    const { rest } = this.opts;
    this.reviews++;
    const tr = await rest.request<{ status?: { authenticated?: boolean; user?: UserInfo; error?: string } }>(
      'POST',
      '/apis/authentication.k8s.io/v1/tokenreviews',
      {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
        timeoutMs: this.timeoutMs,
      },
    );
    const user = tr.status?.user;
    if (!tr.status?.authenticated || !user?.username)
      return { status: 401, reason: 'token not authenticated' };
    this.reviews++;
    const sar = await rest.request<{ status?: { allowed?: boolean; reason?: string } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path: METRICS_PATH, verb: 'get' },
          },
        },
        timeoutMs: this.timeoutMs,
      },
    );
    if (!sar.status?.allowed) return { status: 403, reason: `${user.username} may not get ${METRICS_PATH}` };
    return { status: 200, user: user.username };
  }
}

/** Wraps a route handler: it runs only for an authorized request; others get 401/403/503. */
export function authorized<H extends (req: http.IncomingMessage, res: http.ServerResponse) => unknown>(
  auth: MetricsAuthorizer,
  handler: H,
): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> {
  return async (req, res) => {
    const d = await auth.decide(bearerToken(req));
    if (d.status === 200) {
      await handler(req, res);
      return;
    }
    res.statusCode = d.status;
    if (d.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(
      `${d.status === 401 ? 'Unauthorized' : d.status === 403 ? 'Forbidden' : 'Unavailable'}: ${d.reason}\n`,
    );
  };
}
