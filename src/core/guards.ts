// Type guards for parsed input (JSON, YAML, API objects), and the words for what a value is,
// written once.

/** A plain mapping: an object that is neither null nor an array. */
export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a YAML or JSON value is, in words, for messages. */
export function describeValue(v: unknown): string {
  if (v instanceof Date) return `a date (${Number.isNaN(v.getTime()) ? 'invalid' : v.toISOString()})`;
  if (v instanceof Uint8Array) return `binary data (${v.length} bytes)`;
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
    return `a ${typeof v} (${String(v)})`;
  return `a ${typeof v}`;
}
