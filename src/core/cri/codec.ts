// Protocol buffers encoding and decoding for the CRI messages, driven by the schemas that
// scripts/cri-codegen.mjs generates from proto/ at build time (src/core/cri/generated/). It
// covers what the CRI protos use: string, bool, (u)int32, (u)int64, enums, messages, repeated
// fields and map<string, string>. Decoded objects look the way @grpc/proto-loader made them
// (camelCase names, int64 as decimal strings, enums as names, defaults filled, absent messages
// null), so the rest of the program and the tests see the same shapes.

import { TooManyEntriesError } from './limits.js';

/** [number, camelCase name, kind, enum or message type (null for scalars), 1 if repeated] */
export type FieldSpec =
  | [number, string, ScalarKind]
  | [number, string, ScalarKind, null, 1]
  | [number, string, 'map']
  | [number, string, 'enum' | 'message', string]
  | [number, string, 'enum' | 'message', string, 1];
type ScalarKind = 'string' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64';

export interface ProtoSchema {
  package: string;
  messages: Record<string, FieldSpec[]>;
  /** enum type → value number → name */
  enums: Record<string, Record<string, string>>;
  /** service → method → [request type, response type] */
  services: Record<string, Record<string, [string, string]>>;
}

type Obj = Record<string, unknown>;

/** A field spec's parts, each position typed as loosely as the union allows. */
const spread = (f: FieldSpec) => f as [number, string, string, string | null | undefined, 1 | undefined];

// ---- writing ----

class Writer {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.chunks.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(256, n));
    this.pos = 0;
  }

  varint(v: bigint): void {
    this.ensure(10);
    let x = BigInt.asUintN(64, v);
    while (x > 0x7fn) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }

  small(v: number): void {
    // Non-negative values below 2^31 (tags, lengths, most enums) without BigInt.
    this.ensure(5);
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }

  bytes(b: Buffer): void {
    this.small(b.length);
    this.ensure(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }

  finish(): Buffer {
    this.chunks.push(this.buf.subarray(0, this.pos));
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}

function toBigInt(v: unknown, field: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'boolean') return v ? 1n : 0n;
  throw new TypeError(`field ${field}: ${JSON.stringify(v)} is not an integer`);
}

function isDefault(v: unknown): boolean {
  return v === '' || v === false || v === 0 || v === '0' || v === 0n;
}

function writeScalar(w: Writer, kind: ScalarKind, v: unknown, field: string): void {
  if (kind === 'string') w.bytes(Buffer.from(String(v), 'utf8'));
  else if (kind === 'bool') w.small(v ? 1 : 0);
  else w.varint(toBigInt(v, field));
}

/** Encodes `obj` (camelCase or proto field names) as the message `type` of `schema`. */
export function encode(schema: ProtoSchema, type: string, obj: Obj): Buffer {
  const w = new Writer();
  writeMessage(schema, type, obj, w);
  return w.finish();
}

function enumNumber(schema: ProtoSchema, type: string, v: unknown, field: string): bigint {
  if (typeof v === 'string' && !/^-?\d+$/.test(v)) {
    const values = schema.enums[type] ?? {};
    for (const [n, name] of Object.entries(values)) if (name === v) return BigInt(n);
    throw new TypeError(`field ${field}: ${v} is not a value of ${type}`);
  }
  return toBigInt(v, field);
}

function writeMessage(schema: ProtoSchema, type: string, obj: Obj, w: Writer): void {
  const fields = schema.messages[type];
  if (!fields) throw new TypeError(`unknown message type ${type}`);
  for (const f of fields) {
    const [no, name, kind, ref, repeated] = spread(f);
    const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const v = obj[name] !== undefined ? obj[name] : obj[snake];
    if (v === undefined || v === null) continue;
    const label = `${type}.${name}`;
    if (kind === 'map') {
      for (const [k, val] of Object.entries(v as Obj)) {
        const entry = new Writer();
        entry.small((1 << 3) | 2);
        entry.bytes(Buffer.from(k, 'utf8'));
        entry.small((2 << 3) | 2);
        entry.bytes(Buffer.from(String(val), 'utf8'));
        w.small((no << 3) | 2);
        w.bytes(entry.finish());
      }
      continue;
    }
    const values = repeated ? (v as unknown[]) : [v];
    if (repeated && !Array.isArray(v)) throw new TypeError(`field ${label}: expected a list`);
    for (const item of values) {
      if (kind === 'message') {
        const sub = new Writer();
        writeMessage(schema, ref!, item as Obj, sub);
        w.small((no << 3) | 2);
        w.bytes(sub.finish());
      } else if (kind === 'enum') {
        const n = enumNumber(schema, ref!, item, label);
        if (!repeated && n === 0n) continue;
        w.small(no << 3);
        w.varint(n);
      } else {
        if (!repeated && isDefault(item)) continue;
        w.small((no << 3) | (kind === 'string' ? 2 : 0));
        writeScalar(w, kind as ScalarKind, item, label);
      }
    }
  }
}

// ---- reading ----

