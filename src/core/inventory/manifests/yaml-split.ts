// YAML documents too large to parse whole. js-yaml builds a whole document at once: one
// document of `- {}` lines, 256 MiB of it, is 53 million objects. A document whose values may
// pass MAX_VALUES is therefore cut into its items, each parsed alone, in the two shapes large
// manifests come in:
//   - a root block sequence (`- ...` at column 0): each entry is a document;
//   - a `…List` mapping (`kubectl get -o yaml`): the entries of its block sequence `items:`.
// Anything else that large is refused with the limit named. An entry is parsed as a one-entry
// sequence, in the document's own indentation, so its text is never rewritten. An entry that
// refers to an anchor of another entry fails to parse alone: that is reported as invalid YAML.
// Pure: text in, values out.
import { ManifestError } from './input.js';
import { MAX_VALUES } from './json.js';

export interface SplitDocument {
  value: unknown;
  where: string;
}

/** Loads one YAML text that starts on `line` of the input (errors name that line). */
export type LoadYaml = (text: string, line: number) => unknown[];

/** An upper bound of the values a YAML text can hold: lines plus flow and mapping separators. */
export function yamlValuesBound(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // \n , : { [ -
    if (c === 10 || c === 44 || c === 58 || c === 123 || c === 91 || c === 45) n++;
  }
  return n;
}

/** Each line of `text[from, to)`: start, end (before the newline), input line number. */
function* lines(
  text: string,
  from: number,
  to: number,
  firstLine: number,
): Generator<[number, number, number]> {
  let line = firstLine;
  for (let start = from; start < to; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0 || end > to) end = to;
    yield [start, end, line];
    start = end + 1;
  }
}

function indentOf(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && text.charCodeAt(i) === 32) i++;
  return i - start;
}

/** Blank, a comment, or a bare document marker. */
function isFiller(text: string, start: number, end: number): boolean {
  const t = text.slice(start, Math.min(end, start + 200)).trim();
  return t === '' || t.startsWith('#') || t === '---';
}

/** A sequence entry (`-` then a space or the line's end) at exactly `indent`. */
function isEntry(text: string, start: number, end: number, indent: number): boolean {
  if (indentOf(text, start, end) !== indent || text.charCodeAt(start + indent) !== 45) return false;
  const after = start + indent + 1;
  const c = text.charCodeAt(after);
  return after >= end || c === 32 || c === 9 || c === 13;
}

function tooLarge(name: string, line: number): ManifestError {
  return new ManifestError(
    `${name}: line ${line}: a document of more than ${MAX_VALUES.toLocaleString('en-US')} values that is neither a sequence nor a List, the limit for one object`,
  );
}

/**
 * The items of a large document `text` (document `n`, starting on input line `line`), parsed
 * one at a time. Throws ManifestError when the document has neither shape.
 */
export function* splitLargeYaml(
  text: string,
  n: number,
  line: number,
  name: string,
  load: LoadYaml,
): Generator<SplitDocument> {
  // The first line with content says which shape this is.
  let first: [number, number, number] | undefined;
  for (const l of lines(text, 0, text.length, line)) {
    if (!isFiller(text, l[0], l[1])) {
      first = l;
      break;
    }
  }
  if (!first) return;
  if (isEntry(text, first[0], first[1], 0)) {
    let i = 0;
    for (const v of entries(text, first, text.length, 0, name, load))
      yield { value: v, where: `document ${n}[${i++}], line ${line}` };
    return;
  }
  // A mapping: `items:` at column 0, the indentation of its entries, and where they end.
  let items: number | undefined;
  let entry: [number, number, number] | undefined;
  let end = text.length;
  for (const [s, e, ln] of lines(text, first[0], text.length, first[2])) {
    if (items === undefined) {
      if (/^items:[ \t]*(#.*)?\r?$/.test(text.slice(s, Math.min(e, s + 200)))) items = s;
      continue;
    }
    if (isFiller(text, s, e)) continue;
    const ind = indentOf(text, s, e);
    if (!entry) {
      if (!isEntry(text, s, e, ind)) throw tooLarge(name, line);
      entry = [s, e, ln];
      continue;
    }
    const k = indentOf(text, entry[0], entry[1]);
    if (ind < k || (ind === 0 && !isEntry(text, s, e, 0))) {
      end = s;
      break;
    }
  }
  if (items === undefined || !entry) throw tooLarge(name, line);
  const rest = `${text.slice(0, items)}items: []\n${text.slice(end)}`;
  if (yamlValuesBound(rest) > MAX_VALUES) throw tooLarge(name, line);
  const head = load(rest, line)[0] as { kind?: unknown } | null;
  if (typeof head?.kind !== 'string' || !head.kind.endsWith('List')) throw tooLarge(name, line);
  let i = 0;
  for (const v of entries(text, entry, end, indentOf(text, entry[0], entry[1]), name, load))
    yield { value: v, where: `document ${n}, line ${line}, items[${i++}]` };
}

/** The entries of the block sequence at `indent` from line `first` to `to`, each loaded alone. */
function* entries(
  text: string,
  first: [number, number, number],
  to: number,
  indent: number,
  name: string,
  load: LoadYaml,
): Generator<unknown> {
  let [start, , startLine] = first;
  const one = (endAt: number): unknown => {
    const entry = text.slice(start, endAt);
    if (yamlValuesBound(entry) > MAX_VALUES) throw tooLarge(name, startLine);
    const v = load(entry, startLine)[0];
    return Array.isArray(v) && v.length === 1 ? v[0] : undefined;
  };
  for (const [s, e, ln] of lines(text, first[0], to, first[2])) {
    if (s === start || !isEntry(text, s, e, indent)) continue;
    yield one(s);
    start = s;
    startLine = ln;
  }
  yield one(to);
}
