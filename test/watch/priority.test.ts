// A change is not queued behind other work, against the real API server. The daemon runs one
// worker under a tight write limit, so each namespace's rebuild takes a while, and a Deployment
// created meanwhile in another namespace must be rebuilt next:
//   - behind a bulk pass: the daemon's first build (every namespace at low priority);
//   - behind Pod churn: naked Pods, each bringing an image its namespace has no Image for (events
//     at the normal priority, below a workload's).
// With a plain FIFO at one priority, the change would come after all of that work.
import assert from 'node:assert/strict';
import { TokenBucket } from '../../src/core/kube/rate-limit.js';
import { newNamespace } from '../support/kube.js';
import { podSpec, setupEnv, template, type Env } from '../inventory/helpers.js';
import { inventory, logRecords, startDaemon, until } from './helpers.js';

/**
 * Starts the daemon over `others` and a fresh namespace, runs `load` (which makes work in each of
 * `others`), waits until that work is being rebuilt, creates a Deployment in the fresh namespace,
 * and returns how many of `others`' rebuilds started between the Deployment's event and its
 * rebuild, and after it.
 */
async function overtakes(
  env: Env,
  prefix: string,
  before: (ns: string[]) => Promise<void>,
  load: (ns: string[]) => Promise<void>,
): Promise<{ between: number; after: number }> {
  const others = await Promise.all(Array.from({ length: 12 }, () => newNamespace(`${prefix}-other`)));
  const changed = await newNamespace(`${prefix}-change`);
  await before(others);
  // Each other namespace needs 1 write (a create with its status): at 1.5 per second, ~8 s of work.
  const d = await startDaemon(env.kc, {
    namespaces: [...others, changed],
    workers: 1,
    rest: { writeLimiter: new TokenBucket({ qps: 1.5, burst: 1 }) },
  });
  try {
    await load(others);
    await until('the other namespaces being rebuilt', () =>
      logRecords(d).some((r) => r.msg === 'rebuilding namespace' && others.includes(r.namespace as string)),
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
    const starts = (from: number, all = recs, to = Infinity) =>
      all.filter(
        (r, i) =>
          i > from && i < to && r.msg === 'rebuilding namespace' && others.includes(r.namespace as string),
      ).length;
    assert.ok(enq >= 0 && start > enq);
    await until(
      'every Image',
      async () => {
        const all = await Promise.all([...others, changed].map((ns) => inventory(env.rest, ns)));
        return all.every((inv) => Object.keys(inv).length === 1);
      },
      60_000,
    );
    return { between: starts(enq, recs, start), after: starts(start, logRecords(d)) };
  } finally {
    await d.stop();
  }
}

const naked = (env: Env, image: string) => (nss: string[]) =>
  Promise.all(
    nss.map((ns) =>
      env.core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'p' }, spec: podSpec([image]) },
      }),
    ),
  ).then(() => undefined);

describe('inv watch work-queue priority (real API server)', function () {
  this.timeout(90_000);
  let env: Env;
  before(async () => (env = await setupEnv()));
  after(() => env.rest.close());

  // Between the event and its rebuild: its 200 ms coalescing window and the rebuild in flight.
  const check = ({ between, after }: { between: number; after: number }, what: string) => {
    assert.ok(between <= 3, `${between} ${what} rebuilds went ahead of the change`);
    // With a plain FIFO, none would come after it: the change overtook that work.
    assert.ok(after >= 3, `${between} ${what} rebuilds went ahead of the change, ${after} after it`);
    process.stderr.write(`      (${what} rebuilds ahead of the change: ${between}, behind it: ${after})\n`);
  };

  it('rebuilds a namespace changed during the first build before the rest of the first build', async () => {
    check(await overtakes(env, 'prio-bulk', naked(env, 'bulk:1'), async () => {}), 'first-build');
  });

  it('rebuilds a changed workload before namespaces whose Pods brought new images', async () => {
    check(await overtakes(env, 'prio-churn', async () => {}, naked(env, 'churn:1')), 'Pod-event');
  });
});
