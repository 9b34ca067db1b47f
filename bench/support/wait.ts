// Waiting in the benches: for a condition, never for a guessed time (a bench that sleeps and
// then reads a figure measures its own sleep).
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every `everyMs` until it holds; returns the time it took (ms), throws after `timeoutMs`. */
export async function until(
  what: string,
  cond: () => Promise<boolean> | boolean,
  timeoutMs: number,
  everyMs = 200,
): Promise<number> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
  return Date.now() - start;
}
