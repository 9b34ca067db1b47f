// Unit tests of the work queue and rate limiters: the client-go semantics the daemon relies on
// (dedup, one key never in flight twice, dirty re-queue, backoff, drain) and burst coalescing.
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from '../../src/core/controller/rate-limiter.js';
import { WorkQueue, runWorkers } from '../../src/core/controller/workqueue.js';
import { PRIORITY_LOW } from '../../src/core/controller/priority-fifo.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pending = Symbol('pending');
/** Resolves with the promise's value, or `pending` if it has not settled within `ms`. */
const settledWithin = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, sleep(ms).then(() => pending as typeof pending)]);

async function until(cond: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(2);
  }
}

describe('WorkQueue', () => {
  it('deduplicates keys that are waiting', async () => {
    const q = new WorkQueue();
    q.add('a/_');
    q.add('b/_');
    q.add('a/_');
    q.add('a/_');
    assert.equal(q.len(), 2);
    assert.deepEqual(q.stats, { adds: 2, coalesced: 2, retries: 0 });
    assert.equal(await q.get(), 'a/_');
    assert.equal(await q.get(), 'b/_');
    assert.equal(q.len(), 0);
    q.shutDown();
  });

  it('never hands out a key that is in flight, and re-queues it once after done()', async () => {
    const q = new WorkQueue();
    q.add('a/_');
    assert.equal(await q.get(), 'a/_');
    for (let i = 0; i < 5; i++) q.add('a/_'); // added while processing: marked dirty only
    assert.equal(q.len(), 0);
    const next = q.get();
    assert.equal(await settledWithin(next, 20), pending, 'a dirty key must wait for done()');
    q.done('a/_');
    assert.equal(await next, 'a/_');
    assert.equal(q.len(), 0, 're-queued exactly once');
    q.done('a/_');
    assert.equal(await settledWithin(q.get(), 20), pending, 'nothing left after the second done()');
    assert.deepEqual(q.stats, { adds: 2, coalesced: 4, retries: 0 });
    q.shutDown();
  });

  it('serves waiting get() calls in order as keys arrive', async () => {
    const q = new WorkQueue();
    const g1 = q.get();
    const g2 = q.get();
    q.add('x/_');
    q.add('y/_');
    assert.deepEqual(await Promise.all([g1, g2]), ['x/_', 'y/_']);
    q.shutDown();
  });

  it('addAfter delays a key and keeps only the earliest pending time', async () => {
    const q = new WorkQueue();
    q.addAfter('a/_', 200);
    q.addAfter('a/_', 30); // earlier: replaces
    q.addAfter('a/_', 500); // later: ignored
    assert.equal(q.len(), 0);
    const started = Date.now();
    assert.equal(await q.get(), 'a/_');
    const waited = Date.now() - started;
    assert.ok(waited >= 25 && waited < 190, `waited ${waited} ms`);
    q.done('a/_');
    // A barrier due after both dropped delays (200 and 500 ms): delayed keys come out in due
    // order, so if either had been kept it would be handed out first.
    q.addAfter('barrier/_', 600);
    assert.equal(await q.get(), 'barrier/_', 'the replaced and ignored delays added nothing');
    q.done('barrier/_');
    assert.equal(q.len(), 0);
    q.shutDown();
  });

  it('addRateLimited backs off exponentially per key, and forget() resets it', async () => {
    const q = new WorkQueue({ rateLimiter: new ItemExponentialFailureRateLimiter(20, 1000) });
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      q.addRateLimited('a/_');
      assert.equal(await q.get(), 'a/_');
      delays.push(Date.now() - started);
      q.done('a/_');
    }
    assert.equal(q.numRequeues('a/_'), 3);
    assert.equal(q.stats.retries, 3);
    // 20, 40, 80 ms (timers may fire a little late, never early).
    assert.ok(delays[0]! >= 18 && delays[1]! >= 38 && delays[2]! >= 78, `delays ${delays.join(',')}`);
    assert.ok(delays[2]! > delays[0]!, `delays ${delays.join(',')}`);
    q.forget('a/_');
    assert.equal(q.numRequeues('a/_'), 0);
    const started = Date.now();
    q.addRateLimited('a/_');
    await q.get();
    assert.ok(Date.now() - started < 70, 'back to the base delay after forget()');
    q.shutDown();
  });

  it('shutDown releases waiting get() calls and ignores later adds', async () => {
    const q = new WorkQueue();
    const g = q.get();
    q.addAfter('late/_', 10);
    q.shutDown();
    assert.equal(await g, undefined);
    q.add('a/_');
    assert.equal(q.len(), 0);
    assert.equal(await q.get(), undefined);
    // Node fires timers of equal duration in the order they were set: this one runs after the
    // queue's 10 ms timer for late/_, so the check below sees what that timer did.
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(q.len(), 0, 'delayed keys are dropped');
  });

  it('shutDownWithDrain waits for keys in flight to be done', async () => {
    const q = new WorkQueue();
    q.add('a/_');
    q.add('b/_');
    assert.equal(await q.get(), 'a/_');
    q.add('a/_'); // dirty while in flight: must not come back after shutdown
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    // The drain resolves only from done(): once the microtask queue is flushed it has not.
    await tick();
    assert.equal(drained, false, 'a/_ is still in flight');
    assert.equal(await q.get(), undefined, 'no new work after shutdown, b/_ is dropped');
    q.done('a/_');
    await drain;
    assert.equal(q.len(), 0);
    assert.equal(q.inFlight(), 0);
  });

  it('serves a normal-priority key before low-priority ones, once, and re-queues an in-flight key at its highest priority', async () => {
    const queued: string[] = [];
    const q = new WorkQueue({ hooks: { onQueued: (k) => queued.push(k) } });
    for (const k of ['a/_', 'b/_', 'c/_']) q.add(k, PRIORITY_LOW);
    assert.equal(await q.get(), 'a/_');
    q.add('c/_'); // a change to a namespace the bulk pass has not reached: moves up
    q.add('a/_', PRIORITY_LOW); // in flight: dirty, at low priority...
    q.add('a/_'); // ...then at normal: done() re-queues it at normal
    assert.equal(q.len(), 2);
    q.done('a/_');
    q.add('d/_', PRIORITY_LOW);
    const order = [];
    for (let i = 0; i < 4; i++) {
      const k = (await q.get())!;
      order.push(k);
      q.done(k);
    }
    assert.deepEqual(order, ['c/_', 'a/_', 'b/_', 'd/_']);
    assert.equal(q.len(), 0);
    assert.deepEqual(queued, ['a/_', 'c/_', 'a/_', 'b/_', 'd/_'], 'one queue-duration report per hand-out');
    q.shutDown();
  });

  it('reports depth, adds and retries through hooks', async () => {
    const depths: number[] = [];
    let adds = 0;
    let retries = 0;
    const q = new WorkQueue({
      rateLimiter: new ItemExponentialFailureRateLimiter(1, 10),
      hooks: { onAdd: () => adds++, onDepth: (d) => depths.push(d), onRetry: () => retries++ },
    });
    q.add('a/_');
    q.add('b/_');
    q.add('a/_');
    await q.get();
    q.addRateLimited('a/_');
    assert.deepEqual([adds, retries], [2, 1]);
    assert.deepEqual(depths, [1, 2, 1]);
    q.shutDown();
  });
});

