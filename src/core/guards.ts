// Type guards for parsed input (JSON, YAML, API objects), written once.

/** A plain mapping: an object that is neither null nor an array. */
export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
