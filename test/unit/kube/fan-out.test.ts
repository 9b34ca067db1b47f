// One signal handed to many informers: withFanOut gives them a child signal, so the caller's
// signal carries one listener whatever the number of informers (it carried one per informer, and
// a daemon with --namespaces over many namespaces tripped Node's leak warning), aborts reach every
// listener, and the one listener is gone once the work settles.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { withFanOut, sleep } from '../../../src/core/concurrency.js';

describe('withFanOut: one signal, many listeners', () => {
  it('adds one listener to the caller signal for 500 waiters, and aborts them all', async () => {
    const parent = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const run = withFanOut(parent.signal, async (child) => {
        const waits = Array.from({ length: 500 }, () => sleep(60_000, child));
        assert.equal(getEventListeners(parent.signal, 'abort').length, 1);
        assert.equal(getEventListeners(child, 'abort').length, 500);
        parent.abort(new Error('stop'));
        await Promise.all(waits);
        assert.ok(child.aborted);
        assert.equal((child.reason as Error).message, 'stop');
        return 'done';
      });
      assert.equal(await run, 'done');
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        warnings.filter((w) => w.name === 'MaxListenersExceededWarning'),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('removes its listener when the work settles, and starts aborted under an aborted signal', async () => {
    const parent = new AbortController();
    await withFanOut(parent.signal, async () => undefined);
    assert.equal(getEventListeners(parent.signal, 'abort').length, 0);
    await assert.rejects(
      withFanOut(parent.signal, async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(getEventListeners(parent.signal, 'abort').length, 0);
    parent.abort();
    assert.equal(await withFanOut(parent.signal, async (child) => child.aborted), true);
  });
});
