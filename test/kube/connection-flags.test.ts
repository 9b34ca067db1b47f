// kubectl's connection flags against the real API server, through the built CLI: impersonation
// under RBAC (--as, --as-group, --as-uid), a ServiceAccount token from the TokenRequest API
// (--token), reaching the server by flags alone (--server, --certificate-authority,
// --tls-server-name), --insecure-skip-tls-verify, and --user/--cluster picking kubeconfig entries.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig } from '../support/kube.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { useNamespace } from '../support/suite-hooks.js';

// What `inv scan --dry-run` reads in a namespace: the source kinds, ReplicaSets, the Images.
const READER_RULES: k8s.V1PolicyRule[] = [
  {
    apiGroups: ['apps'],
    resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'],
    verbs: ['list'],
  },
  { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: ['list'] },
  { apiGroups: [''], resources: ['pods', 'replicationcontrollers'], verbs: ['list'] },
  { apiGroups: ['imageinventory.dev'], resources: ['images'], verbs: ['get', 'list'] },
];

/** Retries while RBAC changes reach the authorizer's cache (they apply asynchronously). */
async function until(what: string, f: () => CliResult, ok: (r: CliResult) => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = f();
    if (ok(r)) return r;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}: exit ${r.status}: ${r.stderr}`);
    await new Promise((res) => setTimeout(res, 300));
  }
}

describe('kubectl connection flags on the API server', function () {
  this.timeout(180_000);
  let mine: string;
  let other: string;
  let dir: string;
  let admin: string; // the admin kubeconfig (a static token in system:masters, the CA as data)
  let server: string;
  let caFile: string;
  let adminToken: string;
  let saToken: string;
  const env = () => ({ HOME: dir, KUBECONFIG: undefined, KUBERNETES_SERVICE_HOST: undefined });
  const inv = (args: string[]) => runCli(args, { env: env() });
  const scan = (ns: string, ...flags: string[]) =>
    inv(['scan', '-n', ns, '--dry-run', '-o', 'json', ...flags]);
  const scanned = (r: CliResult) => r.status === 0 && JSON.parse(r.stdout).namespaces?.length === 1;
  const forbidden = (ns: string) => `error: namespace ${ns}: forbidden: you may not list`;

  useNamespace('connflags', (n) => (mine = n));
  useNamespace('connflags-other', (n) => (other = n));
  before(async () => {
    const kc = adminConfig();
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    rest.close();
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    for (const ns of [mine, other]) {
      await core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
      });
    }
    await core.createNamespacedServiceAccount({ namespace: mine, body: { metadata: { name: 'dev' } } });
    const tr = await core.createNamespacedServiceAccountToken({
      namespace: mine,
      name: 'dev',
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    saToken = tr.status!.token;
    await rbac.createNamespacedRole({
      namespace: mine,
      body: { metadata: { name: 'reader' }, rules: READER_RULES },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: mine,
      body: {
        metadata: { name: 'reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
        subjects: [
          { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
          { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'qa' },
          { kind: 'ServiceAccount', name: 'dev', namespace: mine },
        ],
      },
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-connflags-'));
    admin = path.join(dir, 'admin.kubeconfig');
    fs.writeFileSync(admin, kc.exportConfig(), { mode: 0o600 });
    const cluster = kc.getCurrentCluster()!;
    server = cluster.server;
    adminToken = kc.getCurrentUser()!.token!;
    caFile = path.join(dir, 'ca.crt');
    fs.writeFileSync(caFile, Buffer.from(cluster.caData!, 'base64'));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--as: a user bound to a Role in one namespace reads it, and is refused another with a 403 named', async () => {
    const ok = await until(
      'the RoleBinding',
      () => scan(mine, '--kubeconfig', admin, '--as', 'jane'),
      scanned,
    );
    assert.equal(JSON.parse(ok.stdout).namespaces[0].namespace, mine);
    const refused = scan(other, '--kubeconfig', admin, '--as', 'jane');
    assert.equal(refused.status, 2, refused.stderr);
    assert.ok(refused.stderr.startsWith(forbidden(other)), refused.stderr);
    assert.match(refused.stderr, new RegExp(`in namespace "${other}"`));
    // Without --as the admin reads both: the flag, not the kubeconfig, made the difference.
    assert.equal(scan(other, '--kubeconfig', admin).status, 0);
  });

  it('--as-group (with --as-uid): the group binding grants, a user without it is refused', async () => {
    const someone = () => scan(mine, '--kubeconfig', admin, '--as', 'someone');
    assert.equal(someone().status, 2);
    assert.ok(someone().stderr.startsWith(forbidden(mine)), someone().stderr);
    const r = await until(
      'the group binding',
      () =>
        scan(
          mine,
          '--kubeconfig',
          admin,
          '--as',
          'someone',
          '--as-group',
          'other-group',
          '--as-group',
          'qa',
          '--as-uid',
          'u-1',
        ),
      scanned,
    );
    assert.equal(r.status, 0);
    const noUser = scan(mine, '--kubeconfig', admin, '--as-group', 'qa');
    assert.equal(noUser.status, 2);
    assert.equal(
      noUser.stderr,
      'error: --as-group and --as-uid need --as: groups or a UID are impersonated with a user\n',
    );
  });

  it("the kubeconfig's own as, as-groups and as-uid impersonate as the flags do (client-node drops the last two)", async () => {
    const file = (name: string, user: Record<string, unknown>) => {
      const f = path.join(dir, name);
      const doc = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server, 'certificate-authority': caFile } }],
        users: [{ name: 'u', user: { token: adminToken, ...user } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      };
      fs.writeFileSync(f, JSON.stringify(doc), { mode: 0o600 });
      return f;
    };
    const asSomeone = file('as.kubeconfig', { as: 'someone' });
    const asQa = file('as-groups.kubeconfig', { as: 'someone', 'as-groups': ['qa'], 'as-uid': 'u-2' });
    assert.ok(scan(mine, '--kubeconfig', asSomeone).stderr.startsWith(forbidden(mine)));
    const r = await until('the group binding', () => scan(mine, '--kubeconfig', asQa), scanned);
    assert.equal(r.status, 0);
    // A flag replaces the field it sets: --as-group other-group drops the kubeconfig's qa.
    const replaced = scan(mine, '--kubeconfig', asQa, '--as', 'someone', '--as-group', 'other-group');
    assert.ok(replaced.stderr.startsWith(forbidden(mine)), replaced.stderr);
    const noUser = scan(mine, '--kubeconfig', file('groups-only.kubeconfig', { 'as-groups': ['qa'] }));
    assert.equal(noUser.status, 2);
    assert.match(noUser.stderr, /user "u" in the kubeconfig .* has as-groups or as-uid without as/);
  });

  it('several $KUBECONFIG files merge as in kubectl: the first to set a name or the current-context wins', () => {
    const write = (name: string, server0: string, token: string, ctx: string) => {
      const f = path.join(dir, name);
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: server0, caFile, skipTLSVerify: false }],
        users: [{ name: 'u', token }],
        contexts: [{ name: ctx, cluster: 'c', user: 'u' }],
        currentContext: ctx,
      });
      fs.writeFileSync(f, kc.exportConfig(), { mode: 0o600 });
      return f;
    };
    const first = write('first.kubeconfig', server, adminToken, 'one');
    const second = write('second.kubeconfig', 'https://127.0.0.1:1', 'not-a-token', 'two');
    const r = runCli(['scan', '-n', mine, '--dry-run', '-o', 'json'], {
      env: { ...env(), KUBECONFIG: [first, second].join(path.delimiter) },
    });
    assert.equal(r.status, 0, r.stderr);
    const reversed = runCli(['scan', '-n', mine, '--dry-run', '-o', 'json'], {
      env: { ...env(), KUBECONFIG: [second, first].join(path.delimiter) },
    });
    assert.equal(reversed.status, 2);
  });

  it('--token: a ServiceAccount token from the TokenRequest API replaces the kubeconfig user', async () => {
    await until('the RoleBinding', () => scan(mine, '--kubeconfig', admin, '--token', saToken), scanned);
    const refused = scan(other, '--kubeconfig', admin, '--token', saToken);
    assert.equal(refused.status, 2);
    assert.ok(refused.stderr.startsWith(forbidden(other)), refused.stderr);
  });

  it('--server, --certificate-authority and --tls-server-name reach the server with no kubeconfig at all', () => {
    const port = new URL(server).port;
    const flags = [
      '--server',
      `https://127.0.0.1:${port}`,
      '--certificate-authority',
      caFile,
      '--token',
      adminToken,
    ];
    assert.equal(scan(mine, ...flags).status, 0, scan(mine, ...flags).stderr);
    // The serving certificate names "kubernetes": a name it does not hold fails the TLS check.
    assert.equal(scan(mine, ...flags, '--tls-server-name', 'kubernetes').status, 0);
    const wrong = scan(mine, ...flags, '--tls-server-name', 'wrong.invalid');
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /wrong\.invalid/);
    // -s is --server's short form, a host:port without a scheme is https, as in kubectl.
    assert.equal(
      scan(mine, '-s', `localhost:${port}`, '--certificate-authority', caFile, '--token', adminToken).status,
      0,
    );
  });

  it('--insecure-skip-tls-verify: a server whose CA the kubeconfig lacks is reached only with it', () => {
    const noCa = path.join(dir, 'no-ca.kubeconfig');
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server, skipTLSVerify: false }],
      users: [{ name: 'u', token: adminToken }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    fs.writeFileSync(noCa, kc.exportConfig(), { mode: 0o600 });
    const refused = scan(mine, '--kubeconfig', noCa);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /certificate/);
    const r = scan(mine, '--kubeconfig', noCa, '--insecure-skip-tls-verify');
    assert.equal(r.status, 0, r.stderr);
  });

  it('--user and --cluster pick entries of a kubeconfig with several, by name', () => {
    const several = path.join(dir, 'several.kubeconfig');
    const caData = fs.readFileSync(caFile).toString('base64');
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'gone', server: 'https://127.0.0.1:1', caData, skipTLSVerify: false },
        { name: 'real', server, caData, skipTLSVerify: false },
      ],
      users: [
        { name: 'stranger', token: 'not-a-token' },
        { name: 'admin', token: adminToken },
        { name: 'dev', token: saToken },
      ],
      contexts: [{ name: 'broken', cluster: 'gone', user: 'stranger' }],
      currentContext: 'broken',
    });
    fs.writeFileSync(several, kc.exportConfig(), { mode: 0o600 });
    assert.equal(scan(mine, '--kubeconfig', several).status, 2);
    const unauthorized = scan(mine, '--kubeconfig', several, '--cluster', 'real');
    assert.equal(unauthorized.status, 2);
    assert.match(unauthorized.stderr, /Unauthorized|401/);
    const r = scan(mine, '--kubeconfig', several, '--cluster', 'real', '--user', 'admin');
    assert.equal(r.status, 0, r.stderr);
    const dev = scan(other, '--kubeconfig', several, '--cluster', 'real', '--user', 'dev');
    assert.ok(dev.stderr.startsWith(forbidden(other)), dev.stderr);
    const missing = scan(mine, '--kubeconfig', several, '--user', 'nobody');
    assert.equal(missing.status, 2);
    assert.equal(
      missing.stderr,
      `error: user "nobody" is not in the kubeconfig (${several}) (--user; known: stranger, admin, dev)\n`,
    );
  });
});
