// The informer's retry delays, after client-go's ExponentialBackoffManager (the reflector uses
// 800 ms, a 30 s cap, factor 2, jitter 1.0 and a reset after 2 minutes): each failure doubles
// the base delay up to the cap, each wait is drawn from [base, 2 x base) so that many informers
// (and many replicas) do not retry in step, and a failure after a quiet spell starts over from
// the first delay. The informer also starts it over once a watch has held (informer.ts). Pure
// apart from the clock and Math.random. The abortable sleep that waits them out is core/concurrency.ts's.
export class Backoff {
  private base = 0;
  private last = 0;
  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly resetMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts over from the first delay at the next failure. */
  reset(): void {
    this.base = 0;
  }

  /** The next wait: the base doubles (capped) unless the last failure is older than resetMs. */
  next(): number {
    const t = this.now();
    this.base =
      this.base === 0 || t - this.last > this.resetMs ? this.initialMs : Math.min(this.maxMs, this.base * 2);
    this.last = t;
    return this.base * (1 + Math.random());
  }
}

export { sleep } from '../concurrency.js';
