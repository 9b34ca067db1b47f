// The daemon's protected set for * prunes comes from its informer cache: the same answer as a
// fresh scan of the cluster (workloads by the inventory's rules, plus Image resources), without
// a LIST; with a --namespaces filter the cache is partial, so it falls back to the fresh scan.
import assert from 'node:assert/strict';
import { CacheProtection, ScanProtection } from '../../src/core/erase/worker/inventory-protection.js';
import { buildProtectedSet } from '../../src/core/contract/protected-set.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { setupEnv, template, type Env } from '../inventory/helpers.js';
import { newNamespace } from '../support/kube.js';
import { startDaemon, until, type InProcessDaemon } from './helpers.js';

describe('inv watch: the protected set of a * prune from the cache (real API server)', function () {
  this.timeout(120_000);
  let env: Env;
  let d: InProcessDaemon | undefined;
  before(async () => {
    env = await setupEnv();
  });
  after(async () => {
    await d?.stop();
    env.rest.close();
  });

  it("matches a fresh scan, and names a Deployment at 0 and a suspended CronJob's images", async () => {
    const ns = await newNamespace('prot');
    await env.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'idle' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'idle' } },
          template: template('idle', ['idle:1']),
        },
      },
    });
    await env.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name: 'nightly' },
        spec: {
          schedule: '0 3 * * *',
          suspend: true,
          jobTemplate: {
            spec: {
              template: { spec: { containers: [{ name: 'c', image: 'batch:2' }], restartPolicy: 'Never' } },
            },
          },
        },
      },
    });
    d = await startDaemon(env.kc, { erase: undefined });
    const rest = new KubeRest(env.kc);
    const calls: string[] = [];
    rest.onRequest = (m, p) => calls.push(`${m} ${p}`);
    const cache = new CacheProtection(d.daemon.cache, rest);
    assert.equal(cache.describe, "the daemon's cache");
    await until('the cache has both workloads', async () => {
      const set = buildProtectedSet(await cache.uses());
      return set.has('docker.io/library/idle:1') && set.has('docker.io/library/batch:2');
    });
    const fromCache = buildProtectedSet(await cache.uses());
    assert.deepEqual(calls, [], 'no request: the cache answers');
    const fromScan = buildProtectedSet(await new ScanProtection(env.rest).uses());
    // An Image resource of the namespace protects its image too; whether one has been written
    // (and seen by the cache, and by the scan a moment later) is a race this test does not
    // decide, so the workloads' part of each reason is what is compared.
    const workloads = (reason: string | undefined) => reason?.replace(`, Image in ${ns}`, '');
    assert.equal(workloads(fromCache.get('docker.io/library/idle:1')), `referenced by Deployment in ${ns}`);
    assert.equal(workloads(fromCache.get('docker.io/library/batch:2')), `referenced by CronJob in ${ns}`);
    for (const ref of ['docker.io/library/idle:1', 'docker.io/library/batch:2'])
      assert.equal(workloads(fromScan.get(ref)), workloads(fromCache.get(ref)), ref);
    rest.close();
  });

  it('falls back to a fresh scan when the daemon watches only some namespaces', async () => {
    await d?.stop();
    const ns = await newNamespace('prot-scoped');
    d = await startDaemon(env.kc, { namespaces: [ns] });
    const cache = new CacheProtection(d.daemon.cache, env.rest);
    assert.equal(cache.describe, 'a fresh scan of the cluster');
    const set = buildProtectedSet(await cache.uses());
    assert.ok(set.has('docker.io/library/idle:1'), 'a namespace outside the filter is still protected');
  });
});
