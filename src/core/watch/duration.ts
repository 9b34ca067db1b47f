// Go-style durations for flags: "90s", "1m30s", "500ms", "1h"; a bare number means seconds;
// "0" means zero (callers treat it as "off" where that makes sense).
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v))) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (!v || matched !== v.length) {
    throw new Error(
      `invalid duration "${value}": expected e.g. 500ms, 30s, 10m, 1h30m or a number of seconds`,
    );
  }
  return Math.round(total);
}
