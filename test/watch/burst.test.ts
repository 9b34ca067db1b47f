// `inv watch` in process against the real API server, under a burst: 1,000 Pod creates, then
// one deletecollection of them, cost only a handful of rebuilds (the coalescing delay), with a
// daemon of its own on a namespace of its own.
import assert from 'node:assert/strict';
import { podSpec, setupEnv, type Env } from '../inventory/helpers.js';
import { newNamespace } from '../support/kube.js';
import { inventory, logRecords, rebuildCount, startDaemon, until, type InProcessDaemon } from './helpers.js';

/** The rebuild count once it is quiet: the same on two readings 1.5 s apart. */
async function rebuildsSettled(d: InProcessDaemon): Promise<number> {
  let last = -1;
  await until(
    'rebuilds to settle',
    async () => {
      const n = await rebuildCount(d);
      const quiet = n === last;
      last = n;
      return quiet;
    },
    20_000,
    1500,
  );
  return last;
}

describe('inv watch under a burst (in process, real API server)', function () {
  this.timeout(120_000);
  let env: Env;

  before(async () => {
    env = await setupEnv();
  });

  it('turns a burst of 1,000 Pod events into a handful of rebuilds', async () => {
    const burst = await newNamespace('watch-burst');
    const b = await startDaemon(env.kc, { namespaces: [burst] });
    try {
      // The controller has started its term (it takes events from here on) over an empty namespace.
      await until('the controller to start', () =>
        logRecords(b).some((r) => r.msg === 'caches synced; rebuilding every namespace once'),
      );
      const before = await rebuildCount(b);
      const t0 = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < 1000) {
            const i = next++;
            await env.core.createNamespacedPod({
              namespace: burst,
              body: { metadata: { name: `p${i}` }, spec: podSpec([`burst${i % 10}:1`]) },
            });
          }
        }),
      );
      const createMs = Date.now() - t0;
      await until('all 1,000 Pods cached', () => b.daemon.cache.sizes().Pod === 1000, 30_000);
      // When the last event reached the daemon: on a loaded machine the watch lags the creates.
      const arrivedMs = Date.now() - t0;
      await until(
        '10 Images',
        async () => Object.keys(await inventory(env.rest, burst)).length === 10,
        10_000,
      );
      const rebuilds = (await rebuildsSettled(b)) - before;
      console.log(`      1,000 Pods created in ${createMs} ms (32 concurrent) -> ${rebuilds} rebuilds`);
      // A rebuild starts only after 200 ms without an event in the namespace (or after 2 s of
      // events without such a pause), so rebuilds are at least about 200 ms apart: on an idle
      // machine 3 s of events give a handful; a loaded machine delivers the burst in clumps over
      // tens of seconds, each pause a rebuild. Either way 1,000 events never take more than 100.
      const spanMs = Math.max(createMs, arrivedMs);
      const bound = Math.min(100, Math.ceil(spanMs / 200) + 2);
      assert.ok(rebuilds >= 1 && rebuilds <= bound, `expected 1..${bound} rebuilds, got ${rebuilds}`);

      // The same for a delete burst: one deletecollection call.
      const before2 = await rebuildCount(b);
      const t1 = Date.now();
      await env.core.deleteCollectionNamespacedPod({ namespace: burst, gracePeriodSeconds: 0 });
      await until('Pods gone from cache', () => b.daemon.cache.sizes().Pod === 0, 30_000);
      const deleteMs = Date.now() - t1;
      await until(
        'Images gone',
        async () => Object.keys(await inventory(env.rest, burst)).length === 0,
        10_000,
      );
      const rebuilds2 = (await rebuildsSettled(b)) - before2;
      console.log(`      1,000 Pods deleted (one deletecollection) -> ${rebuilds2} rebuilds`);
      const bound2 = Math.ceil(deleteMs / 2000) + 2;
      assert.ok(rebuilds2 >= 1 && rebuilds2 <= bound2, `expected 1..${bound2} rebuilds, got ${rebuilds2}`);
    } finally {
      await b.stop();
    }
  });
});
