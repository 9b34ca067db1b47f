// The secure metrics endpoint's review lanes, with reviews that answer when the test says: a
// client's share of reviews, the global bound, and the lane of a token authorized before (which
// no flood of unknown tokens can fill). The real API server's side is test/watch/secure-metrics.
import assert from 'node:assert/strict';
import { MetricsAuthorizer } from '../../src/core/controller/metrics-auth.js';
import type { KubeRest } from '../../src/core/kube/rest.js';

/** A review server that holds each TokenReview until released; "good" tokens are allowed. */
function heldReviews() {
  const held: (() => void)[] = [];
  const rest = {
    request: (_m: string, path: string, o: { body: { spec: { token?: string } } }) =>
      new Promise((resolve) => {
        if (path.includes('subjectaccessreviews')) return resolve({ status: { allowed: true } });
        const good = o.body.spec.token?.startsWith('good') ?? false;
        held.push(() =>
          resolve({ status: { authenticated: good, user: good ? { username: 'prom' } : undefined } }),
        );
      }),
  } as unknown as KubeRest;
  return { rest, releaseAll: () => held.splice(0).forEach((r) => r()) };
}

describe('metrics authorization lanes', () => {
  it('bounds one client, not the others; a known-good token has its own lane', async () => {
    let now = 0;
    const { rest, releaseAll } = heldReviews();
    const auth = new MetricsAuthorizer({
      rest,
      maxConcurrent: 6,
      maxPerClient: 2,
      reservedConcurrent: 1,
      ttlMs: 10,
      now: () => now,
    });
    // The scraper is authorized once, before the flood.
    const first = auth.decide('good-1', 'prom');
    releaseAll();
    assert.equal((await first).status, 200);
    now += 100; // its cached decision expired

    const flood = ['a', 'b', 'c'].map((i) => auth.decide(`bad-${i}`, 'attacker'));
    assert.equal((await flood[2]!).status, 429, "past the client's share: 429 without a review");
    // Other clients fill the rest of the shared lane.
    const others = ['x', 'y', 'z', 'w'].map((c) => auth.decide(`bad-${c}`, c));
    assert.equal((await auth.decide('good-2', 'new-prom')).status, 503, 'the shared lane is full');
    // The scraper authorized before is reviewed in its own lane.
    const again = auth.decide('good-1', 'attacker');
    releaseAll();
    assert.equal((await again).status, 200);
    for (const d of [flood[0]!, flood[1]!, ...others]) assert.equal((await d).status, 401);
    // Slots are given back: the shared lane takes a new client again.
    const later = auth.decide('good-2', 'new-prom');
    releaseAll();
    assert.equal((await later).status, 200);
  });
});
