// A transient network fault in the erase controllers delays a job, never fails it: the
// controllers talk to the real API server through a proxy that resets every third connection and
// cuts every open one (watches included) every 1.5 s. The job must still complete on every node.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { startDroppingProxy, type DroppingProxy } from '../support/servers/dropping-proxy.js';
import { EraseEnv, eraseEnvPerTest, results } from './helpers.js';
import { IMAGELISTS_PATH, type ImageList } from '../../src/core/erase/api/types.js';

describe('erase through a proxy that drops connections (real API server)', function () {
  this.timeout(180_000);
  let env: EraseEnv;
  let proxy: DroppingProxy | undefined;
  eraseEnvPerTest((e) => (env = e), {
    afterTeardown: async () => {
      await proxy?.close();
    },
  });

  it('completes the job on every node; the request is never rejected', async () => {
    const nodes = await env.nodes([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    proxy = await startDroppingProxy(new URL(env.kc.getCurrentCluster()!.server), {
      resetEvery: 3,
      cutEveryMs: 1500,
    });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(env.kc.exportConfig());
    const cluster = kc.getCurrentCluster()!;
    kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server: proxy!.url } : c));
    env.startControllers({ kubeConfig: kc, jobResyncMs: 500 });
    env.startKubelet();
    const name = `dropping-${env.tag}`;
    const t0 = Date.now();
    const job = await env.wait(
      name,
      await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] }),
      150_000,
    );
    const took = Date.now() - t0;
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const r = results(job);
    for (const n of nodes) assert.equal(r[n]?.outcome, 'Succeeded', `${n}: ${r[n]?.reason}`);
    const list = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
    assert.notEqual(list.status?.phase, 'Error', list.status?.message);
    assert.ok(proxy.dropped() >= 3, `the proxy dropped only ${proxy.dropped()} connection(s)`);
    process.stderr.write(`      (completed in ${took} ms with ${proxy.dropped()} connections dropped)\n`);
  });
});
