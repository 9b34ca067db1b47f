// Who gets a token review now, for the secure metrics endpoint (metrics-auth.ts): bounded lanes,
// so that a flood of bad tokens can neither load the API server without end nor keep a new,
// legitimate scraper out. Pure: plain numbers in, a lane's release (or the refusal) out.
//
// Three lanes, each bounded in reviews at once:
// - `known`: a token authorized within the last hour (a scraper seen before), which no unknown
//   token can fill;
// - `new`: tokens from a client address with no failed review in the last `suspectMs`, so a new
//   scraper (Prometheus from its own Pod) is reviewed at once whatever the flood;
// - `suspect`: tokens from an address whose review failed (401/403) lately: the flood, which gets
//   only a share of the review budget, past which it is answered 429 without asking the API server.
// The new and suspect lanes share a token bucket (`reviewQps`, `reviewBurst`): the reviews' own
// budget, apart from the writes' (--kube-api-qps), so a flood never delays an Image write. The
// suspect lane also has a bucket of half that, so at least half the budget is always left to new
// clients. One address has at most `maxPerClient` reviews in flight in those two lanes.
import { TokenBucket } from '../kube/rate-limit.js';

export type Lane = 'known' | 'new' | 'suspect';

export interface ReviewLaneLimits {
  /** Reviews at once of tokens authorized within `knownGoodMs`. */
  reservedConcurrent: number;
  /** Reviews at once of tokens from clients with no recent failure. */
  maxConcurrent: number;
  /** Reviews at once of tokens from clients with a recent failure. */
  suspectConcurrent: number;
  /** Reviews at once from one client address (new and suspect lanes). */
  maxPerClient: number;
  /** The reviews' own budget: reviews per second, new and suspect lanes together. */
  reviewQps: number;
  /** Reviews that may go at once after a quiet period. */
  reviewBurst: number;
  /** How long a failed review marks its client address as suspect. */
  suspectMs: number;
}

export const REVIEW_LANE_LIMITS: Readonly<ReviewLaneLimits> = Object.freeze({
  reservedConcurrent: 4,
  maxConcurrent: 16,
  suspectConcurrent: 8,
  maxPerClient: 4,
  reviewQps: 20,
  reviewBurst: 40,
  suspectMs: 60_000,
});

export type Refusal = { status: 429 | 503; reason: string };

/** A granted review: call done() with the review's HTTP-like status when it is over. */
export interface Grant {
  lane: Lane;
  done(status: number): void;
}

export class ReviewLanes {
  private readonly inFlight: Record<Lane, number> = { known: 0, new: 0, suspect: 0 };
  private readonly perClient = new Map<string, number>();
  /** When each client address last failed a review (bounded to `maxClients`, oldest dropped). */
  private readonly failedAt = new Map<string, number>();
  private readonly budget: TokenBucket;
  private readonly suspectBudget: TokenBucket;
  /** Refusals since start, by reason (for logs and tests). */
  readonly refused = { perClient: 0, suspect: 0, busy: 0 };

  constructor(
    readonly limits: ReviewLaneLimits,
    private readonly now: () => number,
    private readonly maxClients = 10_000,
  ) {
    this.budget = new TokenBucket({ qps: limits.reviewQps, burst: limits.reviewBurst, now });
    this.suspectBudget = new TokenBucket({
      qps: limits.reviewQps / 2,
      burst: Math.max(1, Math.floor(limits.reviewBurst / 2)),
      now,
    });
  }

  /** A review slot for a token from `client` (`known`: authorized lately), or the refusal. */
  admit(client: string, known: boolean): Grant | Refusal {
    const l = this.limits;
    if (known && this.inFlight.known < l.reservedConcurrent) return this.grant('known', client);
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= l.maxPerClient) {
      this.refused.perClient++;
      return { status: 429, reason: 'too many reviews from this client in flight' };
    }
    if (this.suspect(client)) {
      if (this.inFlight.suspect >= l.suspectConcurrent || !this.take(this.suspectBudget)) {
        this.refused.suspect++;
        return { status: 429, reason: 'review budget for clients with failed reviews spent' };
      }
      return this.grant('suspect', client);
    }
    if (this.inFlight.new >= l.maxConcurrent || !this.budget.tryTake()) {
      this.refused.busy++;
      return { status: 503, reason: 'too many reviews in flight' };
    }
    return this.grant('new', client);
  }

  /** Whether `client` failed a review within `suspectMs`. */
  suspect(client: string): boolean {
    const at = this.failedAt.get(client);
    if (at === undefined) return false;
    if (this.now() - at < this.limits.suspectMs) return true;
    this.failedAt.delete(client);
    return false;
  }

  /** Takes from the suspect budget and the shared one, or from neither. */
  private take(own: TokenBucket): boolean {
    if (!own.tryTake()) return false;
    if (this.budget.tryTake()) return true;
    own.cancel();
    return false;
  }

  private grant(lane: Lane, client: string): Grant {
    this.inFlight[lane]++;
    const counted = lane !== 'known';
    if (counted) this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    let over = false;
    return {
      lane,
      done: (status) => {
        if (over) return;
        over = true;
        this.inFlight[lane]--;
        if (counted) {
          const left = (this.perClient.get(client) ?? 1) - 1;
          if (left > 0) this.perClient.set(client, left);
          else this.perClient.delete(client);
        }
        if (status === 401 || status === 403) {
          this.failedAt.delete(client);
          this.failedAt.set(client, this.now());
          while (this.failedAt.size > this.maxClients)
            this.failedAt.delete(this.failedAt.keys().next().value!);
        }
      },
    };
  }
}
