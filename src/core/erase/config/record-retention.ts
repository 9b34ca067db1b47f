// How long and how much of the removal record (ImageJobRecords) the controller keeps: the
// configuration's `record` key. The record outlives its ImageJob (delayOnSuccess deletes the job
// and its Pods; the record stays), so it is bounded three ways, oldest first out: by age, by
// object count and by bytes (what it takes in etcd). PURE.
import { isObj } from '../../guards.js';
import { parseDurationMs } from '../../duration.js';
import { parseSize } from '../../size.js';

export interface RecordRetention {
  /** Records older than this (by when their node finished) are deleted. */
  retentionSeconds: number;
  /** At most this many ImageJobRecord objects; past it the oldest go. */
  maxObjects: number;
  /** At most this many bytes of records (as stored); past it the oldest go. */
  maxBytes: number;
}

export const DEFAULT_RECORD_RETENTION: RecordRetention = {
  retentionSeconds: 30 * 86400,
  maxObjects: 5000,
  maxBytes: 256 * 1024 ** 2,
};

/** The `record` mapping made into a retention, or the problem (named by its key) as a string. */
export function parseRecordRetention(v: unknown): RecordRetention | string {
  const out = { ...DEFAULT_RECORD_RETENTION };
  if (v === undefined || v === null) return out;
  if (!isObj(v)) return 'record: must be a mapping (retention, maxObjects, maxBytes)';
  for (const k of Object.keys(v))
    if (!['retention', 'maxObjects', 'maxBytes'].includes(k))
      return `record.${k}: unknown key (known: retention, maxObjects, maxBytes)`;
  if (v.retention !== undefined) {
    if (typeof v.retention !== 'string')
      return `record.retention: must be a duration like 30d or 720h, got ${JSON.stringify(v.retention)}`;
    try {
      out.retentionSeconds = parseDurationMs(v.retention, 'record.retention') / 1000;
    } catch (e) {
      return (e as Error).message;
    }
    if (out.retentionSeconds <= 0) return 'record.retention: must be longer than 0s';
  }
  if (v.maxObjects !== undefined) {
    const n = v.maxObjects;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1_000_000)
      return `record.maxObjects: must be a whole number from 1 to 1000000, got ${JSON.stringify(n)}`;
    out.maxObjects = n;
  }
  if (v.maxBytes !== undefined) {
    const s = parseSize(String(v.maxBytes));
    if (!s.ok) return `record.maxBytes: ${s.reason}`;
    out.maxBytes = s.bytes;
  }
  return out;
}
