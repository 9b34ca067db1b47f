// Another team's objects under the bundle's names (issue 25 §3): a ClusterRole and a
// ClusterRoleBinding named image-inventory-controller with their own label and subject, the
// daemon's namespace and a ServiceAccount in it, and a CRD of ours installed by another tool.
// `inv install` refuses before writing anything and names them; they stay byte for byte (the
// whole object, resourceVersion included); `--dry-run=server` shows the refusals; uninstall keeps
// them; `--force-conflicts` takes them over; a second install upgrades; uninstall then deletes
// what is now inv's. An installation made with `kubectl apply -k deploy/` (our label, another
// field manager) is inv's and upgrades. An object created or changed between install's check and
// its write (a deterministic interleaving: the other write is made just before install's) is
// checked again: the created one is refused untouched, the changed one of ours is applied. On a
// fresh API server: the run's shared one has our CRDs.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { install, ForeignObjectsError } from '../../src/core/install/install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const SYSTEM = 'image-inventory-system';
const WORKERS = 'image-inventory-workers';
const TEAM = { team: 'payments' };

/** Where each foreign object lives, and the body another team created it with. */
const FOREIGN: { path: string; collection: string; body: Record<string, unknown> }[] = [
  {
    path: `/api/v1/namespaces/${SYSTEM}`,
    collection: '/api/v1/namespaces',
    body: { metadata: { name: SYSTEM, labels: TEAM } },
  },
  {
    path: `/api/v1/namespaces/${SYSTEM}/serviceaccounts/image-inventory-controller`,
    collection: `/api/v1/namespaces/${SYSTEM}/serviceaccounts`,
    body: { metadata: { name: 'image-inventory-controller', labels: TEAM } },
  },
  {
    path: `${RBAC}/clusterroles/image-inventory-controller`,
    collection: `${RBAC}/clusterroles`,
    body: {
      metadata: { name: 'image-inventory-controller', labels: TEAM },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    },
  },
  {
    path: `${RBAC}/clusterrolebindings/image-inventory-controller`,
    collection: `${RBAC}/clusterrolebindings`,
    body: {
      metadata: { name: 'image-inventory-controller', labels: TEAM },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'image-inventory-controller',
      },
      subjects: [{ kind: 'Group', name: 'payments-admins', apiGroup: 'rbac.authorization.k8s.io' }],
    },
  },
];

