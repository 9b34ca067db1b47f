// kubectl-style tables: no borders, columns separated by three spaces, a header row in
// capitals, and on a terminal the whole table fitted to its width. Columns marked `shrink`
// are truncated with "…" (longest first) when the table would wrap; `-o wide` shows every
// column in full. Piped output is never truncated, so scripts and grep see whole values.
import Table from 'cli-table3';
import { colors } from './style.js';

export interface Column {
  header: string;
  /** Shown only with `-o wide`. */
  wide?: boolean;
  /** May be truncated to fit the terminal (put such columns last, as kubectl does). */
  shrink?: boolean;
  /** Never truncated below this many characters. Default 12. */
  minWidth?: number;
  align?: 'left' | 'right';
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
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
export const visibleLength = (s: string): number => [...s.replace(ANSI, '')].length;

/** The width to fit tables to: the terminal's, or undefined when stdout is piped. `COLUMNS` overrides. */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout): number | undefined {
  const env = Number(process.env.COLUMNS);
  if (stream.isTTY) return Number.isInteger(env) && env > 0 ? env : stream.columns || 80;
  return undefined;
}

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

/** `s` cut to `width` visible characters with a trailing "…"; color is dropped from a cut value. */
export function truncate(s: string, width: number): string {
  if (visibleLength(s) <= width) return s;
  return [...s.replace(ANSI, '')].slice(0, Math.max(0, width - 1)).join('') + '…';
}

export function renderTable(columns: Column[], rows: string[][], opts: TableOptions = {}): string {
  const shown = columns.map((c, i) => ({ c, i })).filter(({ c }) => opts.wide || !c.wide);
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
    const fitted = truncate(v, widths[j]!);
    return cols[j]!.align === 'right' && j !== last ? fitted + ' '.repeat(GAP) : fitted;
  };
  if (!opts.noHeaders) t.push(cols.map((col, j) => cell(c.bold(col.header), j)));
  for (const r of body) t.push(r.map(cell));
  if (!rows.length && opts.noHeaders) return '';
  // cli-table3 pads the last column to its width; kubectl does not.
  return (
    t
      .toString()
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
      .join('\n') + '\n'
  );
}
