// A rate-limited work queue with the semantics of client-go's workqueue (Type + delaying +
// rate-limiting queues), which the daemon's informers feed with `namespace/_` keys.
//
// Why these semantics: the controller is level-triggered. A key only says "look at this
// namespace again", so
//   - a key already waiting is not queued twice (a burst of 1,000 Pod events coalesces into
//     one entry);
//   - a key is never handed to two workers at once (two concurrent rebuilds of one namespace
//     would race on the same Images);
//   - a key added while it is being processed is marked dirty and queued once more after
//     done(), because the running rebuild may have listed the objects before that change;
//   - failures come back after a backoff instead of hot-looping;
//   - bulk passes (a first build, a resync) can be added at a low priority, so a change that
//     arrives meanwhile is served before them (./priority-fifo.ts, after controller-runtime's
//     priority queue); a key is still queued once, at the highest priority it was added with.
//
// One deliberate difference from client-go: after shutDown(), get() resolves undefined at once
// and keys still waiting are dropped, instead of being handed out until the queue is empty.
// Work is level-triggered and the next process (or the next leader) starts with a full list that
// re-enqueues every namespace, so finishing the backlog would only delay exit past the grace
// period. Keys already handed out (in flight) are still waited for by shutDownWithDrain().
import { performance } from 'node:perf_hooks';
import { PRIORITY_NORMAL, PriorityFifo } from './priority-fifo.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

/** Metric hooks, called synchronously; keep them cheap. */
export interface WorkQueueHooks {
  /** A key was accepted (not coalesced into one already waiting or in flight). */
  onAdd?(key: string): void;
  /** The number of keys waiting (not in flight) changed. */
  onDepth?(depth: number): void;
  /** A key was scheduled for a retry through addRateLimited(). */
  onRetry?(key: string): void;
  /** A key was handed to a worker after waiting `ms` since it was accepted (client-go's queue duration). */
  onQueued?(key: string, ms: number): void;
}

export interface WorkQueueOptions {
  rateLimiter?: RateLimiter;
  hooks?: WorkQueueHooks;
}

/** Counters since the queue was created, for tests and metrics. */
export interface WorkQueueStats {
  /** Keys accepted by add(). */
  adds: number;
  /** add() calls absorbed because the key was already waiting or already marked dirty. */
  coalesced: number;
  /** addRateLimited() calls. */
  retries: number;
}

