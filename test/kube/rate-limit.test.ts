// The write rate limit (--kube-api-qps / --kube-api-burst) against the real API server: a burst of
// writes leaves at `burst`, then at `qps`, as the client sent them (the API server's own answers
// confirm every write landed); reads are never held back; the daemon's Image writes are paced.
import assert from 'node:assert/strict';
import { KubeRest } from '../../src/core/kube/rest.js';
import { TokenBucket } from '../../src/core/kube/rate-limit.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { startDaemon, until } from '../watch/helpers.js';
import { inventory, setupEnv } from '../inventory/helpers.js';

/** Send times (ms) of each write, in order: after the burst, write i goes no earlier than (i - burst + 1) / qps. */
function assertPaced(sent: number[], qps: number, burst: number, t0 = sent[0]!): void {
  for (let i = burst; i < sent.length; i++) {
    const floor = ((i - burst + 1) / qps) * 1000;
    // 5 ms of timer granularity; a loaded machine only makes writes later, never earlier.
    assert.ok(
      sent[i]! - t0 >= floor - 5,
      `write ${i} went at ${Math.round(sent[i]! - t0)} ms, before ${floor} ms`,
    );
  }
}

describe('write rate limit against the real API server', function () {
  this.timeout(60_000);

  it('40 concurrent creates at qps 20, burst 5: 5 at once, then 20 per second; reads unthrottled', async () => {
    const ns = await newNamespace('qps');
    const limiter = new TokenBucket({ qps: 20, burst: 5 });
    const rest = new KubeRest(adminConfig(), { writeLimiter: limiter });
    const sent: number[] = [];
    rest.onRequest = (m) => {
      if (m === 'POST') sent.push(performance.now());
    };
    try {
      const start = performance.now();
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
            body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } },
          }),
        ),
      );
      const took = performance.now() - start;
      assert.equal(sent.length, 40);
      // From the moment the writes were asked for (the first ones also wait for credentials).
      assertPaced(sent, 20, 5, start);
      assert.ok(took >= ((40 - 5) / 20) * 1000 - 5, `took ${took} ms`);
      const list = await rest.list<{ metadata: { name: string } }>(`/api/v1/namespaces/${ns}/configmaps`);
      assert.equal(list.items.filter((c) => c.metadata.name.startsWith('cm-')).length, 40);
      // Reads take no token: 30 GETs leave the bucket's wait count where it was.
      const waited = limiter.waited;
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => rest.get(`/api/v1/namespaces/${ns}/configmaps/cm-${i}`)),
      );
      assert.equal(limiter.waited, waited);
      process.stderr.write(
        `      (40 writes at qps 20 burst 5: ${Math.round(took)} ms; ${limiter.waited} waited ${Math.round(limiter.waitedMs)} ms in all)\n`,
      );
    } finally {
      rest.close();
    }
  });

  it("the daemon's Image writes go through its one bucket (qps 10, burst 2)", async () => {
    const env = await setupEnv();
    const ns = await newNamespace('qpsd');
    const images = Array.from({ length: 16 }, (_, i) => `docker.io/library/paced-${i}:1`);
    await env.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'p' },
        spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
      },
    });
    // When each token is granted, as the bucket scheduled it (the time of its reservation plus
    // its wait), not when the waiting code got to run: under load a continuation runs late,
    // and a late first grant made a later one look early. A write is sent after its grant.
    const grants: number[] = [];
    const limiter = new (class extends TokenBucket {
      override take(signal?: AbortSignal): Promise<void> {
        const taking = super.take(signal); // reserves synchronously, before its first await
        grants.push(this.reservedAt);
        return taking;
      }
      reservedAt = 0;
      override reserve(): number {
        const ms = super.reserve();
        this.reservedAt = performance.now() + Math.max(0, ms);
        return ms;
      }
    })({ qps: 10, burst: 2 });
    const d = await startDaemon(env.kc, { namespaces: [ns], rest: { writeLimiter: limiter } });
    const sent: number[] = [];
    d.daemon.rest.onRequest = (m, p) => {
      if (m !== 'GET' && m !== 'WATCH' && p.includes('/images')) sent.push(performance.now());
    };
    try {
      await until('16 Images', async () => Object.keys(await inventory(env, ns)).length === 16, 30_000);
      assert.equal(d.daemon.rest.writeLimiter, limiter);
      assert.ok(limiter.waited > 0, 'some Image writes waited for a token');
      assertPaced(grants, 10, 2);
      assertPaced(sent, 10, 2, grants[0]);
    } finally {
      await d.stop();
      env.rest.close();
    }
  });
});
