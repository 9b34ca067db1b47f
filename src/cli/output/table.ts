// kubectl-style tables: no borders, columns separated by three spaces, a header row in
// capitals, and on a terminal the whole table fitted to its width. Columns marked `shrink`
// are truncated with "…" (longest first) when the table would wrap; `-o wide` shows every
// column in full. Piped output is never truncated, so scripts and grep see whole values.
// Image refs are cut in the middle, keeping the tag (shorten-ref.ts); on a terminal, a column
// marked `collapse` whose every row holds the same value (a column of `*`) gives its width
// back and is said once above the table instead.
import Table from 'cli-table3';
import { shortenRef } from './shorten-ref.js';
import { colors } from './style.js';
import { ANSI, terminalWidth, truncate, visibleLength } from './width.js';

export { terminalWidth, truncate, visibleLength };

export interface Column {
  header: string;
  /** Shown only with `-o wide`. */
  wide?: boolean;
  /** May be truncated to fit the terminal (put such columns last, as kubectl does). */
  shrink?: boolean;
  /** Never truncated below this many characters. Default 12. */
  minWidth?: number;
  align?: 'left' | 'right';
  /** Holds image refs: cut in the middle (registry, path), keeping the tag or the digest's start. */
  ref?: boolean;
  /** On a terminal, when every row has the same value: "HEADER: value (every row)" above, no column. */
  collapse?: boolean;
}

export interface TableOptions {
  /** `-o wide`: show wide-only columns and never truncate. */
  wide?: boolean;
  /** `--no-headers`. */
  noHeaders?: boolean;
  /** Terminal width; undefined means "not a terminal": nothing is truncated. */
  width?: number;
}

const GAP = 3;
/** Column widths (without the gap) after truncating shrinkable columns to fit `width`. */
export function fitWidths(columns: Column[], natural: number[], width: number | undefined): number[] {
  const widths = [...natural];
  if (width === undefined) return widths;
  const total = (): number => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);
  // Take one character at a time from the widest shrinkable column above its minimum, so
  // two long columns end up sharing the space rather than one vanishing.
  while (total() > width) {
    let best = -1;
    for (let i = 0; i < columns.length; i++) {
      const min = Math.max(columns[i]!.minWidth ?? 12, visibleLength(columns[i]!.header));
      if (columns[i]!.shrink && widths[i]! > min && (best < 0 || widths[i]! > widths[best]!)) best = i;
    }
    if (best < 0) break;
    widths[best]!--;
  }
  return widths;
}

/** The columns that collapse in this table: marked, on a terminal, the same value in 2+ rows. */
function collapsed(columns: Column[], rows: string[][], opts: TableOptions): Set<number> {
  const out = new Set<number>();
  if (opts.width === undefined || opts.wide || opts.noHeaders || rows.length < 2) return out;
  columns.forEach((c, i) => {
    if (c.collapse && rows.every((r) => (r[i] ?? '') === (rows[0]![i] ?? ''))) out.add(i);
  });
  return out;
}

export function renderTable(columns: Column[], rows: string[][], opts: TableOptions = {}): string {
  const gone = collapsed(columns, rows, opts);
  const said = [...gone].map((i) => `${columns[i]!.header}: ${rows[0]![i] ?? ''} (every row)\n`).join('');
  const shown = columns
    .map((c, i) => ({ c, i }))
    .filter(({ c, i }) => (opts.wide || !c.wide) && !gone.has(i));
  const cols = shown.map(({ c }) => c);
  const body = rows.map((r) => shown.map(({ i }) => r[i] ?? ''));
  const c = colors();
  const head = opts.noHeaders ? [] : [cols.map((col) => col.header)];
  const natural = cols.map((_, j) => Math.max(1, ...[...head, ...body].map((r) => visibleLength(r[j]!))));
  const widths = fitWidths(cols, natural, opts.wide ? undefined : opts.width);
  const last = cols.length - 1;
  const t = new Table({
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
    colWidths: widths.map((w, j) => (j === last ? w : w + GAP)),
    colAligns: cols.map((col) => col.align ?? 'left'),
    truncate: '…',
    wordWrap: false,
  });
  // A right-aligned column carries its gap as trailing spaces, so it still sits GAP before the next.
  const cell = (v: string, j: number): string => {
    const w = widths[j]!;
    const fitted = cols[j]!.ref && visibleLength(v) > w ? shortenRef(v.replace(ANSI, ''), w) : truncate(v, w);
    return cols[j]!.align === 'right' && j !== last ? fitted + ' '.repeat(GAP) : fitted;
  };
  if (!opts.noHeaders) t.push(cols.map((col, j) => cell(c.bold(col.header), j)));
  for (const r of body) t.push(r.map(cell));
  if (!rows.length && opts.noHeaders) return '';
  // cli-table3 pads the last column to its width; kubectl does not.
  return (
    said +
    t
      .toString()
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
      .join('\n') +
    '\n'
  );
}
