// Fitting prose to a terminal: kubectl's summaries, hints and warnings wrap at word boundaries
// within the width instead of letting the terminal cut words at column 80. Lines that fit are
// left alone (tables are already fitted by table.ts); continuation lines are indented two
// spaces past the line's own indent, so a wrapped line still reads as one item. Piped output
// (no width) is never touched: scripts get whole lines.
import { ANSI, terminalWidth, visibleLength } from './width.js';

/** `line` as lines of at most `width` visible characters, broken between words. */
export function wrapLine(line: string, width: number): string[] {
  if (visibleLength(line) <= width || width < 20) return [line];
  const indent = /^\s*/.exec(line)![0];
  const hang = `${indent}  `;
  const words = line.slice(indent.length).split(/ +/);
  const out: string[] = [];
  let cur = indent;
  let curLen = visibleLength(indent);
  let lead = indent;
  for (let word of words) {
    let len = visibleLength(word);
    if (curLen > lead.length && curLen + 1 + len <= width) {
      cur += ` ${word}`;
      curLen += 1 + len;
      continue;
    }
    if (curLen > lead.length) {
      out.push(cur);
      lead = hang;
      cur = hang;
      curLen = hang.length;
    }
    // A word longer than a whole line (a long ref or URL): cut it into pieces that fit.
    while (curLen + len > width) {
      const plain = [...word.replace(ANSI, '')];
      const room = width - curLen;
      out.push(cur + plain.slice(0, room).join(''));
      word = plain.slice(room).join('');
      len = plain.length - room;
      lead = hang;
      cur = hang;
      curLen = hang.length;
    }
    cur += word;
    curLen += len;
  }
  if (curLen > lead.length || !out.length) out.push(cur);
  return out;
}

/** Every line of `text` wrapped to `width`; unchanged when `width` is undefined (not a terminal). */
export function fitText(text: string, width: number | undefined): string {
  if (width === undefined) return text;
  return text
    .split('\n')
    .flatMap((l) => wrapLine(l, width))
    .join('\n');
}

/** Human output on stdout, wrapped on a terminal (not with -o wide, whose tables must stay whole). */
export function printOut(text: string, opts: { wide?: boolean } = {}): void {
  process.stdout.write(fitText(text, opts.wide ? undefined : terminalWidth()));
}

/** Warnings and notes on stderr, wrapped on a terminal. */
export function printErr(text: string): void {
  process.stderr.write(fitText(text, terminalWidth(process.stderr)));
}
