// Ctrl-C, the same way in every command: whatever is on screen (a spinner, a prompt) is cleared,
// one line says what was interrupted and what is left behind, and the process exits 130 at once
// (EXIT_INTERRUPTED), without waiting for requests in flight (only output already written to a
// slow pipe gets up to a second to drain, see interrupted()). Commands that leave work running
// elsewhere (an ImageJob in the cluster) set a hint saying how to follow or cancel it.
//
// Why a handler at all: Node's default for SIGINT kills the process by the signal, which leaves
// the cursor hidden by a spinner and tells the user nothing. Why not ora's stdin discarding: it
// puts the terminal in raw mode, so ^C reaches the process as a byte instead of a signal (the
// cause of issue 18's ignored ^C); spinner() turns it off.
import { EXIT_INTERRUPTED } from './exit-codes.js';
import { exitWhenFlushed } from './exit.js';

interface Clearable {
  stop(): unknown;
}

let hint: (() => string | undefined) | undefined;
let cleanup: (() => Promise<unknown>) | undefined;
/** How long ^C waits for the cleanup: a bounded wait, ^C must still end the command promptly. */
const CLEANUP_MS = 5000;
let cleanupMs = CLEANUP_MS;
const onScreen = new Set<Clearable>();
let installed = false;
let exiting = false;

/** What the interrupted line should add, read at the moment of ^C (e.g. the job's name once known). */
export function setInterruptHint(h: (() => string | undefined) | undefined): void {
  hint = h;
}

/**
 * Work to undo or finish on ^C before exiting (e.g. delete an object the command made for
 * itself): run once, given at most `maxMs` (CLEANUP_MS by default); a second ^C exits at once.
 * Undefined forgets it.
 */
export function setInterruptCleanup(
  c: (() => Promise<unknown>) | undefined,
  maxMs: number = CLEANUP_MS,
): void {
  cleanup = c;
  cleanupMs = maxMs;
}

/** Something to clear on ^C (a spinner, a prompt); returns the function that forgets it. */
export function clearOnInterrupt(thing: Clearable): () => void {
  onScreen.add(thing);
  return () => onScreen.delete(thing);
}

/** The line printed on ^C. */
export function interruptMessage(): string {
  let extra: string | undefined;
  try {
    extra = hint?.();
  } catch {
    extra = undefined;
  }
  return `interrupted${extra ? `: ${extra}` : ''}`;
}

/** How long ^C waits for stdout and stderr to drain: ^C must always end the command promptly. */
const INTERRUPT_DRAIN_MS = 1000;

/**
 * Clears the screen state, prints the interrupted line and exits 130. Output still waiting for
 * a slow pipe gets at most a second (the command goes on meanwhile, so the wait is short and
 * only when something is pending; a terminal never has anything pending); a second ^C exits
 * at once.
 */
export function interrupted(): void {
  if (exiting) process.exit(EXIT_INTERRUPTED);
  {
    exiting = true;
    for (const t of onScreen) {
      try {
        t.stop();
      } catch {
        // the exit matters more than a clean screen
      }
    }
    // A spinner or prompt may have left the cursor mid-line (the terminal echoed ^C there).
    process.stderr.write(`\n${interruptMessage()}\n`);
    // Show the cursor again (ora hides it); harmless when it was never hidden.
    if (process.stderr.isTTY) process.stderr.write('\u001b[?25h');
  }
  const undo = cleanup;
  cleanup = undefined;
  if (undo) {
    let timer: NodeJS.Timeout | undefined;
    void Promise.race([
      Promise.resolve()
        .then(undo)
        .catch((e: unknown) =>
          process.stderr.write(`cleanup failed: ${(e as Error)?.message ?? String(e)}\n`),
        )
        .then(() => 'done'),
      new Promise((r) => (timer = setTimeout(() => r('timeout'), cleanupMs))),
    ]).then((how) => {
      clearTimeout(timer);
      if (how === 'timeout')
        process.stderr.write(
          `gave up waiting after ${Math.round(cleanupMs / 1000)}s for the work to finish\n`,
        );
      exitNow();
    });
    return;
  }
  exitNow();
}

function exitNow(): void {
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0)
    process.exit(EXIT_INTERRUPTED);
  void exitWhenFlushed(EXIT_INTERRUPTED, { maxWaitMs: INTERRUPT_DRAIN_MS });
}

/**
 * Installs the SIGINT handler once per process. Commands with their own shutdown (inv watch
 * drains and releases its Lease) do not call it.
 */
export function exitOnInterrupt(): void {
  if (installed) return;
  installed = true;
  process.on('SIGINT', () => interrupted());
}
