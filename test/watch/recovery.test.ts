// Recovery: a daemon killed in the middle of a rebuild and restarted converges with no duplicate
// or orphaned Images; an API server restarted under a running daemon: the watches recover and
// the Images converge.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { isManaged } from '../../src/core/inventory/image-resource.js';
import { setupEnv, podSpec, type Env } from '../inventory/helpers.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import {
  adminKubeconfigPath,
  deployment,
  images,
  inventory,
  killDaemon,
  manyImages,
  sameInventory,
  spawnDaemon,
  startDaemon,
  until,
  type ChildDaemon,
} from './helpers.js';

/**
 * SIGTERM to the test API server, then SIGKILL once it has stopped serving. The testcluster
 * process stops listening at once on SIGTERM but lingers (embedded etcd shutdown) until
 * cluster.mjs's 20 s stop grace runs out; restart() then finds it gone and starts it again.
 */
async function stopApiServer(dir: string): Promise<void> {
  const pid = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
  const server = new URL(adminConfig().getCurrentCluster()!.server);
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const s = net.connect(Number(server.port), server.hostname);
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
  process.kill(pid, 'SIGTERM');
  await until('API server to stop listening', async () => !(await listening()), 20_000, 50);
  await until('API server to exit', () => !alive(), 2_000, 50).catch(() => process.kill(pid, 'SIGKILL'));
  await until('API server process gone', () => !alive(), 10_000, 50);
}

describe('inv watch recovery (real API server)', function () {
  this.timeout(180_000);
  let env: Env;
  const daemons: ChildDaemon[] = [];

  before(async () => {
    env = await setupEnv();
  });

  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => killDaemon(d)));
  });

  it('converges after being killed mid-rebuild and restarted: no duplicates, no orphans', async () => {
    const ns = await newNamespace('watch-crash');
    const want = await manyImages(env, ns, 'crash', 40, 10); // 400 Images
    const args = ['--kubeconfig', adminKubeconfigPath(), '--namespaces', ns];
    const first = spawnDaemon(args);
    daemons.push(first);
    await until('rebuild in flight', async () => (await images(env.rest, ns)).length >= 20, 30_000, 5);
    first.proc.kill('SIGKILL');
    await first.exited;
    const partial = await images(env.rest, ns);
    const withoutStatus = partial.filter((i) => !i.status?.kinds).length;
    console.log(
      `      killed with ${partial.length}/400 Images written (${withoutStatus} without status yet)`,
    );
    assert.ok(partial.length < 400, 'the daemon died before the rebuild finished');

    // While it is down: some users go away (their Images become orphans) and a new one appears.
    for (let i = 0; i < 5; i++) {
      await env.apps.deleteNamespacedDeployment({ name: `crash-${i}`, namespace: ns });
      for (let j = 0; j < 10; j++) delete want[`docker.io/library/crash-${i}-${j}:1`];
    }
    await env.apps.createNamespacedDeployment({ namespace: ns, body: deployment('late', ['late:1']) });
    want['docker.io/library/late:1'] = 'Deployment';

    const second = spawnDaemon(args);
    daemons.push(second);
    const t0 = Date.now();
    await until('convergence', async () => sameInventory(await inventory(env.rest, ns), want), 60_000, 50);
    console.log(
      `      restarted daemon converged in ${Date.now() - t0} ms (${Object.keys(want).length} Images)`,
    );
    const all = await images(env.rest, ns);
    assert.equal(all.length, Object.keys(want).length, 'no orphans');
    assert.equal(new Set(all.map((i) => i.spec?.image)).size, all.length, 'no duplicate refs');
    assert.ok(all.every(isManaged));
  });

  it('recovers its watches when the API server restarts under it, and converges', async () => {
    const ns = await newNamespace('watch-restart');
    await env.apps.createNamespacedDeployment({ namespace: ns, body: deployment('r', ['restart:1']) });
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'gone' }, spec: podSpec(['gone:1']) },
    });
    const d = await startDaemon(adminConfig(), { namespaces: [ns], logLevel: 'info' });
    try {
      await until('initial Images', async () =>
        sameInventory(await inventory(env.rest, ns), {
          'docker.io/library/restart:1': 'Deployment',
          'docker.io/library/gone:1': 'Pod',
        }),
      );
      const watchesBefore = d.daemon.cache.informerStats().reduce((n, s) => n + s.watches, 0);
      const dir = process.env.INV_TEST_CLUSTER_DIR!;
      const cluster = (await import(path.join(repoRoot, 'scripts', 'cluster.mjs'))) as {
        restart(dir: string): Promise<void>;
      };
      const t0 = Date.now();
      await stopApiServer(dir);
      await cluster.restart(dir);
      console.log(`      API server restarted in ${Date.now() - t0} ms`);
      // Fresh clients: the old keep-alive sockets of this process's clients died with the server.
      const kc = adminConfig();
      const apps = kc.makeApiClient(k8s.AppsV1Api);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const t1 = Date.now();
      await apps.patchNamespacedDeployment(
        {
          name: 'r',
          namespace: ns,
          body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'restart:2' }],
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      );
      await core.deleteNamespacedPod({ name: 'gone', namespace: ns, gracePeriodSeconds: 0 });
      await until(
        'convergence after the restart',
        async () =>
          sameInventory(await inventory(env.rest, ns), { 'docker.io/library/restart:2': 'Deployment' }),
        30_000,
        50,
      );
      const stats = d.daemon.cache.informerStats();
      const watchesAfter = stats.reduce((n, s) => n + s.watches, 0);
      console.log(
        `      converged ${Date.now() - t1} ms after the first change; watches re-opened: ${watchesAfter - watchesBefore}, relists: ${stats.reduce((n, s) => n + s.lists, 0) - stats.length}`,
      );
      assert.ok(watchesAfter > watchesBefore, 'watches were re-opened');
    } finally {
      await d.stop();
    }
  });
});
