// The inventory's protection for a `*` prune, as plain data: which normalized refs the
// cluster's workloads reference, and why ("referenced by Deployment in shop"). The controller
// builds it (from the daemon's cache or a fresh scan, see inventory-protection.ts), packs it
// into ConfigMap-sized chunks for the job, and each worker reads it back and matches every
// tag and repo digest of each image against it. Pure: no I/O.
import { normalizeRef } from '../refs/normalize.js';

/** One use of a ref: the namespace and the kinds that reference it there. */
export interface ProtectedUse {
  namespace: string;
  image: string;
  kinds: readonly string[];
}

/** Normalized ref → reason. */
export type ProtectedSet = Map<string, string>;

/** How many "Kind in namespace" pairs a reason names before "and N more". */
const REASON_PAIRS = 3;

/** Folds uses into one reason per ref; refs that do not parse are dropped (never written as Images). */
export function buildProtectedSet(uses: Iterable<ProtectedUse>): ProtectedSet {
  const pairs = new Map<string, Set<string>>();
  for (const u of uses) {
    const r = normalizeRef(u.image);
    if (!r.ok) continue;
    let s = pairs.get(r.ref.normalized);
    if (!s) pairs.set(r.ref.normalized, (s = new Set()));
    for (const k of u.kinds.length ? u.kinds : ['Image']) s.add(`${k} in ${u.namespace}`);
  }
  const out: ProtectedSet = new Map();
  for (const ref of [...pairs.keys()].sort()) {
    const all = [...pairs.get(ref)!].sort();
    const shown = all.slice(0, REASON_PAIRS).join(', ');
    const more = all.length > REASON_PAIRS ? ` and ${all.length - REASON_PAIRS} more` : '';
    out.set(ref, `referenced by ${shown}${more}`);
  }
  return out;
}

/** A ConfigMap holds at most 1 MiB; a chunk stays well below, leaving room for metadata. */
export const CHUNK_BYTES = 900 * 1024;
export const PROTECTED_FORMAT = 1;
/** A chunk with no refs: protection on, nothing referenced (or a spare ConfigMap). */
export const EMPTY_CHUNK = JSON.stringify({ v: PROTECTED_FORMAT, refs: [] });

/** The chunks' JSON: `{"v":1,"refs":[[ref, reason], ...]}`, each at most `maxBytes`. */
export function packProtectedSet(set: ProtectedSet, maxBytes = CHUNK_BYTES): string[] {
  const chunks: string[] = [];
  let cur: [string, string][] = [];
  let size = 0;
  const overhead = JSON.stringify({ v: PROTECTED_FORMAT, refs: [] }).length;
  for (const entry of set) {
    const len = Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (cur.length && overhead + size + len > maxBytes) {
      chunks.push(JSON.stringify({ v: PROTECTED_FORMAT, refs: cur }));
      cur = [];
      size = 0;
    }
    cur.push(entry);
    size += len;
  }
  if (cur.length) chunks.push(JSON.stringify({ v: PROTECTED_FORMAT, refs: cur }));
  return chunks;
}

/** Reads chunks back; a chunk in another format is an error (the worker then refuses a `*` prune). */
export function unpackProtectedSet(chunks: Iterable<{ name: string; text: string }>): ProtectedSet {
  const out: ProtectedSet = new Map();
  for (const { name, text } of chunks) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw new Error(`${name}: not JSON`);
    }
    const o = v as { v?: unknown; refs?: unknown };
    if (o?.v !== PROTECTED_FORMAT || !Array.isArray(o.refs))
      throw new Error(`${name}: not a protected-image list of format ${PROTECTED_FORMAT}`);
    for (const e of o.refs) {
      if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'string')
        throw new Error(`${name}: malformed entry ${JSON.stringify(e).slice(0, 100)}`);
      out.set(e[0], e[1]);
    }
  }
  return out;
}

/**
 * Matching on the worker: a protected `name:tag` matches an image with that (normalized) repo
 * tag; a protected `name@digest` (or `name:tag@digest`) matches an image with that repo digest,
 * and its tag too, since either way the workload would need this image back.
 */
export class ProtectedIndex {
  private readonly byAlias = new Map<string, string>();

  constructor(set: ProtectedSet) {
    // The set holds normalized refs (buildProtectedSet wrote them), so plain string splitting
    // finds name, tag and digest: parsing 20,000 refs again would cost a worker most of its time.
    for (const [ref, reason] of set) {
      const at = ref.indexOf('@');
      const named = at < 0 ? ref : ref.slice(0, at);
      const slash = named.lastIndexOf('/');
      const colon = named.indexOf(':', slash + 1);
      const name = colon < 0 ? named : named.slice(0, colon);
      if (colon >= 0) this.byAlias.set(named, reason);
      if (at >= 0) this.byAlias.set(`${name}${ref.slice(at)}`, reason);
    }
  }

  get size(): number {
    return this.byAlias.size;
  }

  /** The reason an image with these normalized aliases is protected, or undefined. */
  reasonFor(aliases: Iterable<string>): string | undefined {
    for (const a of aliases) {
      const r = this.byAlias.get(a);
      if (r !== undefined) return r;
    }
    return undefined;
  }
}
