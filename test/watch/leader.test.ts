// Two `inv watch --leader-elect` processes: exactly one reconciles; SIGKILL of the leader hands
// over within the lease duration plus retry periods and the Images converge; SIGTERM drains an
// in-flight rebuild and exits within the grace period, releasing the Lease.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { setupEnv, type Env } from '../inventory/helpers.js';
import { newNamespace } from '../support/kube.js';
import {
  adminKubeconfigPath,
  deployment,
  images,
  inventory,
  killDaemon,
  leaderFlags,
  manyImages,
  metric,
  rebuildsOf,
  sameInventory,
  scrape,
  spawnDaemon,
  until,
  type ChildDaemon,
} from './helpers.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('inv watch with leader election (child processes)', function () {
  this.timeout(120_000);
  let env: Env;
  let ns: string;
  let leaseNs: string;
  const daemons: ChildDaemon[] = [];

  useNamespace('watch-le', (n) => (ns = n));
  useNamespace('watch-le-lease', (n) => (leaseNs = n));
  before(async () => {
    env = await setupEnv();
    await env.apps.createNamespacedDeployment({ namespace: ns, body: deployment('app', ['app:1']) });
  });

  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => killDaemon(d)));
  });

  const start = (lease: string, extra: string[] = []) => {
    const d = spawnDaemon([
      '--kubeconfig',
      adminKubeconfigPath(),
      '--namespaces',
      ns,
      ...leaderFlags(leaseNs, lease),
      ...extra,
    ]);
    daemons.push(d);
    return d;
  };
  const isLeader = (d: ChildDaemon) =>
    d.records().some((r) => r.msg === 'became leader; starting controllers');

  it('runs exactly one reconciler; after SIGKILL of the leader the other takes over and converges', async () => {
    const a = start('le-a');
    const b = start('le-a');
    await until('a leader', () => isLeader(a) || isLeader(b), 20_000);
    await until(
      'Image app:1',
      async () => (await inventory(env.rest, ns))['docker.io/library/app:1'] === 'Deployment',
    );
    const [leader, follower] = isLeader(a) ? [a, b] : [b, a];
    await env.apps.patchNamespacedDeployment(
      {
        name: 'app',
        namespace: ns,
        body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'app:2' }],
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    await until(
      'Image app:2',
      async () => (await inventory(env.rest, ns))['docker.io/library/app:2'] === 'Deployment',
    );
    await until(
      'the leader counted its rebuilds',
      async () => (await rebuildsOf(await leader.metricsUrl)) >= 2,
    );
    const [lm, fm] = await Promise.all([scrape(await leader.metricsUrl), scrape(await follower.metricsUrl)]);
    assert.equal(metric(lm, 'inv_leader'), 1);
    assert.equal(metric(fm, 'inv_leader'), 0);
    assert.equal(await rebuildsOf(await follower.metricsUrl), 0, 'the follower never rebuilds');
    assert.ok(!isLeader(follower));

    // Crash the leader; change the namespace at once.
    const killedAt = Date.now();
    leader.proc.kill('SIGKILL');
    await leader.exited;
    await env.apps.patchNamespacedDeployment(
      {
        name: 'app',
        namespace: ns,
        body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'app:3' }],
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    await until('takeover', () => isLeader(follower), 15_000, 10);
    const takeoverMs = Date.now() - killedAt;
    await until(
      'Image app:3 only',
      async () => sameInventory(await inventory(env.rest, ns), { 'docker.io/library/app:3': 'Deployment' }),
      10_000,
      10,
    );
    const convergedMs = Date.now() - killedAt;
    console.log(
      `      SIGKILL of the leader -> takeover ${takeoverMs} ms, Images converged ${convergedMs} ms (lease 2 s, retry 0.3 s)`,
    );
    // Lease duration + two jittered retry periods (0.3 s * 2.2 each) + scheduling slack.
    assert.ok(takeoverMs <= 2000 + 2 * 660 + 1500, `takeover took ${takeoverMs} ms`);
  });

  it('SIGTERM drains the in-flight rebuild, releases the Lease and exits within the grace period', async () => {
    const big = await newNamespace('watch-drain');
    const want = await manyImages(env, big, 'drain', 30, 10); // 300 Images, 600 writes
    const d = spawnDaemon([
      '--kubeconfig',
      adminKubeconfigPath(),
      '--namespaces',
      big,
      ...leaderFlags(leaseNs, 'le-drain'),
      '--shutdown-grace-period',
      '20s',
    ]);
    daemons.push(d);
    await until('rebuild in flight', async () => (await images(env.rest, big)).length > 0, 30_000, 10);
    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    const exit = await d.exited;
    const ms = exit.at - t0;
    const draining = d.records().find((r) => r.msg === 'stopping: draining in-flight rebuilds');
    console.log(
      `      SIGTERM with ${String(draining?.inFlight)} rebuild(s) in flight -> exit ${exit.code} after ${ms} ms`,
    );
    assert.equal(exit.code, 0);
    assert.ok(ms < 20_000);
    assert.equal(draining?.inFlight, 1, 'the rebuild was in flight when SIGTERM arrived');
    assert.ok(d.records().some((r) => r.msg === 'drained'));
    // The in-flight rebuild ran to completion: the namespace is complete.
    assert.ok(sameInventory(await inventory(env.rest, big), want), 'rebuild finished before exit');
    const lease = await env.kc
      .makeApiClient(k8s.CoordinationV1Api)
      .readNamespacedLease({ name: 'le-drain', namespace: leaseNs });
    assert.ok(!lease.spec?.holderIdentity, 'Lease released');
  });
});
