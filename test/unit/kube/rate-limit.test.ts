// Pure: the write token bucket (src/core/kube/rate-limit.ts) on an injected clock.
import assert from 'node:assert/strict';
import { TokenBucket } from '../../../src/core/kube/rate-limit.js';

describe('write rate limit (token bucket)', () => {
  it('a burst goes at once; then one write per 1/qps, each reserved in arrival order', () => {
    let t = 0;
    const b = new TokenBucket({ qps: 10, burst: 3, now: () => t });
    assert.deepEqual(
      [b.reserve(), b.reserve(), b.reserve()].map((ms) => Math.round(ms)),
      [0, 0, 0],
    );
    // The 4th, 5th, 6th writer wait 100, 200, 300 ms: never faster than qps after the burst.
    assert.deepEqual(
      [b.reserve(), b.reserve(), b.reserve()].map((ms) => Math.round(ms)),
      [100, 200, 300],
    );
    t = 1300; // the reservations are paid off, and the bucket has refilled 0.. up to burst
    assert.equal(Math.round(b.reserve()), 0);
  });

  it('refills at qps up to burst, never above it', () => {
    let t = 0;
    const b = new TokenBucket({ qps: 2, burst: 2, now: () => t });
    b.reserve();
    b.reserve();
    t = 60_000; // a long quiet period refills 2 tokens, not 120
    assert.deepEqual([b.reserve(), b.reserve()].map(Math.round), [0, 0]);
    assert.equal(Math.round(b.reserve()), 500);
  });

  it('a writer that gives up waiting returns its token', async () => {
    let t = 0;
    const b = new TokenBucket({ qps: 1, burst: 1, now: () => t });
    await b.take();
    const ctl = new AbortController();
    const waiting = b.take(ctl.signal);
    ctl.abort(new Error('stop'));
    await assert.rejects(waiting, /stop/);
    t = 1000; // the next one waits only for the refill, not behind the abandoned reservation
    assert.equal(Math.round(b.reserve()), 0);
  });

  it('refuses a rate of 0 or a burst below 1', () => {
    assert.throws(() => new TokenBucket({ qps: 0, burst: 1 }), /qps must be above 0/);
    assert.throws(() => new TokenBucket({ qps: 5, burst: 0 }), /burst must be 1 or more/);
  });
});