class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new RangeError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
      if (shift > 63n) throw new RangeError('varint too long');
    }
  }

  /** A varint known to be small (tags, lengths); falls back to BigInt for long ones. */
  small(): number {
    let result = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (this.pos >= this.end) throw new RangeError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= (b & 0x7f) << shift;
      if (b < 0x80) return result;
    }
    this.pos -= 4;
    return Number(this.varint());
  }

  length(): number {
    const n = this.small();
    if (n < 0 || this.pos + n > this.end) throw new RangeError('length beyond the message');
    return n;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) {
      const n = this.length(); // read before adding: length() moves pos past the length itself
      this.pos += n;
    } else if (wire === 5) this.pos += 4;
    else throw new RangeError(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new RangeError('field beyond the message');
  }
}

function defaults(schema: ProtoSchema, fields: FieldSpec[]): Obj {
  const out: Obj = {};
  for (const f of fields) {
    const [, name, kind, ref, repeated] = spread(f);
    if (repeated) out[name] = [];
    else if (kind === 'map') out[name] = {};
    else if (kind === 'message') out[name] = null;
    else if (kind === 'enum') out[name] = schema.enums[ref!]?.['0'] ?? 0;
    else if (kind === 'string') out[name] = '';
    else if (kind === 'bool') out[name] = false;
    else if (kind === 'int64' || kind === 'uint64') out[name] = '0';
    else out[name] = 0;
  }
  return out;
}

function readScalar(r: Reader, kind: string): unknown {
  switch (kind) {
    case 'string': {
      const n = r.length();
      const s = r.buf.toString('utf8', r.pos, r.pos + n);
      r.pos += n;
      return s;
    }
    case 'bool':
      return r.varint() !== 0n;
    case 'int32':
      return Number(BigInt.asIntN(32, r.varint()));
    case 'uint32':
      return Number(BigInt.asUintN(32, r.varint()));
    case 'int64':
      return BigInt.asIntN(64, r.varint()).toString();
    default:
      return BigInt.asUintN(64, r.varint()).toString();
  }
}

/**
 * Counts what decoding allocates (messages, repeated values, map entries) and stops it past
 * `max`, before the objects of a hostile answer fill the memory (see limits.ts).
 */
class Budget {
  private left: number;
  constructor(readonly max: number) {
    this.left = max;
  }
  take(n = 1): void {
    this.left -= n;
    if (this.left < 0) throw new TooManyEntriesError(this.max);
  }
}

/**
 * Decodes the message `type` of `schema` from `buf`, in proto-loader's object shape; with
 * `maxEntries`, throws TooManyEntriesError when the answer holds more entries than that.
 */
export function decode(schema: ProtoSchema, type: string, buf: Buffer, maxEntries = Infinity): Obj {
  return readMessage(schema, type, new Reader(buf), new Budget(maxEntries));
}

const byNumberCache = new WeakMap<FieldSpec[], Map<number, FieldSpec>>();

function readMessage(schema: ProtoSchema, type: string, r: Reader, budget: Budget): Obj {
  const fields = schema.messages[type];
  if (!fields) throw new TypeError(`unknown message type ${type}`);
  budget.take();
  let byNumber = byNumberCache.get(fields);
  if (!byNumber) {
    byNumber = new Map(fields.map((f) => [f[0], f]));
    byNumberCache.set(fields, byNumber);
  }
  const out = defaults(schema, fields);
  while (r.pos < r.end) {
    const tag = r.small();
    const no = tag >>> 3;
    const wire = tag & 7;
    const f = byNumber.get(no);
    if (!f) {
      r.skip(wire);
      continue;
    }
    const [, name, kind, ref, repeated] = spread(f);
    if (kind === 'map') {
      budget.take();
      const n = r.length();
      const entry = new Reader(r.buf, r.pos, r.pos + n);
      r.pos += n;
      let key = '';
      let value = '';
      while (entry.pos < entry.end) {
        const t = entry.small();
        if (t === ((1 << 3) | 2)) key = readScalar(entry, 'string') as string;
        else if (t === ((2 << 3) | 2)) value = readScalar(entry, 'string') as string;
        else entry.skip(t & 7);
      }
      (out[name] as Obj)[key] = value;
      continue;
    }
    // Packed repeated scalars (wire type 2 for a varint kind) are read one value after another.
    const values: unknown[] = [];
    if (kind === 'message') {
      const n = r.length();
      values.push(readMessage(schema, ref!, new Reader(r.buf, r.pos, r.pos + n), budget));
      r.pos += n;
    } else if (kind !== 'string' && wire === 2) {
      const n = r.length();
      const packed = new Reader(r.buf, r.pos, r.pos + n);
      r.pos += n;
      while (packed.pos < packed.end) {
        budget.take();
        values.push(readValue(schema, packed, kind, ref));
      }
    } else {
      if (repeated) budget.take();
      values.push(readValue(schema, r, kind, ref));
    }
    if (repeated) (out[name] as unknown[]).push(...values);
    else out[name] = values[values.length - 1];
  }
  return out;
}

function readValue(schema: ProtoSchema, r: Reader, kind: string, ref: string | null | undefined): unknown {
  if (kind !== 'enum') return readScalar(r, kind);
  const n = Number(BigInt.asIntN(32, r.varint()));
  // An enum value this build does not know stays a number, as proto-loader leaves it.
  return schema.enums[ref!]?.[String(n)] ?? n;
}
