// JSON input one object at a time. JSON.parse of a whole 256 MiB input builds every value at
// once: `[{},{},...]` is 85 million objects, far more memory than the input. Instead the text
// is walked at the top level: a top-level array yields its elements, and a `…List` object
// (`kubectl get -o json`) yields its items, each parsed alone, so memory follows the largest
// object, not the input. Any one unit parsed whole holds at most MAX_VALUES values, which is
// more than the API server lets one object have.
//
// The input is checked whole (every unit parsed once and dropped) before the first unit is
// handed out: text that is not JSON after all (flow YAML such as `{a: 1}`) then goes to the
// YAML reader with nothing yet collected. Pure: text in, values out.
import { ManifestError } from './input.js';

/** Values (objects, arrays, scalars) allowed in one unit parsed whole: above any API object. */
export const MAX_VALUES = 1_000_000;

export interface JsonUnit {
  value: unknown;
  where: string;
}

const isWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text.charCodeAt(i))) i++;
  return i;
}

/** End (exclusive) of the string starting at `i` (a quote), or -1 when it never closes. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92 /* \ */) j++;
    else if (c === 34 /* " */) return j + 1;
  }
  return -1;
}

/**
 * The extent of the value starting at `i` and how many values it holds (counted by their
 * separators, an upper bound), or undefined when the framing is not JSON. Syntax inside the
 * value is left to JSON.parse.
 */
function scanValue(text: string, i: number): { end: number; values: number } | undefined {
  const c = text.charCodeAt(i);
  if (c === 34) {
    const end = stringEnd(text, i);
    return end < 0 ? undefined : { end, values: 1 };
  }
  if (c !== 123 /* { */ && c !== 91 /* [ */) {
    let j = i;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (isWs(d) || d === 44 || d === 93 || d === 125) break;
      j++;
    }
    return j > i ? { end: j, values: 1 } : undefined;
  }
  let depth = 0;
  let values = 1;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 34) {
      j = stringEnd(text, j) - 1;
      if (j < 0) return undefined;
    } else if (d === 123 || d === 91) {
      depth++;
      values++;
    } else if (d === 125 || d === 93) {
      if (--depth === 0) return { end: j + 1, values };
    } else if (d === 44 /* , */ || d === 58 /* : */) values++;
  }
  return undefined;
}

/** Parses one unit, or undefined when it is not JSON; a unit over MAX_VALUES is an error. */
function parseUnit(text: string, s: number, e: number, values: number, name: string, where: string): unknown {
  if (values > MAX_VALUES) {
    throw new ManifestError(
      `${name}: ${where}: more than ${MAX_VALUES.toLocaleString('en-US')} values in one object, the limit for a manifest`,
    );
  }
  // `{}` (the worst case for memory per byte) needs no parser.
  if (e - s === 2 && text.charCodeAt(s) === 123 && text.charCodeAt(s + 1) === 125) return {};
  try {
    return JSON.parse(text.slice(s, e)) as unknown;
  } catch {
    return NOT_JSON;
  }
}
const NOT_JSON = Symbol('not JSON');

/** The elements of the array at `i`: [start, end, values] each, walked lazily. */
function* elements(text: string, i: number): Generator<[number, number, number]> {
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 93) return;
  for (;;) {
    const v = scanValue(text, j);
    if (!v) throw NOT_JSON;
    yield [j, v.end, v.values];
    j = skipWs(text, v.end);
    const c = text.charCodeAt(j);
    if (c === 93) return;
    if (c !== 44) throw NOT_JSON;
    j = skipWs(text, j + 1);
  }
}

interface Member {
  key: string;
  start: number;
  end: number;
  values: number;
}

/** The members of the object at `i`, or throws NOT_JSON. */
function* members(text: string, i: number): Generator<Member> {
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 125) return;
  for (;;) {
    if (text.charCodeAt(j) !== 34) throw NOT_JSON;
    const keyEnd = stringEnd(text, j);
    if (keyEnd < 0) throw NOT_JSON;
    const key = JSON.parse(text.slice(j, keyEnd)) as string;
    j = skipWs(text, keyEnd);
    if (text.charCodeAt(j) !== 58) throw NOT_JSON;
    j = skipWs(text, j + 1);
    const v = scanValue(text, j);
    if (!v) throw NOT_JSON;
    yield { key, start: j, end: v.end, values: v.values };
    j = skipWs(text, v.end);
    const c = text.charCodeAt(j);
    if (c === 125) return;
    if (c !== 44) throw NOT_JSON;
    j = skipWs(text, j + 1);
  }
}

/**
 * The units of a JSON input (text starting with `{` or `[`), or undefined when it is not JSON.
 * Throws ManifestError when one unit parsed whole would exceed MAX_VALUES.
 */
export function jsonUnits(text: string, name: string): Iterable<JsonUnit> | undefined {
  const start = skipWs(text, 0);
  try {
    const top = scanValue(text, start);
    if (!top || skipWs(text, top.end) !== text.length) return undefined;
    if (text.charCodeAt(start) === 91) {
      // A top-level array (jq output, say) is a list of documents.
      let n = 0;
      for (const [s, e, values] of elements(text, start))
        if (parseUnit(text, s, e, values, name, `[${n++}]`) === NOT_JSON) return undefined;
      return arrayUnits(text, start, name, (k) => `[${k}]`);
    }
    // An object: a List's items are units of their own; anything else is one unit.
    let kind: unknown;
    let items: Member | undefined;
    let rest = 0;
    for (const m of members(text, start)) {
      if (m.key === 'items' && text.charCodeAt(m.start) === 91) {
        items = m;
        continue;
      }
      const v = parseUnit(text, m.start, m.end, m.values, name, 'document 1');
      if (v === NOT_JSON) return undefined;
      if (m.key === 'kind') kind = v;
      rest += m.values;
    }
    if (items && typeof kind === 'string' && kind.endsWith('List')) {
      let n = 0;
      for (const [s, e, values] of elements(text, items.start))
        if (parseUnit(text, s, e, values, name, `document 1, items[${n++}]`) === NOT_JSON) return undefined;
      return arrayUnits(text, items.start, name, (k) => `document 1, items[${k}]`);
    }
    const value = parseUnit(text, start, top.end, rest + (items?.values ?? 0), name, 'document 1');
    return value === NOT_JSON ? undefined : [{ value, where: 'document 1' }];
  } catch (e) {
    if (e === NOT_JSON) return undefined;
    throw e;
  }
}

function* arrayUnits(
  text: string,
  at: number,
  name: string,
  where: (k: number) => string,
): Generator<JsonUnit> {
  let k = 0;
  for (const [s, e, values] of elements(text, at)) {
    const w = where(k++);
    yield { value: parseUnit(text, s, e, values, name, w), where: w };
  }
}