describe('install and uninstall with foreign objects under our names', function () {
  this.timeout(180_000);
  let server: FreshApiServer;
  let rest: KubeRest;
  const snapshot = new Map<string, string>();
  const inv = (args: string[]): CliResult => runCli([...args, '--kubeconfig', server.kubeconfig]);
  const raw = async (p: string) => JSON.stringify(await rest.get<KubeObject>(p));
  const exists = (p: string) =>
    rest.get(p).then(
      () => true,
      (e: unknown) => {
        if (String(e).includes('404') || (e as { code?: number }).code === 404) return false;
        throw e;
      },
    );

  before(async () => {
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
    for (const f of FOREIGN)
      await rest.request('POST', f.collection, { body: f.body, query: { fieldManager: 'kubectl-create' } });
    // A CRD of our name that another tool installed (the same schema, without our label).
    const crd = (await import('../../src/core/install/bundle.js'))
      .readCrdObjects()
      .find((c) => c.metadata.name === 'imagejobs.erase.imageinventory.dev')!;
    await rest.request('POST', CRDS, {
      body: { ...crd, metadata: { name: crd.metadata.name, labels: TEAM } },
      query: { fieldManager: 'helm' },
    });
    // The API server then marks it Established by itself: wait for that before the snapshot, or
    // the snapshot would catch a status still being written (as it did on a loaded machine).
    const { waitEstablished } = await import('../../src/core/kube/crd-install.js');
    await waitEstablished(rest, [crd.metadata.name], 30_000);
    for (const f of FOREIGN) snapshot.set(f.path, await raw(f.path));
    snapshot.set(
      `${CRDS}/imagejobs.erase.imageinventory.dev`,
      await raw(`${CRDS}/imagejobs.erase.imageinventory.dev`),
    );
  });
  after(async () => {
    rest?.close();
    await server?.stop();
  });

  const unchanged = async () => {
    for (const [p, json] of snapshot) assert.equal(await raw(p), json, `${p} changed`);
  };

  it('install refuses, names every foreign object with its manager, and changes nothing', async () => {
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:1']);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.equal(r.stdout, '');
    for (const line of [
      'namespace/image-inventory-system (Namespace, cluster-scoped): managed by kubectl-create',
      'serviceaccount/image-inventory-controller (ServiceAccount, in namespace image-inventory-system): managed by kubectl-create',
      'clusterrole.rbac.authorization.k8s.io/image-inventory-controller (ClusterRole, cluster-scoped): managed by kubectl-create',
      'clusterrolebinding.rbac.authorization.k8s.io/image-inventory-controller (ClusterRoleBinding, cluster-scoped): managed by kubectl-create',
      'customresourcedefinition.apiextensions.k8s.io/imagejobs.erase.imageinventory.dev (CustomResourceDefinition, cluster-scoped): managed by helm',
    ])
      assert.ok(r.stderr.includes(`  ${line}\n`), `missing "${line}" in\n${r.stderr}`);
    assert.match(
      r.stderr,
      /^error: refusing to install: 5 objects of the bundle already exist and were not written by inv; nothing was changed:\n/,
    );
    assert.match(r.stderr, /--force-conflicts/);
    await unchanged();
    // Nothing half-installed: not even the objects nobody else had.
    assert.equal(await exists(`/api/v1/namespaces/${WORKERS}`), false);
    assert.equal(await exists(`${CRDS}/images.imageinventory.dev`), false);
  });

  it('install without --daemon refuses the foreign CRD (and the namespace its configuration needs)', async () => {
    const r = inv(['install']);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /2 objects of the bundle already exist and were not written by inv; nothing was changed:\n/,
    );
    assert.match(
      r.stderr,
      /^ {2}customresourcedefinition\.apiextensions\.k8s\.io\/imagejobs\.erase\.imageinventory\.dev /m,
    );
    assert.equal(await exists(`${CRDS}/images.imageinventory.dev`), false);
    assert.equal(await exists(`/api/v1/namespaces/${SYSTEM}/configmaps/inv-erase-config`), false);
    await unchanged();
  });

  it('--dry-run=server shows what would be refused and changes nothing', async () => {
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:1', '--dry-run=server']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(
      r.stdout,
      /^clusterrole\.rbac\.authorization\.k8s\.io\/image-inventory-controller refused \(server dry run\): clusterrole\.rbac\.authorization\.k8s\.io\/image-inventory-controller \(ClusterRole, cluster-scoped\): managed by kubectl-create$/m,
    );
    assert.equal((r.stdout.match(/ refused \(server dry run\)/g) ?? []).length, 5, r.stdout);
    assert.match(r.stdout, /^namespace\/image-inventory-workers created \(server dry run\)$/m);
    assert.match(
      r.stderr,
      /install would refuse 5 objects that inv did not write; --force-conflicts takes them over/,
    );
    await unchanged();
    assert.equal(await exists(`/api/v1/namespaces/${WORKERS}`), false);
  });

  it('uninstall keeps foreign objects of every kind, and names them', async () => {
    const r = inv(['uninstall', '--crds', '--yes']);
    assert.equal(r.status, 0, r.stderr);
    for (const name of [
      'customresourcedefinition.apiextensions.k8s.io/imagejobs.erase.imageinventory.dev',
      'clusterrolebinding.rbac.authorization.k8s.io/image-inventory-controller',
      'clusterrole.rbac.authorization.k8s.io/image-inventory-controller',
      'serviceaccount/image-inventory-controller',
      'namespace/image-inventory-system',
    ])
      assert.match(
        r.stdout,
        new RegExp(
          `^${name.replace(/\./g, '\\.')} kept: not installed by inv \\(managed by (kubectl-create|helm); no label`,
          'm',
        ),
      );
    await unchanged();
  });

  it('--force-conflicts takes them over: our rules and subjects, their other fields kept', async () => {
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:1', '--force-conflicts']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^clusterrole\.rbac\.authorization\.k8s\.io\/image-inventory-controller taken over: .*managed by kubectl-create$/m,
    );
    assert.equal((r.stdout.match(/ taken over: /g) ?? []).length, 5, r.stdout);
    const role = await rest.get<k8s.V1ClusterRole>(`${RBAC}/clusterroles/image-inventory-controller`);
    assert.ok(!role.rules!.some((x) => x.resources?.includes('secrets')), 'the foreign rule was replaced');
    assert.equal(role.metadata!.labels!['app.kubernetes.io/part-of'], 'image-inventory');
    assert.equal(role.metadata!.labels!.team, 'payments', 'fields inv does not set stay');
    const binding = await rest.get<k8s.V1ClusterRoleBinding>(
      `${RBAC}/clusterrolebindings/image-inventory-controller`,
    );
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'image-inventory-controller', namespace: SYSTEM },
    ]);
  });

  it('a second install upgrades without --force-conflicts', () => {
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:2']);
    assert.equal(r.status, 0, r.stderr);
    // The workers' image (written with the daemon's by the first install) moves with it.
    assert.deepEqual(r.stdout.match(/^.* (configured|created|taken over)(: .*)?$/gm), [
      'deployment.apps/image-inventory-controller configured',
      "configmap/inv-erase-config configured: worker settings follow the daemon's (registry.example.com/inv:2)",
    ]);
  });

  it('an installation made with kubectl apply -k deploy/ (our label, another manager) upgrades', async () => {
    const path = `/apis/networking.k8s.io/v1/namespaces/${WORKERS}/networkpolicies/deny-all`;
    await rest.request('DELETE', path);
    await rest.request('POST', `/apis/networking.k8s.io/v1/namespaces/${WORKERS}/networkpolicies`, {
      query: { fieldManager: 'kubectl-client-side-apply' },
      body: {
        metadata: { name: 'deny-all', labels: { 'app.kubernetes.io/part-of': 'image-inventory' } },
        spec: { podSelector: {}, policyTypes: ['Ingress'] },
      },
    });
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:2']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.match(/^.* (configured|created|taken over)$/gm), [
      'networkpolicy.networking.k8s.io/deny-all configured',
    ]);
  });

  it('an object created between the check and the write is checked again, never taken over', async () => {
    const role = FOREIGN.find((f) => f.path.endsWith('/clusterroles/image-inventory-controller'))!;
    await rest.request('DELETE', role.path);
    // The other team creates its ClusterRole right after install's check, before install writes it.
    const racing = Object.create(rest) as KubeRest;
    let raced = false;
    racing.request = async <T>(method: string, path: string, opts?: Parameters<KubeRest['request']>[2]) => {
      if (method === 'PATCH' && path === role.path && !raced) {
        raced = true;
        await rest.request('POST', role.collection, {
          body: role.body,
          query: { fieldManager: 'kubectl-create' },
        });
      }
      return rest.request<T>(method, path, opts);
    };
    const err = await install(racing, { daemon: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ForeignObjectsError, String(err));
    assert.equal(raced, true);
    assert.deepEqual(
      err.foreign.map((f) => f.name),
      ['clusterrole.rbac.authorization.k8s.io/image-inventory-controller'],
    );
    assert.ok(err.applied.includes('serviceaccount/image-inventory-controller'), err.message);
    const now = await rest.get<k8s.V1ClusterRole>(role.path);
    assert.deepEqual(now.rules, [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    assert.deepEqual(now.metadata!.labels, TEAM);
    assert.deepEqual(
      now.metadata!.managedFields!.map((f) => f.manager),
      ['kubectl-create'],
    );
  });

  it('an object of ours changed between the check and the write is read again and applied', async () => {
    await rest.request('DELETE', `${RBAC}/clusterroles/image-inventory-controller`);
    const sa = `/api/v1/namespaces/${SYSTEM}/serviceaccounts/image-inventory-controller`;
    const racing = Object.create(rest) as KubeRest;
    let raced = 0;
    racing.request = async <T>(method: string, path: string, opts?: Parameters<KubeRest['request']>[2]) => {
      if (method === 'PATCH' && path === sa && raced++ === 0)
        await rest.request('PATCH', sa, {
          body: { metadata: { annotations: { owner: 'someone' } } },
          contentType: 'application/merge-patch+json',
          query: { fieldManager: 'kubectl-annotate' },
        });
      return rest.request<T>(method, path, opts);
    };
    const steps = await install(racing, { daemon: true });
    assert.equal(raced, 2, 'the apply was sent again after its 409');
    assert.ok(
      steps.some(
        (x) =>
          x.name === 'clusterrole.rbac.authorization.k8s.io/image-inventory-controller' &&
          x.action === 'created',
      ),
    );
    const now = await rest.get<k8s.V1ServiceAccount>(sa);
    assert.equal(now.metadata!.annotations!.owner, 'someone', 'what others put on our object stays');
  });

  it('uninstall then deletes what is now inv’s', async () => {
    const r = inv(['uninstall', '--crds', '--yes']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^clusterrole\.rbac\.authorization\.k8s\.io\/image-inventory-controller deleted$/m,
    );
    assert.match(
      r.stdout,
      /^customresourcedefinition\.apiextensions\.k8s\.io\/imagejobs\.erase\.imageinventory\.dev deleted$/m,
    );
    assert.equal(await exists(`${RBAC}/clusterrolebindings/image-inventory-controller`), false);
  });
});
