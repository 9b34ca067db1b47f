// Exiting without losing output. On POSIX, Node writes to pipes asynchronously: what a pipe
// cannot take yet (64 KiB when the reader is slow, as in `inv scan -o json | (sleep 1; wc -c)`)
// waits in the process, and process.exit() throws it away. The exits that may leave output behind
// (the error handler, the daemon's shutdown) go through here, so stdout and stderr are drained
// first, as a Go program's blocking writes would be. A few exit at once on purpose: ^C
// (interrupt.ts: after a brief wait, or at once on a second ^C), a second signal to the daemon
// (watch.ts), node-scan stopped by its Pod (node-scan-run.ts) and completion, which must never
// hold a shell (__complete.ts).
//
// A reader that never reads would hold the exit forever, as it would hold kubectl; ^C still
// ends it (interrupt.ts waits only briefly, and a second ^C not at all).

/** Resolves once everything written to `stream` so far has been handed to the OS (or cannot be). */
export function drained(stream: NodeJS.WritableStream & { destroyed?: boolean }): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed) return resolve();
    const done = () => {
      stream.removeListener('error', done);
      stream.removeListener('close', done);
      resolve();
    };
    // A reader that went away (EPIPE) ends the wait instead of crashing the exit.
    stream.on('error', done);
    stream.on('close', done);
    // Writes complete in order: the callback of an empty write runs after every earlier one.
    try {
      stream.write('', () => done());
    } catch {
      done();
    }
  });
}

/**
 * Sets the exit code, waits until stdout and stderr are drained (at most `maxWaitMs`, when
 * given), then exits.
 */
export async function exitWhenFlushed(code: number, opts: { maxWaitMs?: number } = {}): Promise<never> {
  process.exitCode = code;
  const both = Promise.all([drained(process.stdout), drained(process.stderr)]);
  if (opts.maxWaitMs === undefined) await both;
  else {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([both, new Promise<void>((r) => (timer = setTimeout(r, opts.maxWaitMs)))]);
    clearTimeout(timer);
  }
  return process.exit(code);
}
