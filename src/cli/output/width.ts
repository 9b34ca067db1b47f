// Widths on a terminal: the visible length of a string (colour escapes do not count), the
// terminal's width (undefined when piped), and the plain cut with "…". Shared by tables, wrapped
// prose and the spinner.
// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[[0-9;]*m/g;
export const visibleLength = (s: string): number => [...s.replace(ANSI, '')].length;

/** The width to fit tables to: the terminal's, or undefined when stdout is piped. `COLUMNS` overrides. */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout): number | undefined {
  const env = Number(process.env.COLUMNS);
  if (stream.isTTY) return Number.isInteger(env) && env > 0 ? env : stream.columns || 80;
  return undefined;
}

/** `s` cut to `width` visible characters with a trailing "…"; color is dropped from a cut value. */
export function truncate(s: string, width: number): string {
  if (visibleLength(s) <= width) return s;
  return [...s.replace(ANSI, '')].slice(0, Math.max(0, width - 1)).join('') + '…';
}
