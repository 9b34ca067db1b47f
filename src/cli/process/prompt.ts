// Yes/no questions on the terminal. ^C at the question is an interruption like any other (exit
// 130 with the interrupted line), not readline's "AbortError: Aborted with Ctrl+C".
import readline from 'node:readline';
import { clearOnInterrupt, exitOnInterrupt, interrupted } from './interrupt.js';

/** Asks on stderr; true only for y or yes. Callers check that stdin is a TTY first. */
export function confirm(question: string): Promise<boolean> {
  exitOnInterrupt();
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    const forget = clearOnInterrupt({ stop: () => rl.close() });
    // readline reads ^C as a key in raw mode and reports it here instead of as a signal.
    rl.on('SIGINT', () => interrupted());
    // ^D (end of input) answers no.
    rl.on('close', () => resolve(false));
    rl.question(`${question} [y/N] `, (answer) => {
      forget();
      resolve(/^y(es)?$/i.test(answer.trim()));
      rl.close();
    });
  });
}