describe('rate limiters', () => {
  it('ItemExponentialFailureRateLimiter doubles per failure up to the max, per key', () => {
    const rl = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    assert.deepEqual(
      Array.from({ length: 6 }, () => rl.when('a')),
      [5, 10, 20, 40, 80, 160],
    );
    assert.equal(rl.when('b'), 5, 'keys back off independently');
    for (let i = 0; i < 100; i++) rl.when('a');
    assert.equal(rl.when('a'), 1_000_000, 'capped at the max (1000 s)');
    assert.equal(rl.numRequeues('a'), 107);
    rl.forget('a');
    assert.equal(rl.numRequeues('a'), 0);
    assert.equal(rl.when('a'), 5);
  });

  it('BucketRateLimiter allows a burst, then spaces requests at 1/qps', () => {
    let now = 0;
    const rl = new BucketRateLimiter(10, 2, () => now);
    assert.deepEqual(
      [rl.when('a'), rl.when('b'), rl.when('c'), rl.when('d')].map(Math.round),
      [0, 0, 100, 200],
    );
    now = 1000; // 10 tokens refilled, capped at the burst of 2 after repaying the debt of 2
    assert.deepEqual([rl.when('a'), rl.when('a'), rl.when('a')].map(Math.round), [0, 0, 100]);
  });

  it('MaxOfRateLimiter takes the longest delay and feeds every limiter', () => {
    let now = 0;
    const rl = new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter(5, 1000),
      new BucketRateLimiter(1, 1, () => now),
    );
    assert.equal(rl.when('a'), 5); // bucket: 0
    assert.equal(Math.round(rl.when('a')), 1000); // bucket: in debt 1 s; backoff 10
    assert.equal(rl.numRequeues('a'), 2);
    rl.forget('a');
    assert.equal(rl.numRequeues('a'), 0);
    now = 10_000;
    assert.equal(rl.when('a'), 5);
    assert.equal(defaultControllerRateLimiter().when('x'), 5);
  });
});

