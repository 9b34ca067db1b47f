// The document formats every data-printing command shares, in one place: -o json, -o yaml, and
// kubectl's -o jsonpath=TEMPLATE, -o jsonpath-file=FILE, -o custom-columns=SPEC and
// -o custom-columns-file=FILE, plus --sort-by. Renderers call `renderData` with their document
// (the JSON one of docs/output.md) and the list it holds; anything that returns undefined is
// theirs to draw (table, wide, name).
import fs from 'node:fs';
import { execute, findValues, parseTemplate, relaxedPath, valueText } from './jsonpath.js';
import { toJson, toYaml } from './style.js';
import { renderTable } from './table.js';

/** `-o` values that take an argument, as kubectl spells them. */
export const TEMPLATE_FORMATS = [
  'jsonpath',
  'jsonpath-file',
  'custom-columns',
  'custom-columns-file',
] as const;

/** A file given to jsonpath-file or custom-columns-file is read up to this size. */
const MAX_TEMPLATE_FILE = 64 * 1024;

function readTemplateFile(file: string, what: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    if (!fs.fstatSync(fd).isFile()) throw new Error('not a regular file');
    const buf = Buffer.alloc(MAX_TEMPLATE_FILE + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    if (n > MAX_TEMPLATE_FILE) throw new Error(`larger than ${MAX_TEMPLATE_FILE} bytes`);
    return buf.subarray(0, n).toString('utf8');
  } catch (e) {
    throw new Error(
      `${what} ${JSON.stringify(file)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** custom-columns-file: a line of headers and a line of paths, whitespace-separated, as kubectl reads it. */
function columnsFromFile(text: string): string {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2)
    throw new Error('custom-columns-file: expected a line of headers and a line of paths');
  const headers = lines[0]!.trim().split(/\s+/);
  const paths = lines[1]!.trim().split(/\s+/);
  if (headers.length !== paths.length)
    throw new Error(
      `custom-columns-file: number of headers (${headers.length}) does not match number of columns (${paths.length})`,
    );
  return headers.map((h, i) => `${h}:${paths[i]}`).join(',');
}

interface ColumnSpec {
  header: string;
  path: string;
}

function parseColumns(spec: string): ColumnSpec[] {
  if (spec.trim() === '') throw new Error('custom-columns format specified but no custom columns given');
  return spec.split(',').map((part) => {
    const colon = part.indexOf(':');
    if (colon <= 0)
      throw new Error(`unexpected custom-columns spec: ${part}, expected <header>:<json-path-expr>`);
    return { header: part.slice(0, colon), path: relaxedPath(part.slice(colon + 1)) };
  });
}

/**
 * Validates an -o value when the flag is parsed (so a bad template fails before any API call)
 * and reads the -file forms, which come back as their inline equivalents.
 */
export function parseOutputValue(value: string, formats: readonly string[]): string {
  if (formats.includes(value)) return value;
  const eq = value.indexOf('=');
  const name = eq < 0 ? value : value.slice(0, eq);
  if (!(TEMPLATE_FORMATS as readonly string[]).includes(name)) {
    const all = [...formats, ...TEMPLATE_FORMATS.map((f) => `${f}=...`)];
    throw new Error(
      `unable to match a printer suitable for the output format "${value}", allowed formats are: ${all.join(', ')}`,
    );
  }
  if (eq < 0) throw new Error(`${name} format specified but no template given (-o ${name}=...)`);
  const arg = value.slice(eq + 1);
  switch (name) {
    case 'jsonpath':
      parseTemplate(arg);
      return value;
    case 'jsonpath-file': {
      const text = readTemplateFile(arg, 'jsonpath-file');
      parseTemplate(text);
      return `jsonpath=${text}`;
    }
    case 'custom-columns':
      parseColumns(arg);
      return value;
    default: {
      const spec = columnsFromFile(readTemplateFile(arg, 'custom-columns-file'));
      parseColumns(spec);
      return `custom-columns=${spec}`;
    }
  }
}

/** True for the formats renderData draws: the table renderers need not run. */
export const isDataOutput = (output: string): boolean =>
  output === 'json' ||
  output === 'yaml' ||
  output.startsWith('jsonpath=') ||
  output.startsWith('custom-columns=');

export interface DataOptions {
  /** The rows custom-columns prints (kubectl: a List's items); default: the document, one row. */
  items?: readonly unknown[];
  noHeaders?: boolean;
}

/** The output for json, yaml, jsonpath and custom-columns; undefined for the renderer's own formats. */
export function renderData(doc: unknown, output: string, opts: DataOptions = {}): string | undefined {
  if (output === 'json') return toJson(doc);
  if (output === 'yaml') return toYaml(doc);
  if (output.startsWith('jsonpath=')) return execute(parseTemplate(output.slice(9)), doc);
  if (output.startsWith('custom-columns=')) {
    const cols = parseColumns(output.slice(15));
    const rows = (opts.items ?? [doc]).map((item) =>
      cols.map((c) => {
        const found = findValues(c.path, item, doc);
        return found.length ? found.map(valueText).join(',') : '<none>';
      }),
    );
    // Whole values, never fitted to the terminal: custom columns are for scripts and wide screens.
    return renderTable(
      cols.map((c) => ({ header: c.header })),
      rows,
      { wide: true, noHeaders: opts.noHeaders },
    );
  }
  return undefined;
}

/** Compares two --sort-by keys as kubectl does: numbers by value, text in natural order, missing first. */
function compareKeys(a: unknown, b: unknown): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return naturalCompare(valueText(a), valueText(b));
}

/** "node-2" before "node-10": digit runs compare by value. */
export function naturalCompare(a: string, b: string): number {
  const re = /(\d+|\D+)/g;
  const pa = a.match(re) ?? [];
  const pb = b.match(re) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const nx = /^\d/.test(x) && /^\d/.test(y);
    if (nx && BigInt(x) !== BigInt(y)) return BigInt(x) < BigInt(y) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Validates a --sort-by expression (kubectl's relaxed JSONPath) and returns its path. */
export function parseSortBy(expr: string): string {
  return relaxedPath(expr);
}

/**
 * Sorts list items by a path (stable: equal keys keep their order), in place. An item whose
 * path selects several values sorts by the first; one that selects none sorts first; a path
 * that no item has is an error.
 */
export function sortItems<T>(items: T[], path: string, requireFound = true): T[] {
  const keyed = items.map((item, i) => ({ item, i, key: findValues(path, item)[0] }));
  // kubectl's check: a path no item has is a typo, not an order.
  if (requireFound && keyed.length && keyed.every((k) => k.key === undefined))
    throw new Error(`couldn't find any field with path "${path}" in the list of objects`);
  keyed.sort((x, y) => compareKeys(x.key, y.key) || x.i - y.i);
  keyed.forEach((k, i) => (items[i] = k.item));
  return items;
}

/**
 * --sort-by for a ScanReport: the images within each namespace (namespaces keep their order,
 * so the table's groups stay whole). A path that no image of any namespace has is an error.
 */
export function sortScanImages(doc: { namespaces: { images: object[] }[] }, expr: string): void {
  const path = parseSortBy(expr);
  const all = doc.namespaces.flatMap((n) => n.images);
  if (all.length && all.every((i) => findValues(path, i).length === 0))
    throw new Error(`couldn't find any field with path "${path}" in the list of objects`);
  for (const n of doc.namespaces) sortItems(n.images, path, false);
}