export class WorkQueue {
  // Waiting keys: FIFO within a priority, higher priorities first.
  private readonly items = new PriorityFifo();
  // Keys that need processing: waiting in `items`, or added again while in flight.
  private readonly dirty = new Set<string>();
  // When each dirty key was accepted (for the queue-duration hook).
  private readonly since = new Map<string, number>();
  // Keys handed out by get() and not yet done().
  private readonly processing = new Set<string>();
  // For keys added again while in flight: the highest priority they were added with.
  private readonly requeueAt = new Map<string, number>();
  // addAfter() timers, at most one per key (the earliest ready time wins).
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout; priority: number }>();
  // Pending get() calls, served in order.
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly drainWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private readonly rateLimiter: RateLimiter;
  private readonly hooks: WorkQueueHooks;
  readonly stats: WorkQueueStats = { adds: 0, coalesced: 0, retries: 0 };

  constructor(opts: WorkQueueOptions = {}) {
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter();
    this.hooks = opts.hooks ?? {};
  }

  /**
   * Marks `key` as needing processing, at `priority` (higher first; PRIORITY_NORMAL by default).
   * A key already waiting is not queued again, but moves up if `priority` is higher. No-op after
   * shutdown.
   */
  add(key: string, priority = PRIORITY_NORMAL): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) {
      this.stats.coalesced++;
      if (this.processing.has(key)) {
        this.requeueAt.set(key, Math.max(priority, this.requeueAt.get(key) ?? priority));
      } else this.items.push(key, priority);
      return;
    }
    this.stats.adds++;
    this.hooks.onAdd?.(key);
    this.dirty.add(key);
    this.since.set(key, performance.now());
    // In flight: done() queues it again, so it is never processed twice at once.
    if (this.processing.has(key)) {
      this.requeueAt.set(key, priority);
      return;
    }
    this.push(key, priority);
  }

  /** Adds `key` once `delayMs` has passed; a key already waiting for an earlier time keeps it. */
  addAfter(key: string, delayMs: number, priority = PRIORITY_NORMAL): void {
    if (this.shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(key, priority);
      return;
    }
    // A timer holds at most 2^31-1 ms; a longer delay would fire at once (see reconcile.ts).
    delayMs = Math.min(delayMs, 2 ** 31 - 1);
    const at = Date.now() + delayMs;
    const existing = this.delayed.get(key);
    if (existing) {
      existing.priority = Math.max(existing.priority, priority);
      if (existing.at <= at) return;
      clearTimeout(existing.timer);
      priority = existing.priority;
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key, priority);
    }, delayMs);
    // The queue alone must not keep the process alive (informers and servers do that).
    timer.unref();
    this.delayed.set(key, { at, timer, priority });
  }

  /** Adds `key` after the rate limiter's backoff for it: use when processing failed. */
  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.stats.retries++;
    this.hooks.onRetry?.(key);
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Resets `key`'s backoff: use when processing succeeded. It does not remove a waiting key. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  /** How many times `key` failed since it was last forgotten. */
  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * Resolves with the next key to process, waiting if none is ready, or undefined once the
   * queue is shut down. The caller owns the key until it calls done(key).
   */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.pop();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends processing of `key`; if it was added meanwhile, it is queued again now. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const priority = this.requeueAt.get(key) ?? PRIORITY_NORMAL;
    this.requeueAt.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key, priority);
    if (this.processing.size === 0) {
      for (const resolve of this.drainWaiters.splice(0)) resolve();
    }
  }

  /** Keys waiting to be handed out (not counting keys in flight). */
  len(): number {
    return this.items.size;
  }

  /** Keys handed out by get() and not yet done(). */
  inFlight(): number {
    return this.processing.size;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops accepting keys, drops waiting and delayed keys, and releases every pending get(). */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    const dropped = this.len();
    this.items.clear();
    this.requeueAt.clear();
    this.dirty.clear();
    this.since.clear();
    if (dropped > 0) this.hooks.onDepth?.(0);
    for (const resolve of this.waiters.splice(0)) resolve(undefined);
  }

  /** shutDown(), then resolves once every key in flight has been marked done(). */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private push(key: string, priority: number): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      // Hand the key straight to a blocked get(); it never counts as waiting.
      this.dirty.delete(key);
      this.processing.add(key);
      this.handedOut(key);
      waiter(key);
      return;
    }
    this.items.push(key, priority);
    this.hooks.onDepth?.(this.len());
  }

  private pop(): string | undefined {
    const key = this.items.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    this.hooks.onDepth?.(this.len());
    this.handedOut(key);
    return key;
  }

  private handedOut(key: string): void {
    const t = this.since.get(key);
    this.since.delete(key);
    if (t !== undefined) this.hooks.onQueued?.(key, performance.now() - t);
  }
}

export interface RunWorkersOptions {
  /** Called for each failed reconcile, before the key is retried (or dropped). */
  onError?(key: string, err: unknown, requeues: number): void;
  /**
   * Drop a key after this many consecutive failures instead of retrying it. Default: retry
   * forever (as controller-runtime does); the backoff already caps the retry rate.
   */
  maxRetries?: number;
}

/**
 * Runs `workers` loops of get → reconcile → forget/done, retrying failures with
 * addRateLimited. Resolves when the queue is shut down and every loop has finished its
 * current key. Reconciles of different keys run concurrently; one key never runs twice at once.
 */
export async function runWorkers(
  queue: WorkQueue,
  workers: number,
  reconcile: (key: string) => Promise<void>,
  opts: RunWorkersOptions = {},
): Promise<void> {
  if (!(Number.isInteger(workers) && workers >= 1)) throw new Error(`invalid worker count: ${workers}`);
  const maxRetries = opts.maxRetries ?? Infinity;
  const loop = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await reconcile(key);
        queue.forget(key);
      } catch (err) {
        const requeues = queue.numRequeues(key);
        try {
          opts.onError?.(key, err, requeues);
        } catch {
          // A failing error hook must not kill the worker.
        }
        if (requeues < maxRetries) queue.addRateLimited(key);
        else queue.forget(key);
      } finally {
        // After addRateLimited, so a zero delay re-adds while in flight and done() re-queues it.
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
}
