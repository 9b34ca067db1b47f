// `inv erase` as a real subprocess against the real API server (issue 18): the preflight refuses
// in seconds what could only time out (no controller, a stale Lease, no workers' namespace, a
// missing, misplaced or bad configuration, a caller without the permissions), naming every
// reason, and flags that break a rule are errors naming it (exit 2). Following, status and
// cancel: cli-lifecycle.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kubeconfigPath } from '../../support/kube.js';
import { envFlags, inv } from './cli-helpers.js';
import { EraseEnv, eraseEnvPerTest } from '../helpers.js';
import { serviceAccountToken } from '../../support/service-account.js';

describe('inv erase lifecycle (CLI, real API server)', function () {
  this.timeout(150_000);
  let env: EraseEnv;
  eraseEnvPerTest((e) => (env = e));

  it('preflight: no controller, no workers namespace, a bad configuration: exit 2 in seconds, every reason named', async () => {
    await env.nodes([{ name: 'a' }]);
    const sel = ['--node-selector', `erase-test=${env.tag}`, '--name', `pre-${env.tag}`];
    // No Lease at all.
    let r = await inv([
      'erase',
      '--images',
      'busybox:1',
      ...sel,
      ...envFlags(env),
      '--controller-lease',
      `${env.namespace}/nobody`,
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
    assert.match(
      r.stderr,
      new RegExp(
        `no erase controller is running: Lease ${env.namespace}/nobody does not exist;.*--standalone`,
      ),
    );
    // A Lease whose holder stopped renewing a minute ago.
    await env.rest.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${env.namespace}/leases`, {
      body: {
        metadata: { name: 'stale' },
        spec: {
          holderIdentity: 'gone-1',
          leaseDurationSeconds: 15,
          renewTime: new Date(Date.now() - 60_000).toISOString().replace('Z', '000Z'),
        },
      },
    });
    r = await inv([
      'erase',
      '--images',
      'busybox:1',
      ...sel,
      ...envFlags(env),
      '--controller-lease',
      `${env.namespace}/stale`,
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /its holder gone-1 last renewed it \d+s ago/);
    // No workers' namespace, with --standalone: named.
    r = await inv([
      'erase',
      '--images',
      'busybox:1',
      ...sel,
      '--kubeconfig',
      kubeconfigPath(),
      '--workers-namespace',
      `missing-${env.tag}`,
      '--config-namespace',
      env.namespace,
      '--standalone',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`the workers' namespace missing-${env.tag} does not exist`));
    assert.doesNotMatch(r.stderr, /inv-erase-config/);
    // No configuration where it is read, but one where earlier versions read it: refused, with
    // the command that moves it (anyone who may create ConfigMaps there could have written it).
    r = await inv([
      'erase',
      '--images',
      'busybox:1',
      ...sel,
      '--kubeconfig',
      kubeconfigPath(),
      '--workers-namespace',
      env.namespace,
      '--config-namespace',
      `missing-${env.tag}`,
      '--standalone',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `is read from ConfigMap missing-${env.tag}/inv-erase-config now, not from the workers' namespace ${env.namespace}.*move it: kubectl create configmap inv-erase-config -n missing-${env.tag} `,
      ),
    );
    // No configuration at all: named, with what creates it.
    r = await inv([
      'erase',
      '--images',
      'busybox:1',
      ...sel,
      '--kubeconfig',
      kubeconfigPath(),
      '--workers-namespace',
      `missing-${env.tag}`,
      '--config-namespace',
      `missing-cfg-${env.tag}`,
      '--standalone',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `ConfigMap missing-cfg-${env.tag}/inv-erase-config does not exist, and erase runs nothing without it: create it with \`inv install\``,
      ),
    );
    // A bad configuration is named with its key.
    await env.config('successRatio: 2\n');
    r = await inv(['erase', '--images', 'busybox:1', ...sel, ...envFlags(env), '--standalone']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /inv-erase-config is invalid: successRatio/);
    // Nothing was written by any of these.
    const lists = await env.rest.list<{ metadata: { name: string } }>(
      '/apis/erase.imageinventory.dev/v1alpha1/imagelists',
    );
    assert.ok(!lists.items.some((l) => l.metadata.name === `pre-${env.tag}`));
  });

  it('preflight: a caller without the permissions is told which (SelfSubjectAccessReview), exit 2', async () => {
    // A ServiceAccount that may only read ImageJobs, with a token of its own.
    const sa = `reader-${env.tag}`;
    await env.rest.request('POST', `/api/v1/namespaces/${env.namespace}/serviceaccounts`, {
      body: { metadata: { name: sa } },
    });
    const token = await serviceAccountToken(env.rest, env.namespace, sa, 600);
    const admin = fs.readFileSync(kubeconfigPath(), 'utf8');
    const kc = JSON.parse(JSON.stringify((await import('yaml')).parse(admin))) as {
      users: { name: string; user: Record<string, unknown> }[];
    };
    for (const u of kc.users) u.user = { token };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-sa-'));
    const file = path.join(dir, 'config');
    fs.writeFileSync(file, JSON.stringify(kc));
    try {
      const r = await inv([
        'erase',
        '--images',
        'busybox:1',
        '--kubeconfig',
        file,
        '--workers-namespace',
        env.namespace,
        '--config-namespace',
        env.namespace,
        '--standalone',
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /you lack permissions erase needs with --standalone: .*create imagelists\.erase\.imageinventory\.dev \(cluster-wide\)/,
      );
      assert.match(r.stderr, new RegExp(`create pods in namespace ${env.namespace}`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('flags: --dry-run=client, stray words, -n and --all-unused with --images are errors naming the rule (exit 2)', async () => {
    const k = ['--kubeconfig', kubeconfigPath()];
    let r = await inv(['erase', '--images', 'nginx', '--dry-run=client', ...k]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /--dry-run takes no value \(got --dry-run=client\): an erase dry run has every selected node's worker report what it would remove/,
    );
    r = await inv(['erase', '--images', 'nginx', 'client', ...k]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Unexpected argument: client/);
    r = await inv(['erase', '--images', 'nginx', '-n', 'shop', ...k]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /-n is not an erase flag: .*--workers-namespace/);
    r = await inv(['erase', '--images', 'nginx', '--all-unused', '--yes', ...k]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--images=nginx cannot also be provided when using --all-unused/);
    r = await inv(['erase', ...k]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nothing to remove: pass --images, --imagelist or --all-unused/);
  });
});
