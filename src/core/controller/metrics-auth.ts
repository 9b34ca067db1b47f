// Who may read /metrics on the secure listener, decided as controller-runtime's
// WithAuthenticationAndAuthorization filter does: the bearer token is authenticated by the API
// server (TokenReview), and the user it names must be allowed `get` on the non-resource URL
// /metrics (SubjectAccessReview), which the ClusterRole inv-metrics-reader grants.
//
// The cost on a scrape: a token not seen in the last `ttlMs` (10 s by default) costs two POSTs
// to the API server, a TokenReview and a SubjectAccessReview; a token seen since costs none. So a
// Prometheus scraping every 30 s costs two small requests per scrape, and several scrapers sharing
// a token within 10 s cost two in all. Denials are cached the same way, so a flood with one bad
// token costs two requests per 10 s. The cache holds at most `maxEntries` tokens, by SHA-256
// (never the token itself).
//
// A flood of bad tokens must not starve the scrapers, nor the daemon's writes: reviews go through
// bounded lanes with a budget of their own (review-lanes.ts), on an API client of their own (not
// the writes' rate limit, which a flood once used up: 20 Image writes took 14 s instead of 1.1 s).
// A token refused for the budget gets 429 (Retry-After) without asking the API server; a bad token
// that gets its review is answered 401.
import * as resources from '../kube/resources.js';
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { KubeRest } from '../kube/rest.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { REVIEW_LANE_LIMITS, ReviewLanes, type ReviewLaneLimits } from './review-lanes.js';

export type Decision = { status: 200; user: string } | { status: 401 | 403 | 429 | 503; reason: string };

export interface MetricsAuthOptions {
  /** The reviews' own client (KubeRest.detached()), never the writes' rate-limited one. */
  rest: KubeRest;
  logger?: Logger;
  /** How long a decision is reused for the same token. Default 10 s. */
  ttlMs?: number;
  /** Tokens remembered at once (oldest dropped first). Default 1000. */
  maxEntries?: number;
  /** Bounds of the review lanes and their budget (default REVIEW_LANE_LIMITS). */
  lanes?: Partial<ReviewLaneLimits>;
  /** How long an authorized token keeps its own lane. Default 1 h. */
  knownGoodMs?: number;
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
  /** When each token (by hash) was last authorized: its key to the reserved lane. */
  private readonly knownGood = new Map<string, number>();
  readonly lanes: ReviewLanes;
  private readonly ttlMs: number;
  private readonly knownGoodMs: number;
  private readonly maxEntries: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly log: Logger;
  /** Reviews sent to the API server (both kinds), for tests and the documented cost. */
  reviews = 0;

  constructor(private readonly opts: MetricsAuthOptions) {
    this.ttlMs = opts.ttlMs ?? 10_000;
    this.maxEntries = opts.maxEntries ?? 1000;
    this.knownGoodMs = opts.knownGoodMs ?? 3_600_000;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.now = opts.now ?? Date.now;
    this.lanes = new ReviewLanes({ ...REVIEW_LANE_LIMITS, ...opts.lanes }, this.now);
    this.log = opts.logger ?? noopLogger;
  }

  /** `client` is the caller's address: unknown tokens are bounded per client. */
  async decide(token: string | undefined, client = ''): Promise<Decision> {
    if (!token) return { status: 401, reason: 'no bearer token' };
    const key = createHash('sha256').update(token).digest('hex');
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.decision;
    const good = this.knownGood.get(key);
    const grant = this.lanes.admit(client, good !== undefined && now - good < this.knownGoodMs);
    if (!('done' in grant)) return grant;
    let decision: Decision;
    try {
      decision = await this.review(token);
    } catch (err) {
      // The API server could not say: refuse, and ask again next time (nothing cached).
      grant.done(503);
      this.log.warn('metrics authorization failed', { err });
      return { status: 503, reason: 'authorization unavailable' };
    }
    grant.done(decision.status);
    remember(this.cache, key, { decision, expires: this.now() + this.ttlMs }, this.maxEntries);
    if (decision.status === 200) remember(this.knownGood, key, this.now(), this.maxEntries);
    else this.knownGood.delete(key);
    return decision;
  }

  private async review(token: string): Promise<Decision> {
    const { rest } = this.opts;
    this.reviews++;
    const tr = await resources.create<{
      status?: { authenticated?: boolean; user?: UserInfo; error?: string };
    }>(
      rest,
      'TokenReview',
      undefined,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      { timeoutMs: this.timeoutMs },
    );
    const user = tr.status?.user;
    if (!tr.status?.authenticated || !user?.username)
      return { status: 401, reason: 'token not authenticated' };
    this.reviews++;
    const sar = await resources.create<{ status?: { allowed?: boolean; reason?: string } }>(
      rest,
      'SubjectAccessReview',
      undefined,
      {
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
      { timeoutMs: this.timeoutMs },
    );
    if (!sar.status?.allowed) return { status: 403, reason: `${user.username} may not get ${METRICS_PATH}` };
    return { status: 200, user: user.username };
  }
}

const STATUS_TEXT = { 401: 'Unauthorized', 403: 'Forbidden', 429: 'Too Many Requests', 503: 'Unavailable' };

/** Sets a key as the newest entry of a map kept to `max` entries (the oldest dropped first). */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

/** Wraps a route handler: it runs only for an authorized request; others get 401/403/503. */
export function authorized<H extends (req: http.IncomingMessage, res: http.ServerResponse) => unknown>(
  auth: MetricsAuthorizer,
  handler: H,
): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> {
  return async (req, res) => {
    const d = await auth.decide(bearerToken(req), req.socket.remoteAddress ?? '');
    if (d.status === 200) {
      await handler(req, res);
      return;
    }
    res.statusCode = d.status;
    if (d.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    if (d.status === 429 || d.status === 503) res.setHeader('Retry-After', '1');
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(`${STATUS_TEXT[d.status]}: ${d.reason}\n`);
  };
}
