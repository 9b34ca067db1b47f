// The bound of keep-newest's N (`--keep-newest`, ImageList spec.keepNewest), written once for the
// three that check it: `inv erase`, the ImageList controller and the worker (noderemove/remove/
// keep-newest.ts). PURE.

/** The largest N accepted: past it, keep-newest would keep everything a node holds anyway. */
export const MAX_KEEP_NEWEST = 1000;

/** Why N is refused (the flag or field named by `name`), or undefined. */
export function keepNewestProblem(n: number, name: string): string | undefined {
  if (!Number.isSafeInteger(n)) return `${name} must be a whole number from 1 to ${MAX_KEEP_NEWEST}`;
  if (n < 1) return `${name} must be at least 1 (0 would keep no version: use a plain prune)`;
  if (n > MAX_KEEP_NEWEST) return `${name} must be at most ${MAX_KEEP_NEWEST}`;
  return undefined;
}

/** `--keep-newest` as written: a whole number, nothing else (`2.5`, `2x`, `1e3` are refused). */
export function parseKeepNewest(text: string, name: string): number {
  const t = text.trim();
  const n = /^-?[0-9]+$/.test(t) ? Number(t) : NaN;
  const problem = keepNewestProblem(n, name);
  if (problem) throw new Error(`${problem}, got ${JSON.stringify(text)}`);
  return n;
}
