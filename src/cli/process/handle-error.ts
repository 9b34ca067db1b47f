// The last stop for every error a command throws, oclif's own included (unknown flags, bad
// option values, stray arguments): one style, kubectl's `error: <message>`, never wrapped, on
// stderr, one line (oclif's multi-line parse errors are joined), then the exit code the error carries. oclif's default handler prints
// ` ›   Error: ...` hard-wrapped at 80 columns even into a pipe, and a different style from
// failLine's; scripts and people should meet one.
import { EXIT_INTERRUPTED, EXIT_PARTIAL_FAILURE } from './exit-codes.js';
import { exitWhenFlushed } from './exit.js';

interface OclifLike {
  message?: string;
  code?: string;
  stack?: string;
  oclif?: { exit?: number };
  skipOclifErrorHandling?: boolean;
  suggestions?: string[];
}

/** The text printed for `err` (without the trailing newline), or undefined for a silent exit. */
export function errorText(err: unknown): string | undefined {
  const e = (err ?? {}) as OclifLike;
  // this.exit(n) throws an ExitError: the command already said what it had to.
  if (e.code === 'EEXIT' || e.skipOclifErrorHandling) return undefined;
  const message = (typeof e.message === 'string' && e.message) || String(err);
  return `error: ${oneLine(message.replace(/^Error: /, ''))}${(e.suggestions ?? []).map((s) => `; ${s}`).join('')}`;
}

const SEE_HELP = /^See more help with --help$/;
const PREAMBLE = /^The following errors? occurred:$/;
const MISSING = /^Missing \d+ required args?:$/;

/**
 * oclif's multi-line parse errors as one line: "Missing 1 required arg:\njob  ImageJob name."
 * becomes "Missing 1 required arg: job (ImageJob name.)", "The following error occurred:\n  X"
 * becomes "X", and "See more help with --help" a closing "(see --help)".
 */
export function oneLine(message: string): string {
  const raw = message.split('\n').filter((l) => l.trim() !== '');
  let lines = raw.map((l) => l.trim());
  const help = lines.some((l) => SEE_HELP.test(l));
  // Only oclif's parse errors; a message of ours laid out in lines (kubectl's "Did you mean
  // this?" list for an unknown command) keeps its layout.
  if (!help && !PREAMBLE.test(lines[0] ?? '') && !MISSING.test(lines[0] ?? '')) return raw.join('\n');
  lines = lines.filter((l) => !SEE_HELP.test(l));
  if (lines.length > 1 && PREAMBLE.test(lines[0]!)) lines = lines.slice(1);
  // "name  description" items under a "...:" header.
  const item = (l: string) => l.replace(/^(\S+) {2,}(.+)$/, '$1 ($2)');
  const text =
    lines.length > 1 && lines[0]!.endsWith(':')
      ? `${lines[0]} ${lines.slice(1).map(item).join('; ')}`
      : lines.join('; ');
  return `${text}${help ? ' (see --help)' : ''}`;
}

export function exitCodeOf(err: unknown): number {
  const e = (err ?? {}) as OclifLike;
  if (e.message === 'SIGINT') return EXIT_INTERRUPTED;
  return e.oclif?.exit ?? EXIT_PARTIAL_FAILURE;
}

/**
 * Prints `err` in the one style and exits once stdout and stderr are drained (a piped report
 * and its warnings arrive whole, the `error:` line last). A stack trace only with DEBUG set.
 */
export function handleError(err: unknown): Promise<never> {
  const text = errorText(err);
  if (text !== undefined) process.stderr.write(`${text}\n`);
  const e = err as OclifLike | undefined;
  if (process.env.DEBUG && e?.stack && e.code !== 'EEXIT') process.stderr.write(`${e.stack}\n`);
  return exitWhenFlushed(exitCodeOf(err));
}
