// The last stop for every error a command throws, oclif's own included (unknown flags, bad
// option values, stray arguments): one style, kubectl's `error: <message>`, never wrapped, on
// stderr, then the exit code the error carries. oclif's default handler prints
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
  // oclif's parse errors start with a capital and may add "See more help with --help" lines.
  const lines = message.replace(/^Error: /, '').split('\n');
  const out = [`error: ${lines[0]}`, ...lines.slice(1).filter((l) => l.trim() !== '')];
  for (const s of e.suggestions ?? []) out.push(`hint: ${s}`);
  return out.join('\n');
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
