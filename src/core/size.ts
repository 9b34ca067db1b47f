// Byte sizes as people write them on a command line: "256Mi", "50MB", "1Gi", or plain bytes.
const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  ki: 1024,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
};

/** Parses a size; returns an error message naming the rule when `s` is not one. */
export function parseSize(s: string): { ok: true; bytes: number } | { ok: false; reason: string } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(s);
  const unit = m?.[2]?.toLowerCase() ?? '';
  if (!m || !(unit in UNITS)) {
    return {
      ok: false,
      reason: 'not a size: use a number with an optional unit (Ki, Mi, Gi, KB, MB, GB), e.g. 256Mi',
    };
  }
  const bytes = Math.floor(Number(m[1]) * UNITS[unit]!);
  if (bytes < 1) return { ok: false, reason: 'a size must be at least 1 byte' };
  return { ok: true, bytes };
}

/** A byte count for people: "512 B", "100 KiB", "256 MiB", "1.5 GiB". */
export function formatSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : Math.round(v * 10) / 10} ${units[i]}`;
}

/** Decimal bytes, as disk usage is usually quoted: "3.2 GB", "512 MB", "0 B". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v >= 100 ? Math.round(v) : Math.round(v * 10) / 10} ${units[i]}`;
}
