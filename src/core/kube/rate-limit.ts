// The client-side rate limit of writes, as client-go's QPS and burst set it (the Kubernetes
// components' --kube-api-qps and --kube-api-burst): a token bucket of `burst` tokens refilled at
// `qps` per second. Each write takes a token, or reserves the next one and waits for it, so
// waiting writers go in arrival order and the rate never exceeds qps after the burst (the
// reservation scheme of golang.org/x/time/rate, which client-go's limiter uses). As in client-go,
// the wait comes before the request's own deadline starts: a throttled write does not time out
// before it was sent.

export interface TokenBucketOptions {
  /** Tokens per second (> 0). */
  qps: number;
  /** Bucket size: writes that may go at once after a quiet period (>= 1). */
  burst: number;
  /** The clock in ms (tests inject one). */
  now?: () => number;
}

export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private tokens: number;
  private last: number;
  private readonly now: () => number;
  /** Writes that had to wait, and their total wait (for metrics and benchmarks). */
  waited = 0;
  waitedMs = 0;
  /** Observer of every take's wait in ms, 0 included (the daemon's rate-limiter histogram). */
  onTake?: (waitMs: number) => void;

  constructor(opts: TokenBucketOptions) {
    if (!(opts.qps > 0) || !Number.isFinite(opts.qps))
      throw new Error(`qps must be above 0, got ${opts.qps}`);
    if (!Number.isSafeInteger(opts.burst) || opts.burst < 1)
      throw new Error(`burst must be 1 or more, got ${opts.burst}`);
    this.qps = opts.qps;
    this.burst = opts.burst;
    this.now = opts.now ?? (() => performance.now());
    this.tokens = opts.burst;
    this.last = this.now();
  }

  /** Takes a token now, or reserves one: returns how long (ms) to wait before using it. */
  reserve(): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** Takes a token if one is there now, without waiting or going into debt. */
  tryTake(): boolean {
    if (this.reserve() <= 0) return true;
    this.cancel();
    return false;
  }

  /** Gives back a reserved token (its writer gave up waiting). */
  cancel(): void {
    this.tokens = Math.min(this.burst, this.tokens + 1);
  }

  /** Resolves when the caller may write; rejects with the signal's reason if it aborts first. */
  async take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const ms = this.reserve();
    this.onTake?.(Math.max(0, ms));
    if (ms <= 0) return;
    this.waited++;
    this.waitedMs += ms;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        this.cancel();
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** The defaults of `inv watch` (those of kube-scheduler: 50 and 100). */
export const DEFAULT_KUBE_API_QPS = 50;
export const DEFAULT_KUBE_API_BURST = 100;
