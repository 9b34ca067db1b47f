// Bounded concurrency for batches of API calls: at most `n` calls in flight, so a large batch
// neither runs one request at a time nor floods the API server (and its priority and fairness).
// Also the one sleep, abortable.
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
