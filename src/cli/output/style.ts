// Terminal styling: chalk for color (off when NO_COLOR is set, per no-color.org, or when
// the stream is not a TTY) and ora for spinners on a TTY only. Tables: table.ts.
import { Chalk, type ChalkInstance } from 'chalk';
import ora, { type Ora } from 'ora';
import { clearOnInterrupt, exitOnInterrupt } from '../process/interrupt.js';
import { terminalWidth, truncate } from './width.js';
import { stringify } from 'yaml';

const noColor = (): boolean => process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';

export function colors(stream: NodeJS.WriteStream = process.stdout): ChalkInstance {
  if (noColor()) return new Chalk({ level: 0 });
  if (process.env.FORCE_COLOR) return new Chalk();
  return new Chalk({ level: stream.isTTY ? 1 : 0 });
}

/**
 * A spinner on stderr when it is a TTY; otherwise a no-op, so pipes and CI logs stay clean.
 * ^C stops the command while it spins (src/cli/process/interrupt.ts): ora's stdin discarding is off,
 * as it puts the terminal in raw mode and ^C would arrive as a byte instead of SIGINT.
 */
export function spinner(text: string, enabled = true): Ora | undefined {
  exitOnInterrupt();
  // A dumb terminal cannot redraw a line: callers print progress lines instead, as without a TTY.
  if (!enabled || !process.stderr.isTTY || process.env.TERM === 'dumb') return undefined;
  // The frame and a space come first; a longer text would wrap and redraw a line per frame.
  const fit = (t: string) => truncate(t, (terminalWidth(process.stderr) ?? 80) - 2);
  const spin = ora({
    text: fit(text),
    stream: process.stderr,
    // NO_COLOR: no escape at all (a "white" frame is still an SGR sequence).
    color: noColor() ? false : 'cyan',
    discardStdin: false,
    // On a terminal, always animate. ora's own default turns the spinner off whenever CI is set,
    // and then prints only the first text: the progress a user at that terminal needs vanishes.
    isEnabled: true,
  });
  // Every later text is fitted too (callers set spin.text as progress changes).
  const text$ = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(spin), 'text');
  if (text$?.get && text$.set)
    Object.defineProperty(spin, 'text', {
      get: () => text$.get!.call(spin) as string,
      set: (t: string) => text$.set!.call(spin, fit(t)),
      configurable: true,
    });
  const forget = clearOnInterrupt(spin);
  const stop = spin.stop.bind(spin);
  spin.stop = () => {
    forget();
    return stop();
  };
  return spin.start();
}

export function toJson(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

export function toYaml(data: unknown): string {
  return stringify(data);
}
