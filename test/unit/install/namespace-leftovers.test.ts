// Which objects keep a namespace of ours at uninstall (namespace-leftovers.ts): pure cases.
import assert from 'node:assert/strict';
import { foreignObjects, type NamespacedObject } from '../../../src/core/install/namespace-leftovers.js';

const obj = (
  kind: string,
  name: string,
  meta: Partial<NamespacedObject['metadata']> = {},
  group = '',
): NamespacedObject => ({ group, kind, metadata: { name, uid: `${kind}-${name}`, ...meta } });
const inv = { managedFields: [{ manager: 'inv' }] };
const owned = (kind: string, name: string, apiVersion = 'apps/v1') => ({
  ownerReferences: [{ apiVersion, kind, uid: `${kind}-${name}` }],
});
const none = { bundle: new Set<string>(), kept: new Set<string>(), deleted: new Set<string>() };
const PART_OF = { 'app.kubernetes.io/part-of': 'image-inventory' };
const KINDS = new Set(['apps/Deployment', 'apps/ReplicaSet', '/Pod', '/Service', '/Secret']);

describe('namespace leftovers', () => {
  it('counts only what inv did not create and Kubernetes did not make for it', () => {
    const objects = [
      obj('Deployment', 'ctl', inv, 'apps'),
      obj('ReplicaSet', 'ctl-1', owned('Deployment', 'ctl'), 'apps'),
      obj('Pod', 'ctl-1-x', owned('ReplicaSet', 'ctl-1')),
      obj('Service', 'metrics', inv),
      obj('Endpoints', 'metrics'),
      obj('ServiceAccount', 'default'),
      obj('ConfigMap', 'kube-root-ca.crt'),
      obj('Pod', 'worker', { labels: { 'app.kubernetes.io/managed-by': 'inv-erase' } }),
      obj('Lease', 'hb', { labels: { 'imageinventory.dev/heartbeat-for': 'x' } }, 'coordination.k8s.io'),
      obj('Secret', 'theirs'),
      obj('Deployment', 'their-app', {}, 'apps'),
      obj('ReplicaSet', 'their-app-1', owned('Deployment', 'their-app'), 'apps'),
      obj('Endpoints', 'no-service'),
    ];
    assert.deepEqual(foreignObjects(objects, none, KINDS), [
      'deployment.apps/their-app',
      'endpoints/no-service',
      'replicaset.apps/their-app-1',
      'secret/theirs',
    ]);
  });

  it('an object uninstall keeps although inv wrote it counts', () => {
    const cfg = obj('ConfigMap', 'inv-erase-config', { labels: PART_OF });
    const bundle = new Set(['configmap/inv-erase-config']);
    assert.deepEqual(foreignObjects([cfg], { ...none, bundle }), []);
    assert.deepEqual(
      foreignObjects([cfg], { bundle, kept: new Set(['configmap/inv-erase-config']), deleted: new Set() }),
      ['configmap/inv-erase-config'],
    );
  });

  it("our part-of label is ours only on the bundle's objects: the administrator's labelled Secret keeps the namespace", () => {
    const bundle = new Set(['serviceaccount/image-inventory-controller']);
    const sa = obj('ServiceAccount', 'image-inventory-controller', {
      labels: PART_OF,
      managedFields: [{ manager: 'kubectl-client-side-apply' }],
    });
    const pull = obj('Secret', 'registry-pull', {
      labels: PART_OF,
      managedFields: [{ manager: 'kubectl-create' }],
    });
    const lease = obj('Lease', 'image-inventory-controller', inv, 'coordination.k8s.io');
    assert.deepEqual(foreignObjects([sa, pull, lease], { ...none, bundle }), ['secret/registry-pull']);
  });

  it('dependents of a deleted or vanished owner go; of an unknown cluster-scoped owner, they stay', () => {
    const rs = obj('ReplicaSet', 'ctl-1', owned('Deployment', 'ctl'), 'apps');
    assert.deepEqual(foreignObjects([rs], none), ['replicaset.apps/ctl-1'], 'unknown kind: kept');
    assert.deepEqual(foreignObjects([rs], { ...none, deleted: new Set(['Deployment-ctl']) }), []);
    assert.deepEqual(
      foreignObjects([rs], none, KINDS),
      [],
      'a namespaced owner not in the namespace is gone',
    );
    const byNode = obj('Pod', 'mirror', owned('Node', 'n1', 'v1'));
    assert.deepEqual(foreignObjects([byNode], none, KINDS), ['pod/mirror']);
  });

  it('a token Secret follows its ServiceAccount; an ownership cycle ends', () => {
    const sa = obj('ServiceAccount', 'ctl', inv);
    const tok = obj('Secret', 'ctl-token', { annotations: { 'kubernetes.io/service-account.name': 'ctl' } });
    assert.deepEqual(foreignObjects([sa, tok], none), []);
    const a = obj('ConfigMap', 'a', owned('ConfigMap', 'b', 'v1'));
    const b = obj('ConfigMap', 'b', owned('ConfigMap', 'a', 'v1'));
    assert.deepEqual(foreignObjects([a, b], none), ['configmap/a', 'configmap/b']);
  });
});
