// The reconcile contract (src/core/controller/reconcile.ts): a result with requeueAfter comes
// back after that delay; a thrown error is retried with exponential backoff; a TerminalError is
// not retried; a TerminalError wrapping a transport error, a 5xx or a 429 is retried anyway.
import assert from 'node:assert/strict';
import {
  isTerminal,
  runReconciler,
  TerminalError,
  type ReconcileResult,
} from '../../../src/core/controller/reconcile.js';
import { ItemExponentialFailureRateLimiter } from '../../../src/core/controller/rate-limiter.js';
import { WorkQueue } from '../../../src/core/controller/workqueue.js';
import { KubeApiError, KubeTransportError } from '../../../src/core/kube/rest.js';

/** Runs one key through runReconciler until `stopWhen` says so; returns the call times. */
async function drive(
  fn: (attempt: number) => Promise<ReconcileResult>,
  stopWhen: (calls: number[]) => boolean,
  terminal: unknown[] = [],
): Promise<number[]> {
  const queue = new WorkQueue({ rateLimiter: new ItemExponentialFailureRateLimiter(20, 10_000) });
  const ctl = new AbortController();
  const calls: number[] = [];
  let stopped = false;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r)).then(() => {
    stopped = true;
  });
  const running = runReconciler(
    queue,
    {
      reconcile: async () => {
        calls.push(Date.now());
        try {
          return await fn(calls.length);
        } finally {
          if (stopWhen(calls)) done();
        }
      },
    },
    { signal: ctl.signal, workers: 1, onTerminal: (_, e) => terminal.push(e) },
  );
  queue.add('k');
  // Either the stop condition, or the key is forgotten (terminal) and the queue idles.
  await Promise.race([
    finished,
    (async () => {
      while (!stopped) {
        await new Promise((r) => setTimeout(r, 20));
        if (terminal.length && queue.len() === 0 && queue.inFlight() === 0) return;
      }
    })(),
  ]);
  ctl.abort();
  await queue.shutDownWithDrain();
  await running;
  return calls;
}

describe('reconcile contract', () => {
  it('requeueAfter brings the key back after the delay', async () => {
    const calls = await drive(
      async () => ({ requeueAfter: 150 }),
      (c) => c.length === 2,
    );
    assert.ok(calls[1]! - calls[0]! >= 140, `came back after ${calls[1]! - calls[0]!} ms`);
  });

  it('a thrown error is retried with exponential backoff', async () => {
    const calls = await drive(
      async () => {
        throw new Error('boom');
      },
      (c) => c.length === 5,
    );
    const gaps = calls.slice(1).map((t, i) => t - calls[i]!);
    // 20, 40, 80, 160 ms: each wait about twice the one before.
    assert.ok(gaps[3]! >= 1.5 * gaps[1]!, `gaps ${gaps.join(', ')}`);
    assert.ok(gaps[3]! >= 150, `gaps ${gaps.join(', ')}`);
  });

  it('a TerminalError is not retried', async () => {
    const terminal: unknown[] = [];
    const calls = await drive(
      async () => {
        throw new TerminalError('bad request');
      },
      () => false,
      terminal,
    );
    assert.equal(calls.length, 1);
    assert.equal(terminal.length, 1);
  });

  it('transport errors, 5xx and 429 are never terminal, even wrapped', () => {
    const transport = new KubeTransportError('GET /x: reset', 'GET', '/x', 'ECONNRESET');
    const e503 = new KubeApiError(503, 'ServiceUnavailable', 'down', 'GET', '/x');
    const e429 = new KubeApiError(429, 'TooManyRequests', 'slow down', 'GET', '/x');
    for (const cause of [transport, e503, e429])
      assert.equal(isTerminal(new TerminalError('wrapped', { cause })), false, cause.message);
    assert.equal(
      isTerminal(new TerminalError('bad', { cause: new KubeApiError(422, 'Invalid', 'x', 'POST', '/x') })),
      true,
    );
    assert.equal(isTerminal(new Error('plain')), false);
  });

  it('a TerminalError wrapping a transient error is retried', async () => {
    const calls = await drive(
      async (n) => {
        if (n < 3)
          throw new TerminalError('wrapped', { cause: new KubeTransportError('x', 'GET', '/x', 'deadline') });
        return {};
      },
      (c) => c.length === 3,
    );
    assert.equal(calls.length, 3);
  });
});
