// The informers' retry delays (src/core/controller/backoff.ts), with client-go's reflector parameters.
import assert from 'node:assert/strict';
import { Backoff } from '../../../src/core/controller/backoff.js';

describe('informer backoff', () => {
  it('doubles from 800 ms to a 30 s cap with jitter in [d, 2d), and resets after 2 quiet minutes', () => {
    let now = 0;
    const b = new Backoff(800, 30_000, 120_000, () => now);
    for (const base of [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]) {
      const w = b.next();
      assert.ok(w >= base && w < 2 * base, `wait ${w} for base ${base}`);
      now += w;
    }
    now += 120_001;
    const w = b.next();
    assert.ok(w >= 800 && w < 1600, `after a quiet spell: ${w}`);
    b.next();
    b.reset();
    const r = b.next();
    assert.ok(r >= 800 && r < 1600, `after a reset: ${r}`);
  });
});
