// Declared source kinds beyond the inventory, against the real API server with Argo Rollouts'
// own CRD (fetched into .cache/ by scripts/argo-rollouts.mjs): `inv install --daemon` grants list
// and watch on the declared kinds and `inv check` verifies it; a * prune's protected set credits
// an undeclared owner's image while its Pod exists, and a declared kind's template after. The
// inventory of declared kinds (scan, status.users, scan -f, inv watch): source-kinds.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { discoverKinds } from '../../src/core/inventory/discover-kinds.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { isNotFound } from '../../src/core/kube/rest.js';
import { ScanProtection } from '../../src/core/erase/worker/inventory-protection.js';
import { buildProtectedSet } from '../../src/core/contract/protected-set.js';
import { runCli } from '../cli/run-cli.js';
import { kubeconfigPath, newNamespace } from '../support/kube.js';
import { until } from '../watch/helpers.js';
import { setupEnv, type Env } from './helpers.js';
import { installRollouts, KINDS_FILE, ROLLOUTS, type Obj } from './source-kinds-helpers.js';

describe('declared source kinds (Argo Rollouts, real API server)', function () {
  this.timeout(120_000);
  let env: Env;

  before(async () => {
    env = await setupEnv();
    await installRollouts(env);
  });

  after(() => env?.rest.close());

  it('inv install grants list and watch on the declared kinds; inv check verifies it', async () => {
    type Check = { group: string; name: string; status: string; detail?: string };
    const check = (file: string) => {
      const r = runCli(['check', '--source-kinds', file, '-o', 'json', '--kubeconfig', kubeconfigPath()]);
      return (JSON.parse(r.stdout) as { checks: Check[] }).checks.filter((c) => c.group === 'source kinds');
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-kinds-'));
    const file = path.join(dir, 'kinds.yaml');
    fs.writeFileSync(
      file,
      fs.readFileSync(KINDS_FILE, 'utf8') +
        '  - { group: widgets.example.com, version: v1, kind: Gadget, podTemplates: [spec.template] }\n',
    );
    const before = check(file);
    assert.deepEqual(
      before.map((c) => [c.name, c.status]),
      [
        ['Gadget.widgets.example.com', 'warn'],
        ['Rollout.argoproj.io', 'fail'],
      ],
    );
    assert.match(before[1]!.detail!, /the daemon may not list, watch rollouts\.argoproj\.io/);
    // The bundle's objects for the declared kinds, as `inv install --daemon` applies them.
    const r = runCli(['install', '--daemon', '--source-kinds', KINDS_FILE, '--dry-run']);
    assert.equal(r.status, 0, r.stderr);
    const objs = parseAllDocuments(r.stdout).map(
      (d) => d.toJS() as Obj & { data?: Record<string, string>; rules?: unknown },
    );
    const cm = objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'inv-source-kinds')!;
    assert.equal(cm.data!['source-kinds.yaml'], fs.readFileSync(KINDS_FILE, 'utf8'));
    const role = objs.find(
      (o) => o.kind === 'ClusterRole' && o.metadata.name === 'image-inventory-source-kinds',
    )!;
    assert.deepEqual(role.rules, [
      { apiGroups: ['argoproj.io'], resources: ['rollouts'], verbs: ['list', 'watch'] },
    ]);
    const binding = objs.find(
      (o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'image-inventory-source-kinds',
    )!;
    // An earlier file of the same run may have applied deploy/, which holds these two objects.
    for (const p of ['clusterrolebindings', 'clusterroles'])
      await env.rest
        .request('DELETE', `/apis/rbac.authorization.k8s.io/v1/${p}/image-inventory-source-kinds`)
        .catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    await env.rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: role });
    await env.rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: binding,
    });
    try {
      await until('inv check passes the Rollout', () => check(file)[1]?.status === 'pass', 20_000, 500);
      assert.match(check(file)[1]!.detail!, /served as rollouts; the daemon may list, watch/);
    } finally {
      await env.rest.request(
        'DELETE',
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/image-inventory-source-kinds',
      );
      await env.rest.request(
        'DELETE',
        '/apis/rbac.authorization.k8s.io/v1/clusterroles/image-inventory-source-kinds',
      );
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a * prune's protected set: an undeclared owner's Pod protects while it exists, a declared kind's template after", async () => {
    // A CRD of our own, not declared: its objects own Pods the way any controller's do.
    const group = 'kinds-test.example.com';
    await installCrds(env.rest, [
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      } as never,
    ]);
    const pns = await newNamespace('kinds-prot');
    const post = <T>(p: string, body: unknown) => env.rest.request<T>('POST', p, { body });
    type Created = { metadata: { uid: string } };
    const widget = await post<Created>(`/apis/${group}/v1/namespaces/${pns}/widgets`, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w' },
    });
    const ownedPod = (name: string, image: string, owner: Record<string, unknown>) =>
      post(`/api/v1/namespaces/${pns}/pods`, {
        metadata: { name, ownerReferences: [{ ...owner, controller: true }] },
        spec: { containers: [{ name: 'c', image }] },
      });
    await ownedPod('w-pod', 'example.com/widget-app:1', {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      name: 'w',
      uid: widget.metadata.uid,
    });
    const ro = await post<Created>(`${ROLLOUTS}/namespaces/${pns}/rollouts`, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'ro' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'ro' } },
        template: {
          metadata: { labels: { app: 'ro' } },
          spec: { containers: [{ name: 'c', image: 'example.com/rollout-app:1' }] },
        },
      },
    });
    const rs = await post<Created>(`/apis/apps/v1/namespaces/${pns}/replicasets`, {
      metadata: {
        name: 'ro-1',
        ownerReferences: [
          {
            apiVersion: 'argoproj.io/v1alpha1',
            kind: 'Rollout',
            name: 'ro',
            uid: ro.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'ro' } },
        template: {
          metadata: { labels: { app: 'ro' } },
          spec: { containers: [{ name: 'c', image: 'x:1' }] },
        },
      },
    });
    await ownedPod('ro-1-pod', 'example.com/rollout-app:1', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'ro-1',
      uid: rs.metadata.uid,
    });
    const { kinds } = await discoverKinds(
      env.rest,
      parseSourceKinds(fs.readFileSync(KINDS_FILE, 'utf8'), 'f'),
    );
    const protectedSet = async () => buildProtectedSet(await new ScanProtection(env.rest, kinds).uses());
    const before = await protectedSet();
    assert.equal(before.get('example.com/widget-app:1'), `referenced by Widget in ${pns}`);
    assert.equal(before.get('example.com/rollout-app:1'), `referenced by Rollout in ${pns}`);
    for (const p of ['w-pod', 'ro-1-pod'])
      await env.rest.request('DELETE', `/api/v1/namespaces/${pns}/pods/${p}`, {
        query: { gracePeriodSeconds: 0 },
      });
    await until('Pods gone', async () => {
      const { items } = await env.rest.list(`/api/v1/namespaces/${pns}/pods`);
      return items.length === 0;
    });
    const after = await protectedSet();
    assert.equal(after.has('example.com/widget-app:1'), false, 'nothing references it any more');
    assert.equal(
      after.get('example.com/rollout-app:1'),
      `referenced by Rollout in ${pns}`,
      'the Rollout at 0 still does',
    );
  });
});
