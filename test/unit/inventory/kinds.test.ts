// The kind registry (src/core/kube/kinds.ts): every path inv builds comes from it (through
// src/core/kube/resources.ts).
import assert from 'node:assert/strict';
import { kindInfo, splitApiVersion } from '../../../src/core/kube/kinds.js';
import { collectionPath, kindCollectionPath, objectPath } from '../../../src/core/kube/resources.js';
import { BUILTIN } from '../../../src/core/inventory/source-kinds.js';
import { collectionPath as sourceCollection } from '../../../src/core/inventory/sources.js';

const sourcePath = (kind: string, ns?: string) => sourceCollection(BUILTIN.byKind(kind)!, ns);

describe('kind registry', () => {
  it('derives plurals that lowercase + "s" gets wrong', () => {
    assert.equal(kindInfo('networking.k8s.io', 'NetworkPolicy').plural, 'networkpolicies');
    assert.equal(
      kindCollectionPath('networking.k8s.io', 'NetworkPolicy', 'a'),
      '/apis/networking.k8s.io/v1/namespaces/a/networkpolicies',
    );
    assert.equal(kindCollectionPath('', 'Node'), '/api/v1/nodes');
  });

  it('refuses an undeclared kind, naming it', () => {
    assert.throws(
      () => kindInfo('example.com', 'Widget'),
      /kind Widget\.example\.com is not in the kind registry/,
    );
    assert.throws(
      () => collectionPath({ group: '', version: 'v1', kind: 'Ingresss', namespace: 'a' }),
      /kind Ingresss is not in the kind registry/,
    );
  });

  it('refuses a namespace on a cluster-scoped kind', () => {
    assert.throws(() => kindCollectionPath('', 'Node', 'a'), /Node is cluster-scoped/);
  });

  it('builds the reconciler paths from the registry, keeping the requested version', () => {
    assert.equal(
      objectPath({
        group: '',
        version: 'v1',
        kind: 'ConfigMap',
        namespace: 'inv-system',
        name: 'j-protected-0',
      }),
      '/api/v1/namespaces/inv-system/configmaps/j-protected-0',
    );
    assert.equal(
      collectionPath({
        group: 'erase.imageinventory.dev',
        version: 'v1alpha1',
        kind: 'ImageJob',
        namespace: '',
      }),
      '/apis/erase.imageinventory.dev/v1alpha1/imagejobs',
    );
    assert.equal(sourcePath('CronJob', 'shop'), '/apis/batch/v1/namespaces/shop/cronjobs');
    assert.equal(sourcePath('Pod'), '/api/v1/pods');
  });

  it('splits apiVersions', () => {
    assert.deepEqual(splitApiVersion('apps/v1'), { group: 'apps', version: 'v1' });
    assert.deepEqual(splitApiVersion('v1'), { group: '', version: 'v1' });
  });
});
