// Rate limiters for retrying failed work-queue keys, after client-go's workqueue package.
//
// Why two limiters combined: the per-item exponential backoff keeps one persistently failing
// namespace from hot-looping against the API server, while the overall token bucket caps the
// retry rate across all keys, so a cluster-wide outage (every namespace failing at once) does
// not turn into a retry storm. The effective delay is the larger of the two, as with client-go's
// DefaultControllerRateLimiter (MaxOf(ItemExponentialFailure(5ms, 1000s), Bucket(10 qps, 100))).
import { performance } from 'node:perf_hooks';

/** Decides how long a key must wait before it is retried. Delays are in milliseconds. */
export interface RateLimiter {
  /** Records one more failure of `key` and returns how long to wait before retrying it. */
  when(key: string): number;
  /** Forgets `key`'s failure history (call after it was processed successfully). */
  forget(key: string): void;
  /** How many times `key` has failed since it was last forgotten. */
  numRequeues(key: string): number;
}

/**
 * Per-key exponential backoff: `baseDelayMs * 2^failures`, capped at `maxDelayMs`.
 * Mirrors client-go's ItemExponentialFailureRateLimiter.
 */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    readonly baseDelayMs = 5,
    readonly maxDelayMs = 1_000_000,
  ) {
    if (!(baseDelayMs > 0) || !(maxDelayMs >= baseDelayMs)) {
      throw new Error(`invalid backoff: base ${baseDelayMs} ms, max ${maxDelayMs} ms`);
    }
  }

  when(key: string): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    // 2^exp overflows to Infinity for large exp; Math.min caps it either way.
    return Math.min(this.baseDelayMs * 2 ** exp, this.maxDelayMs);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * An overall token bucket (`qps` refill, `burst` capacity) shared by all keys. Like Go's
 * rate.Limiter.Reserve, a request always succeeds but may leave the bucket in debt; the
 * returned delay is how long until that debt is repaid. It has no per-key state.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps = 10,
    readonly burst = 100,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error(`invalid bucket: ${qps} qps, burst ${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  when(_key: string): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/** Combines limiters: the delay is the longest of theirs; requeues is the highest count. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new Error('MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }

  when(key: string): number {
    // Every limiter must see the failure (each keeps its own state), so no short-circuit.
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    return Math.max(...this.limiters.map((l) => l.numRequeues(key)));
  }
}

export interface DefaultRateLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  qps?: number;
  burst?: number;
}

/** client-go's DefaultControllerRateLimiter: 5 ms .. 1000 s per key, 10 qps / 100 burst overall. */
export function defaultControllerRateLimiter(opts: DefaultRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialFailureRateLimiter(opts.baseDelayMs ?? 5, opts.maxDelayMs ?? 1_000_000),
    new BucketRateLimiter(opts.qps ?? 10, opts.burst ?? 100),
  );
}
