// A change is not queued behind a bulk pass, against the real API server: the daemon's first build
// (every namespace at low priority) runs slowly under a tight write limit on one worker, and a
// Deployment created meanwhile in another namespace is rebuilt next, while most of the first
// build is still waiting (with a plain FIFO it would come after all of it).
import assert from 'node:assert/strict';
import { TokenBucket } from '../../src/core/kube/rate-limit.js';
import { newNamespace } from '../support/kube.js';
import { podSpec, setupEnv, template } from '../inventory/helpers.js';
import { inventory, logRecords, startDaemon, until } from './helpers.js';

describe('inv watch work-queue priority (real API server)', function () {
  this.timeout(90_000);

  it('rebuilds a namespace changed during the first build before the rest of the first build', async () => {
    const env = await setupEnv();
    const bulk = await Promise.all(Array.from({ length: 12 }, () => newNamespace('prio-bulk')));
    const changed = await newNamespace('prio-change');
    await Promise.all(
      bulk.map((ns) =>
        env.core.createNamespacedPod({
          namespace: ns,
          body: { metadata: { name: 'p' }, spec: podSpec(['bulk:1']) },
        }),
      ),
    );
    // Each bulk namespace needs 2 writes (create, status): at 3 per second, ~8 s of first build.
    const d = await startDaemon(env.kc, {
      namespaces: [...bulk, changed],
      workers: 1,
      rest: { writeLimiter: new TokenBucket({ qps: 3, burst: 1 }) },
    });
    try {
      await until('the first build to start', () =>
        logRecords(d).some((r) => r.msg === 'rebuilding namespace' && bulk.includes(r.namespace as string)),
      );
      await env.apps.createNamespacedDeployment({
        namespace: changed,
        body: {
          metadata: { name: 'web' },
          spec: { selector: { matchLabels: { app: 'web' } }, template: template('web', ['changed:1']) },
        },
      });
      await until('the changed namespace rebuilt', () =>
        logRecords(d).some((r) => r.msg === 'namespace rebuilt' && r.namespace === changed),
      );
      const recs = logRecords(d);
      const enq = recs.findIndex((r) => r.msg === 'enqueue' && r.namespace === changed);
      const start = recs.findIndex((r) => r.msg === 'rebuilding namespace' && r.namespace === changed);
      const bulkStarts = (from: number, to = Infinity, all = recs) =>
        all.filter(
          (r, i) =>
            i > from && i < to && r.msg === 'rebuilding namespace' && bulk.includes(r.namespace as string),
        ).length;
      assert.ok(enq >= 0 && start > enq);
      // Between the event and its rebuild: its 200 ms coalescing window and the rebuild in flight.
      const between = bulkStarts(enq, start);
      assert.ok(between <= 3, `${between} first-build rebuilds went ahead of the change`);
      await until(
        'every Image',
        async () => {
          const all = await Promise.all([...bulk, changed].map((ns) => inventory(env.rest, ns)));
          return all.every((inv) => Object.keys(inv).length === 1);
        },
        60_000,
      );
      // With a plain FIFO, none would come after it: the change overtook first-build work.
      const after = bulkStarts(start, Infinity, logRecords(d));
      assert.ok(after >= 3, `${between} first-build rebuilds went ahead of the change, ${after} after it`);
      process.stderr.write(
        `      (first-build rebuilds ahead of the change: ${between}, behind it: ${after})\n`,
      );
    } finally {
      await d.stop();
      env.rest.close();
    }
  });
});
