// `inv scan` as a namespace-scoped user (a ServiceAccount token, RBAC enforced by the real API
// server): Roles in its own namespace are enough, since scan never needs the cluster-scoped
// Namespace; a missing permission is named (verb, resource, namespace), and a forbidden scan
// exits 2 whether it was asked for with -n or with -A.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { runCli } from './run-cli.js';

// What scan lists: every source kind of the registry, and ReplicaSets (their owners only).
const SCANNER_RULES: k8s.V1PolicyRule[] = [
  {
    apiGroups: ['apps'],
    resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'],
    verbs: ['list'],
  },
  { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: ['list'] },
  { apiGroups: [''], resources: ['pods', 'replicationcontrollers'], verbs: ['list'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'get', 'list'] },
];
const IMAGE_RULE: k8s.V1PolicyRule = {
  apiGroups: ['imageinventory.dev'],
  resources: ['images', 'images/status'],
  verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
};

/** Waits for a condition (RBAC changes reach the authorizer's cache asynchronously). */
async function until<T>(what: string, f: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('inv scan as a namespace-scoped user (RBAC)', () => {
  let ns: string;
  let kubeconfig: string;
  let dir: string;
  let kc: k8s.KubeConfig;
  let rbac: k8s.RbacAuthorizationV1Api;
  let core: k8s.CoreV1Api;

  before(async () => {
    kc = adminConfig();
    rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    core = kc.makeApiClient(k8s.CoreV1Api);
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    rest.close();
    ns = await newNamespace('rbac-scan');
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'dev' } } });
    const tr = await core.createNamespacedServiceAccountToken({
      namespace: ns,
      name: 'dev',
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    await core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
    });
    // The user's context names its namespace, as `kubectl config set-context --namespace` does.
    const cluster = kc.getCurrentCluster()!;
    const user = new k8s.KubeConfig();
    user.loadFromOptions({
      clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData }],
      users: [{ name: 'dev', token: tr.status!.token }],
      contexts: [{ name: 'dev', cluster: 'c', user: 'dev', namespace: ns }],
      currentContext: 'dev',
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-rbac-'));
    kubeconfig = path.join(dir, 'config');
    fs.writeFileSync(kubeconfig, user.exportConfig(), { mode: 0o600 });
    await rbac.createNamespacedRole({
      namespace: ns,
      body: { metadata: { name: 'scanner' }, rules: SCANNER_RULES },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'scanner' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'scanner' },
        subjects: [{ kind: 'ServiceAccount', name: 'dev', namespace: ns }],
      },
    });
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the missing permission and exits 2, for -n as for -A', async () => {
    // Until the Role grants the Images, the scan can read the workloads but not the inventory.
    const r = await until('the workload Role to apply', () => {
      const x = runCli(['scan', '-n', ns, '--kubeconfig', kubeconfig]);
      return /cannot list|may not list (pods|deployments)/.test(x.stderr) ? undefined : x;
    });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(
      r.stderr,
      `error: namespace ${ns}: forbidden: you may not list images.imageinventory.dev in namespace "${ns}"; ask for a Role (or ClusterRole) that grants verb "list" on resource "images" in API group "imageinventory.dev"\n`,
    );
    const all = runCli(['scan', '-A', '--kubeconfig', kubeconfig]);
    assert.equal(all.status, 2, all.stderr);
    assert.equal(
      all.stderr,
      'error: forbidden: you may not list namespaces (cluster-wide); ask for a Role (or ClusterRole) that grants verb "list" on resource "namespaces" in API group "" (-A lists every namespace; use -n for yours)\n',
    );
  });

  it("scans its own namespace (the context's) with Roles only, never reading the Namespace", async () => {
    await rbac.patchNamespacedRole(
      {
        name: 'scanner',
        namespace: ns,
        body: [{ op: 'add', path: '/rules/-', value: IMAGE_RULE }],
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    const r = await until('the Image Role to apply', () => {
      const x = runCli(['scan', '--kubeconfig', kubeconfig, '-o', 'json']);
      return x.status === 0 ? x : undefined;
    });
    assert.match(r.stderr, new RegExp(`^Scanning namespace ${ns} \\(the namespace of context "dev"`));
    const doc = JSON.parse(r.stdout) as {
      namespaces: { namespace: string; images: { image: string; status: string }[] }[];
    };
    assert.deepEqual(
      doc.namespaces.map((n) => n.namespace),
      [ns],
    );
    assert.deepEqual(
      doc.namespaces[0]!.images.map((i) => [i.image, i.status]),
      [['docker.io/library/nginx:1.25', 'created']],
    );
    // The user may not GET its Namespace: a namespace it cannot see is not called "not found".
    const ro = runCli(['scan', '-n', ns, '--kubeconfig', kubeconfig]);
    assert.equal(ro.status, 0, ro.stderr);
    assert.match(ro.stdout, /1 unchanged/);
    // `inv images -n` reads the Images it may read, with the same Roles.
    const imgs = runCli(['images', '-n', ns, '--kubeconfig', kubeconfig, '-o', 'name']);
    assert.equal(imgs.status, 0, imgs.stderr);
    assert.equal(imgs.stdout, 'docker.io/library/nginx:1.25\n');
  });
});
