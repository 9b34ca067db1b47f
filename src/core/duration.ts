// One duration syntax for every flag and setting: a number with an explicit unit, Go style
// ("500ms", "30s", "10m", "1h30m", "1.5s"), plus days ("7d", 24 hours each, for ages like an
// image's minimum unused age). A bare number is refused, because tools disagree on
// what it means (seconds for some, milliseconds for others); "0" alone is allowed, since zero
// is zero in every unit.
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export class DurationError extends Error {}

/** Milliseconds; throws a DurationError naming `what`, the value and the rule. */
export function parseDurationMs(text: string, what: string): number {
  const v = text.trim();
  if (v === '0') return 0;
  if (/^\d+(\.\d+)?$/.test(v)) {
    throw new DurationError(
      `${what}: ${JSON.stringify(text)} has no unit: write e.g. ${v}s or ${v}ms (units: ms, s, m, h, d)`,
    );
  }
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let end = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v))) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    end = re.lastIndex;
  }
  if (!v || end !== v.length) {
    throw new DurationError(
      `${what}: must be a duration like 500ms, 30s, 10m or 1h30m, got ${JSON.stringify(text)}`,
    );
  }
  return Math.round(total);
}

/**
 * A duration as people read an age: its largest unit, whole ("9d", "3h", "12m", "40s"), with
 * the next unit when the first is small ("1d6h", "2h30m"); "0s" under a second.
 */
export function formatDurationMs(ms: number): string {
  const parts: [string, number][] = [
    ['d', UNITS.d!],
    ['h', UNITS.h!],
    ['m', UNITS.m!],
    ['s', UNITS.s!],
  ];
  const v = Math.max(0, Math.floor(ms));
  for (const [i, [unit, size]] of parts.entries()) {
    const n = Math.floor(v / size);
    if (n === 0) continue;
    const next = parts[i + 1];
    const rest = next ? Math.floor((v - n * size) / next[1]) : 0;
    return n < 3 && next && rest > 0 ? `${n}${unit}${rest}${next[0]}` : `${n}${unit}`;
  }
  return '0s';
}
