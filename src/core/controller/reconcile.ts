// The reconcile contract every controller of `inv` follows, after controller-runtime:
//
//   reconcile(key, signal) either returns { requeueAfter? } or throws.
//     - returns:            the key is forgotten by the rate limiter; with requeueAfter, it comes
//                           back after that long (addAfter), else only on the next event;
//     - throws an error:    retried with the rate limiter's exponential backoff (addRateLimited);
//     - throws TerminalError (bad configuration, an invalid request): nothing will change by
//                           retrying, so the key is not retried; the reconciler records why in
//                           the object's status before throwing. A new event (an edit that
//                           fixes it) brings the key back.
//   Transport errors, 5xx and 429 are never terminal, even wrapped in a TerminalError: they say
//   nothing about the request.
//   `signal` aborts when the controller stops (shutdown, lost leadership): a reconcile ends
//   early, and its writes are level-based, so the next leader picks up where it stopped.
import { isTransient } from '../kube/rest.js';
import { runWorkers, type WorkQueue } from './workqueue.js';

export interface ReconcileResult {
  /** Look at the key again after this many ms (even without an event). */
  requeueAfter?: number;
}

export interface Reconciler {
  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult>;
}

/** A failure retrying cannot fix: recorded in status, not retried. */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** True for a TerminalError that does not wrap a transient failure. */
export function isTerminal(err: unknown): boolean {
  if (!(err instanceof TerminalError)) return false;
  return !isTransient(err) && !isTransient(err.cause);
}

/** A result from a delay in ms (undefined: on events only). */
export const requeueAfter = (ms: number | undefined): ReconcileResult =>
  ms === undefined || !Number.isFinite(ms) ? {} : { requeueAfter: Math.min(MAX_REQUEUE_MS, Math.max(0, ms)) };

/**
 * The longest wait a timer can hold: setTimeout takes a delay over 2^31-1 ms (24.8 days) as 1 ms,
 * so a requester's pause of years would requeue the key at once, over and over.
 */
export const MAX_REQUEUE_MS = 2 ** 31 - 1;

export interface RunReconcilerOptions {
  workers?: number;
  /** Aborted when the controller stops; passed to every reconcile. */
  signal: AbortSignal;
  /** A failed reconcile that will be retried. */
  onError?(key: string, err: unknown, requeues: number): void;
  /** A terminal failure: not retried. */
  onTerminal?(key: string, err: unknown): void;
}

/**
 * Runs `workers` loops over `queue` under the contract above. Resolves when the queue is shut
 * down and every loop has finished its current key.
 */
export function runReconciler(
  queue: WorkQueue,
  reconciler: Reconciler,
  opts: RunReconcilerOptions,
): Promise<void> {
  return runWorkers(
    queue,
    opts.workers ?? 4,
    async (key) => {
      let result: ReconcileResult;
      try {
        result = await reconciler.reconcile(key, opts.signal);
      } catch (err) {
        if (!isTerminal(err)) throw err; // retried with backoff
        try {
          opts.onTerminal?.(key, err);
        } catch {
          // A failing hook must not kill the worker.
        }
        return; // forgotten: only a new event brings it back
      }
      if (result.requeueAfter !== undefined) queue.addAfter(key, result.requeueAfter);
    },
    { onError: opts.onError },
  );
}
