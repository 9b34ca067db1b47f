// Bounded concurrency for batches of API calls: at most `n` calls in flight, so a large batch
// neither runs one request at a time nor floods the API server (and its priority and fairness).
// Also the one sleep, abortable, and the fan-out of one signal to many listeners.
import { setMaxListeners } from 'node:events';

export async function forEachConcurrent<T>(
  items: readonly T[],
  n: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** 0, 1, …, count-1: for `forEachConcurrent` over indices. */
export const range = (count: number): number[] => Array.from({ length: count }, (_, i) => i);

/** Waits `ms`; with `signal`, resolves early (never rejects) when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `fn` with a child of `signal` that many parties may listen on: one listener on `signal`
 * aborts the child, and it is removed when `fn` settles. A cache hands one signal to each of its
 * informers (one per kind, per namespace with --namespaces), and each adds its own listeners, so
 * their number grows with the informers, not with time: Node's leak warning (10 listeners) would
 * be wrong on the child, and the caller's signal keeps its own limit.
 */
export async function withFanOut<T>(signal: AbortSignal, fn: (child: AbortSignal) => Promise<T>): Promise<T> {
  const child = new AbortController();
  setMaxListeners(0, child.signal);
  const abort = () => child.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await fn(child.signal);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
