// Smoke tests: the Go-built kube-apiserver behaves like a real cluster for everything the
// project relies on (CRDs + status subresource, RBAC with ServiceAccount tokens, watch,
// server-side apply, Leases).
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeApiError, KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig } from '../support/kube.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('test API server (real kube-apiserver)', () => {
  let kc: k8s.KubeConfig;
  let rest: KubeRest;
  let ns: string;

  useNamespace('smoke', (n) => (ns = n));
  before(async () => {
    kc = adminConfig();
    rest = new KubeRest(kc);
  });
  after(() => rest.close());

  it('serves a real Kubernetes version over TLS', async () => {
    const v = await rest.get<{ major: string; minor: string; gitVersion: string }>('/version');
    assert.match(v.gitVersion, /^v1\.(3[4-9]|[4-9]\d)\./);
  });

  it('establishes the CRDs from crds/ and keeps the status an Image is created with', async () => {
    const names = await installCrds(rest);
    assert.ok(names.includes('images.imageinventory.dev'));
    const base = `/apis/imageinventory.dev/v1alpha1/namespaces/${ns}/images`;
    const created = await rest.request<{ metadata: { resourceVersion: string }; status?: unknown }>(
      'POST',
      base,
      {
        body: {
          apiVersion: 'imageinventory.dev/v1alpha1',
          kind: 'Image',
          metadata: { name: 'smoke' },
          spec: { image: 'docker.io/library/nginx:1.25' },
          status: { kinds: 'Pod' },
        },
      },
    );
    // No status subresource (one write per new Image): the create keeps the status, and an
    // update of the object writes it.
    assert.deepEqual(created.status, { kinds: 'Pod' });
    await rest.request('PUT', `${base}/smoke`, {
      body: {
        apiVersion: 'imageinventory.dev/v1alpha1',
        kind: 'Image',
        metadata: { name: 'smoke', resourceVersion: created.metadata.resourceVersion },
        spec: { image: 'docker.io/library/nginx:1.25' },
        status: { kinds: 'Deployment,Pod' },
      },
    });
    const got = await rest.get<{ status: { kinds: string } }>(`${base}/smoke`);
    assert.equal(got.status.kinds, 'Deployment,Pod');
    // The schema rejects garbage.
    await assert.rejects(
      rest.request('POST', base, {
        body: {
          apiVersion: 'imageinventory.dev/v1alpha1',
          kind: 'Image',
          metadata: { name: 'bad' },
          spec: { image: 'has space' },
        },
      }),
      (e: unknown) => e instanceof KubeApiError && e.code === 422,
    );
  });

  it('denies a ServiceAccount token (403) until a Role grants access', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'reader' } } });
    const tr = await core.createNamespacedServiceAccountToken({
      namespace: ns,
      name: 'reader',
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const token = tr.status?.token;
    assert.ok(token, 'TokenRequest returned a token');
    const saKc = new k8s.KubeConfig();
    saKc.loadFromOptions({
      clusters: [{ ...kc.getCurrentCluster()!, name: 'c' }],
      users: [{ name: 'sa', token }],
      contexts: [{ name: 'sa', cluster: 'c', user: 'sa' }],
      currentContext: 'sa',
    });
    const saRest = new KubeRest(saKc);
    try {
      await assert.rejects(
        saRest.get(`/api/v1/namespaces/${ns}/pods`),
        (e: unknown) => e instanceof KubeApiError && e.code === 403,
      );
      await rbac.createNamespacedRole({
        namespace: ns,
        body: {
          metadata: { name: 'pod-reader' },
          rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
        },
      });
      await rbac.createNamespacedRoleBinding({
        namespace: ns,
        body: {
          metadata: { name: 'pod-reader' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
        },
      });
      let ok = false;
      for (let i = 0; i < 50 && !ok; i++) {
        try {
          await saRest.get(`/api/v1/namespaces/${ns}/pods`);
          ok = true;
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.ok(ok, 'the RoleBinding grants list pods');
      await assert.rejects(
        saRest.get(`/api/v1/namespaces/${ns}/secrets`),
        (e: unknown) => e instanceof KubeApiError && e.code === 403,
      );
    } finally {
      saRest.close();
    }
  });

  it('supports watch, server-side apply and Leases', async () => {
    const watch = new k8s.Watch(kc);
    const seen: string[] = [];
    const req = await watch.watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      {},
      (type, obj: k8s.V1ConfigMap) => {
        seen.push(`${type}:${obj.metadata?.name}`);
      },
      () => undefined,
    );
    await rest.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/applied`, {
      query: { fieldManager: 'inv-smoke' },
      contentType: 'application/apply-patch+yaml',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } },
    });
    const cm = await rest.get<{ metadata: { managedFields: { manager: string; operation: string }[] } }>(
      `/api/v1/namespaces/${ns}/configmaps/applied`,
    );
    assert.ok(cm.metadata.managedFields.some((f) => f.manager === 'inv-smoke' && f.operation === 'Apply'));
    for (let i = 0; i < 50 && !seen.includes('ADDED:applied'); i++)
      await new Promise((r) => setTimeout(r, 100));
    req.abort();
    assert.ok(seen.includes('ADDED:applied'), `watch saw ${seen.join(',')}`);
    const coord = kc.makeApiClient(k8s.CoordinationV1Api);
    const lease = await coord.createNamespacedLease({
      namespace: ns,
      body: { metadata: { name: 'smoke' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
    });
    assert.equal(lease.spec?.holderIdentity, 'a');
  });
});
