// Which ImageJobRecords the retention deletes (config/record-retention.ts): every record older
// than the retention, then the oldest while there are more objects or bytes than its bounds.
// Decided on metadata alone (the finished-at and bytes annotations of record.ts), so the
// controller never reads the rows to prune them. PURE: the time is handed in.
import type { RecordRetention } from '../config/record-retention.js';

export interface RecordMeta {
  name: string;
  /** When its node finished (ms since the epoch); NaN when the annotation is missing or bad. */
  finishedAt: number;
  bytes: number;
}

/** The names to delete, oldest first. A record without a readable time counts as the oldest. */
export function recordsToPrune(records: readonly RecordMeta[], now: Date, r: RecordRetention): string[] {
  const at = (m: RecordMeta) => (Number.isFinite(m.finishedAt) ? m.finishedAt : -Infinity);
  const sorted = [...records].sort((a, b) => at(a) - at(b) || a.name.localeCompare(b.name));
  const cutoff = now.getTime() - r.retentionSeconds * 1000;
  let bytes = sorted.reduce((n, m) => n + m.bytes, 0);
  let count = sorted.length;
  const out: string[] = [];
  for (const m of sorted) {
    if (at(m) >= cutoff && count <= r.maxObjects && bytes <= r.maxBytes) break;
    out.push(m.name);
    count--;
    bytes -= m.bytes;
  }
  return out;
}
