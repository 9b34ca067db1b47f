// The daemon tells when nobody can see it run (issue 29 §2), on the real API server:
//   - with --leader-elect and a Lease namespace that does not exist, it logs at error level
//     naming the namespace and /readyz fails with the reason; once the namespace exists it leads
//     and becomes ready;
//   - `inv watch` without --leader-elect keeps a heartbeat Lease that `inv erase`'s preflight and
//     `inv check` accept, and removes it on SIGTERM.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HEARTBEAT_LABEL } from '../../src/core/controller/heartbeat.js';
import { daemonCheck } from '../../src/core/check/checks.js';
import { heartbeatHolder, preflight } from '../../src/core/erase-request/preflight.js';
import { setupEnv, type Env } from '../inventory/helpers.js';
import { newNamespace } from '../support/kube.js';
import { adminKubeconfigPath, killDaemon, spawnDaemon, until, type ChildDaemon } from './helpers.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('inv watch: Lease failures and the heartbeat without leader election', function () {
  this.timeout(90_000);
  let env: Env;
  let watched: string;
  const daemons: ChildDaemon[] = [];

  useNamespace('lease-health', (n) => (watched = n));
  before(async () => {
    env = await setupEnv();
  });
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => killDaemon(d)));
  });

  const start = (args: string[]) => {
    const d = spawnDaemon(['--kubeconfig', adminKubeconfigPath(), '--namespaces', watched, ...args]);
    daemons.push(d);
    return d;
  };
  const healthUrl = (d: ChildDaemon) =>
    d.waitForLog('health server', (r) => r.msg === 'serving health').then((r) => String(r.url));
  const readyz = async (url: string) => {
    const res = await fetch(`${url}/readyz`);
    return { code: res.status, text: await res.text() };
  };

  it('logs an error naming the missing Lease namespace, is not ready, and leads once it exists', async () => {
    const leaseNs = `lease-missing-${randomBytes(3).toString('hex')}`;
    const d = start([
      '--leader-elect',
      '--leader-elect-namespace',
      leaseNs,
      '--leader-elect-retry-period',
      '200ms',
      '--leader-elect-renew-deadline',
      '1s',
      '--leader-elect-lease-duration',
      '2s',
    ]);
    const rec = await d.waitForLog('the Lease error', (r) => r.level === 'error' && r.namespace === leaseNs);
    assert.match(String(rec.problem), new RegExp(`namespace ${leaseNs} does not exist`));
    const url = await healthUrl(d);
    await until('/readyz failing with the reason', async () => {
      const r = await readyz(url);
      return r.code === 503 && r.text.includes(`[-]leader-election failed: cannot create Lease ${leaseNs}/`);
    });
    // Logged once per reason, not at every retry.
    await until(
      'a few more attempts',
      () => d.records().filter((r) => r.msg === 'cannot create leader lease').length >= 3,
    );
    assert.equal(d.records().filter((r) => r.level === 'error' && r.namespace === leaseNs).length, 1);

    await env.rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: leaseNs } } });
    await d.waitForLog('leading', (r) => r.msg === 'became leader; starting controllers');
    await until('ready', async () => (await readyz(url)).code === 200, 20_000);
    await env.rest.request('DELETE', `/api/v1/namespaces/${leaseNs}`).catch(() => undefined);
  });

  it('keeps a heartbeat Lease that erase and check accept, and removes it on SIGTERM', async () => {
    const leaseNs = await newNamespace('lease-hb');
    const workers = await newNamespace('lease-hb-workers');
    const lease = 'image-inventory-controller';
    // Nothing runs yet: erase's preflight refuses, check fails.
    const before = await preflight(env.rest, {
      workersNamespace: workers,
      configNamespace: leaseNs,
      standalone: false,
      lease: `${leaseNs}/${lease}`,
    });
    assert.ok(before.problems.some((p) => p.startsWith('no erase controller is running')));

    const d = start(['--leader-elect-namespace', leaseNs, '--erase-namespace', workers]);
    await d.waitForLog('heartbeat', (r) => r.msg === 'heartbeat Lease renewed');
    const url = await healthUrl(d);
    await until('ready', async () => (await readyz(url)).code === 200, 20_000);

    const pre = await preflight(env.rest, {
      workersNamespace: workers,
      configNamespace: leaseNs,
      standalone: false,
      lease: `${leaseNs}/${lease}`,
    });
    assert.deepEqual(
      pre.problems.filter((p) => p.includes('erase controller')),
      [],
      pre.problems.join('\n'),
    );
    assert.ok(pre.holder);
    const check = await daemonCheck(env.rest, { daemonNamespace: leaseNs, leaseName: lease });
    assert.equal(check.status, 'pass', check.detail);
    assert.match(check.detail ?? '', /heartbeat of .* \(no leader election\)/);

    await killDaemon(d, 'SIGTERM');
    const left = await env.rest.get<{ items: unknown[] }>(
      `/apis/coordination.k8s.io/v1/namespaces/${leaseNs}/leases`,
      { labelSelector: `${HEARTBEAT_LABEL}=${lease}` },
    );
    assert.equal(left.items.length, 0, 'the heartbeat Lease is removed on a clean stop');
    assert.equal(await heartbeatHolder(env.rest, leaseNs, lease, Date.now()), undefined);
  });
});
