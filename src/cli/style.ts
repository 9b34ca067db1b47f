// Terminal styling: chalk for color (off when NO_COLOR is set, per no-color.org, or when
// the stream is not a TTY) and ora for spinners on a TTY only. Tables: table.ts.
import { Chalk, type ChalkInstance } from 'chalk';
import ora, { type Ora } from 'ora';
import { clearOnInterrupt, exitOnInterrupt } from './interrupt.js';
import { stringify } from 'yaml';

const noColor = (): boolean => process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';

export function colors(stream: NodeJS.WriteStream = process.stdout): ChalkInstance {
  if (noColor()) return new Chalk({ level: 0 });
  if (process.env.FORCE_COLOR) return new Chalk();
  return new Chalk({ level: stream.isTTY ? 1 : 0 });
}

/**
 * A spinner on stderr when it is a TTY; otherwise a no-op, so pipes and CI logs stay clean.
 * ^C stops the command while it spins (src/cli/interrupt.ts): ora's stdin discarding is off,
 * as it puts the terminal in raw mode and ^C would arrive as a byte instead of SIGINT.
 */
export function spinner(text: string, enabled = true): Ora | undefined {
  exitOnInterrupt();
  if (!enabled || !process.stderr.isTTY) return undefined;
  const spin = ora({
    text,
    stream: process.stderr,
    color: noColor() ? 'white' : 'cyan',
    discardStdin: false,
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
