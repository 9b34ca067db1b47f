// The secure metrics endpoint's review lanes (review-lanes.ts through metrics-auth.ts), with
// reviews that answer when the test says: a client's share of reviews, the lane of a token
// authorized before, the suspect lane a flooding address falls into, and the reviews' own budget.
// The real API server's side is test/watch/secure-metrics and test/watch/metrics-flood.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MetricsAuthorizer } from '../../../src/core/controller/metrics-auth.js';
import { ReviewLanes, REVIEW_LANE_LIMITS } from '../../../src/core/controller/review-lanes.js';
import type { KubeRest } from '../../../src/core/kube/rest.js';
import { CONNECTION_LIMITS } from '../../../src/core/observability/connection-guard.js';
import { repoRoot } from '../../support/paths.js';

/** A review server that holds each TokenReview until released; "good" tokens are allowed. */
function heldReviews() {
  const held: (() => void)[] = [];
  let reviews = 0;
  const rest = {
    request: (_m: string, path: string, o: { body: { spec: { token?: string } } }) =>
      new Promise((resolve) => {
        if (path.includes('subjectaccessreviews')) return resolve({ status: { allowed: true } });
        reviews++;
        const good = o.body.spec.token?.startsWith('good') ?? false;
        held.push(() =>
          resolve({ status: { authenticated: good, user: good ? { username: 'prom' } : undefined } }),
        );
      }),
  } as unknown as KubeRest;
  return { rest, releaseAll: () => held.splice(0).forEach((r) => r()), reviews: () => reviews };
}

describe('metrics authorization lanes', () => {
  it('bounds one client; a flooding address only gets the suspect share; new and known tokens are reviewed', async () => {
    let now = 0;
    const { rest, releaseAll, reviews } = heldReviews();
    const auth = new MetricsAuthorizer({
      rest,
      ttlMs: 10,
      lanes: { maxConcurrent: 6, maxPerClient: 2, reservedConcurrent: 1, suspectConcurrent: 2 },
      now: () => now,
    });
    // The scraper is authorized once, before the flood.
    const first = auth.decide('good-1', 'prom');
    releaseAll();
    assert.equal((await first).status, 200);
    now += 100; // its cached decision expired

    const flood = ['a', 'b', 'c'].map((i) => auth.decide(`bad-${i}`, 'attacker'));
    assert.equal((await flood[2]!).status, 429, "past the client's share: 429 without a review");
    releaseAll();
    for (const d of flood.slice(0, 2)) assert.equal((await d).status, 401);
    assert.equal(auth.lanes.suspect('attacker'), true, 'a failed review marks the address');

    // Now the flood is in the suspect lane: its budget is half the reviews' (burst 20), then 429.
    const asked = reviews();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const d = auth.decide(`bad-more-${i}`, 'attacker');
      releaseAll();
      statuses.push((await d).status);
    }
    const reviewed = reviews() - asked;
    assert.ok(
      reviewed <= REVIEW_LANE_LIMITS.reviewBurst / 2,
      `at most the suspect burst reviewed, got ${reviewed}`,
    );
    assert.equal(statuses.filter((s) => s === 429).length, 200 - reviewed);

    // A new client is reviewed at once: the flood cannot spend the other half.
    const fresh = auth.decide('good-2', 'new-prom');
    releaseAll();
    assert.equal((await fresh).status, 200);
    // The scraper authorized before is reviewed in its own lane, from any address.
    now += 100;
    const again = auth.decide('good-1', 'attacker');
    releaseAll();
    assert.equal((await again).status, 200);
    // Suspicion ends a minute after the last failure.
    now += REVIEW_LANE_LIMITS.suspectMs;
    assert.equal(auth.lanes.suspect('attacker'), false);
  });

  it('the reviews have their own budget: past it, 503 without asking the API server, refilled with time', () => {
    let now = 0;
    const lanes = new ReviewLanes(
      { ...REVIEW_LANE_LIMITS, maxPerClient: 1000, maxConcurrent: 1000 },
      () => now,
    );
    const grants = [];
    for (let i = 0; i < REVIEW_LANE_LIMITS.reviewBurst; i++) {
      const g = lanes.admit(`client-${i}`, false);
      assert.ok('done' in g, `review ${i} admitted`);
      grants.push(g);
    }
    const over = lanes.admit('client-x', false);
    assert.deepEqual('status' in over && over.status, 503);
    now += 1000 / REVIEW_LANE_LIMITS.reviewQps;
    assert.ok('done' in lanes.admit('client-x', false), 'one more after 1/qps');
    // A known token does not need the budget.
    assert.ok('done' in lanes.admit('client-y', true));
  });

  it('docs/daemon.md states the bounds the code has', () => {
    const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'daemon.md'), 'utf8').replace(/\s+/g, ' ');
    const L = REVIEW_LANE_LIMITS;
    const C = CONNECTION_LIMITS;
    for (const phrase of [
      `${L.reviewQps} reviews per second (burst ${L.reviewBurst})`,
      `lane of its own (${L.reservedConcurrent} at once)`,
      `new lane (${L.maxConcurrent} at once)`,
      `suspect lane (${L.suspectConcurrent} at once, half the budget)`,
      `At most ${L.maxPerClient} reviews in flight from one address`,
      `in the last ${L.suspectMs === 60_000 ? 'minute' : `${L.suspectMs} ms`}`,
      `at most ${C.maxConnections} at once and ${C.maxPerAddress} from one address`,
      `handshake must end within ${C.handshakeTimeoutMs / 1000} s`,
      `first request must start within ${C.firstRequestMs / 1000} s`,
      `closed after ${C.keepAliveMs / 1000} s`,
    ])
      assert.ok(doc.includes(phrase), `docs/daemon.md says "${phrase}"`);
  });
});
