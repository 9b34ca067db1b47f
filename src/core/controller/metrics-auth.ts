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
// A flood of distinct bad tokens must not starve the scrapers (it once failed 12 of 27 authorized
// scrapes with 503), so reviews go in two lanes, each bounded:
// - a token authorized within the last hour is reviewed again in a lane of its own
//   (`reservedConcurrent`), which no unknown token can fill;
// - other tokens share `maxConcurrent` reviews, at most `maxPerClient` of them from one client
//   address; past that a client gets 429 (Retry-After) without asking the API server, so one
//   flooding Pod cannot take the slots a new scraper elsewhere needs.
// A bad token that gets its review is answered 401.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { KubeRest } from '../kube/rest.js';
import { noopLogger, type Logger } from '../observability/logger.js';

export type Decision = { status: 200; user: string } | { status: 401 | 403 | 429 | 503; reason: string };

export interface MetricsAuthOptions {
  rest: KubeRest;
  logger?: Logger;
  /** How long a decision is reused for the same token. Default 10 s. */
  ttlMs?: number;
  /** Tokens remembered at once (oldest dropped first). Default 1000. */
  maxEntries?: number;
  /** Reviews of tokens not recently authorized in flight at once; more get 503. Default 16. */
  maxConcurrent?: number;
  /** Of those, reviews from one client address at once; more get 429. Default 4. */
  maxPerClient?: number;
  /** Reviews in flight at once of tokens authorized within `knownGoodMs`. Default 4. */
  reservedConcurrent?: number;
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
  private inFlight = 0;
  private reservedInFlight = 0;
  private readonly perClient = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxPerClient: number;
  private readonly reservedConcurrent: number;
  private readonly knownGoodMs: number;
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
    this.maxPerClient = opts.maxPerClient ?? 4;
    this.reservedConcurrent = opts.reservedConcurrent ?? 4;
    this.knownGoodMs = opts.knownGoodMs ?? 3_600_000;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.now = opts.now ?? Date.now;
    this.log = opts.logger ?? noopLogger;
  }

  /** `client` is the caller's address: unknown tokens are bounded per client. */
  async decide(token: string | undefined, client = ''): Promise<Decision> {
    if (!token) return { status: 401, reason: 'no bearer token' };
    const key = createHash('sha256').update(token).digest('hex');
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.decision;
    const lane = this.admit(key, client, now);
    if (typeof lane !== 'function') return lane;
    let decision: Decision;
    try {
      decision = await this.review(token);
    } catch (err) {
      // The API server could not say: refuse, and ask again next time (nothing cached).
      this.log.warn('metrics authorization failed', { err });
      return { status: 503, reason: 'authorization unavailable' };
    } finally {
      lane();
    }
    remember(this.cache, key, { decision, expires: this.now() + this.ttlMs }, this.maxEntries);
    if (decision.status === 200) remember(this.knownGood, key, this.now(), this.maxEntries);
    else this.knownGood.delete(key);
    return decision;
  }

  /** Takes a review slot (returning its release), or the answer when none may be taken. */
  private admit(key: string, client: string, now: number): (() => void) | Decision {
    const good = this.knownGood.get(key);
    if (
      good !== undefined &&
      now - good < this.knownGoodMs &&
      this.reservedInFlight < this.reservedConcurrent
    ) {
      this.reservedInFlight++;
      return () => void this.reservedInFlight--;
    }
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.maxPerClient)
      return { status: 429, reason: 'too many reviews from this client in flight' };
    if (this.inFlight >= this.maxConcurrent) return { status: 503, reason: 'too many reviews in flight' };
    this.inFlight++;
    this.perClient.set(client, mine + 1);
    return () => {
      this.inFlight--;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
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