describe('runWorkers', () => {
  it('coalesces a burst of 1,000 adds of one key during a slow reconcile into a handful of reconciles', async () => {
    const q = new WorkQueue();
    let reconciles = 0;
    let running = 0;
    let maxRunning = 0;
    const workers = runWorkers(q, 4, async () => {
      reconciles++;
      maxRunning = Math.max(maxRunning, ++running);
      await sleep(50);
      running--;
    });
    // Spread the burst over the first reconcile, as watch events would arrive.
    for (let i = 0; i < 1000; i++) {
      q.add('team-a/_');
      if (i % 100 === 99) await tick();
    }
    await until(() => q.len() === 0 && q.inFlight() === 0);
    // Nothing is waiting or in flight, and add() is synchronous: no further reconcile can come.
    q.shutDown();
    await workers;
    assert.ok(reconciles >= 1 && reconciles <= 3, `${reconciles} reconciles`);
    assert.equal(maxRunning, 1, 'one key is never reconciled concurrently, even with 4 workers');
    assert.ok(q.stats.adds <= 3, `${q.stats.adds} accepted adds`);
  });

  it('never runs one key twice at once, while different keys run in parallel', async () => {
    const q = new WorkQueue();
    const active = new Set<string>();
    let overlap = false;
    let maxParallel = 0;
    const counts = new Map<string, number>();
    const workers = runWorkers(q, 4, async (key) => {
      if (active.has(key)) overlap = true;
      active.add(key);
      maxParallel = Math.max(maxParallel, active.size);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      await sleep(10);
      active.delete(key);
    });
    for (let round = 0; round < 10; round++) {
      for (const k of ['a/_', 'b/_', 'c/_', 'd/_']) q.add(k);
      await sleep(3);
    }
    await until(() => q.len() === 0 && q.inFlight() === 0);
    await q.shutDownWithDrain();
    await workers;
    assert.equal(overlap, false);
    assert.ok(maxParallel > 1, 'different keys ran in parallel');
    for (const k of ['a/_', 'b/_', 'c/_', 'd/_']) assert.ok((counts.get(k) ?? 0) >= 1, k);
  });

  it('retries failures with backoff and forgets the key after a success', async () => {
    const q = new WorkQueue({ rateLimiter: new ItemExponentialFailureRateLimiter(5, 100) });
    const attempts: number[] = [];
    const errors: number[] = [];
    const workers = runWorkers(
      q,
      1,
      async () => {
        attempts.push(Date.now());
        if (attempts.length < 3) throw new Error('conflict');
      },
      { onError: (_key, _err, requeues) => errors.push(requeues) },
    );
    q.add('a/_');
    await until(() => attempts.length === 3 && q.inFlight() === 0);
    assert.deepEqual(errors, [0, 1]);
    assert.equal(q.numRequeues('a/_'), 0, 'forgotten after success');
    assert.equal(q.stats.retries, 2);
    q.shutDown();
    await workers;
  });

  it('drops a key after maxRetries consecutive failures', async () => {
    const q = new WorkQueue({ rateLimiter: new ItemExponentialFailureRateLimiter(1, 5) });
    let attempts = 0;
    const workers = runWorkers(
      q,
      2,
      async (key) => {
        if (key === 'barrier/_') return void (barrierDone = true);
        attempts++;
        throw new Error('always');
      },
      { maxRetries: 2 },
    );
    let barrierDone = false;
    q.add('a/_');
    await until(() => attempts === 3 && q.inFlight() === 0);
    // A barrier due after the longest backoff (5 ms): a 4th attempt would have been handed out first.
    q.addAfter('barrier/_', 20);
    await until(() => barrierDone && q.inFlight() === 0);
    assert.equal(attempts, 3, 'first try plus 2 retries');
    assert.equal(q.numRequeues('a/_'), 0);
    q.shutDown();
    await workers;
  });

  it('shutDownWithDrain lets the reconcile in flight finish, then the workers return', async () => {
    const q = new WorkQueue();
    let finished = false;
    const workers = runWorkers(q, 2, async () => {
      await sleep(40);
      finished = true;
    });
    q.add('a/_');
    await until(() => q.inFlight() === 1);
    await q.shutDownWithDrain();
    assert.equal(finished, true);
    await workers;
  });
});
