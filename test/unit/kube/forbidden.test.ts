// src/core/kube/forbidden.ts: a 403 said as the permission that is missing.
import assert from 'node:assert/strict';
import { forbiddenMessage, permissionFor } from '../../../src/core/kube/forbidden.js';
import { KubeApiError } from '../../../src/core/kube/rest.js';

describe('permissionFor', () => {
  it('reads the verb, resource, group and namespace from the request', () => {
    assert.deepEqual(permissionFor('GET', '/apis/apps/v1/namespaces/shop/deployments'), {
      verb: 'list',
      resource: 'deployments',
      group: 'apps',
      namespace: 'shop',
    });
    assert.deepEqual(permissionFor('GET', '/api/v1/namespaces/shop'), {
      verb: 'get',
      resource: 'namespaces',
      group: '',
      namespace: undefined,
    });
    assert.deepEqual(permissionFor('GET', '/api/v1/namespaces'), {
      verb: 'list',
      resource: 'namespaces',
      group: '',
      namespace: undefined,
    });
    assert.deepEqual(
      permissionFor('PATCH', '/apis/imageinventory.dev/v1alpha1/namespaces/a/images/x/status'),
      { verb: 'patch', resource: 'images/status', group: 'imageinventory.dev', namespace: 'a' },
    );
    assert.equal(permissionFor('GET', '/version'), undefined);
  });

  it('words a 403 for a person and leaves other errors alone', () => {
    const e = new KubeApiError(403, 'Forbidden', 'x', 'GET', '/api/v1/namespaces/shop/pods');
    assert.equal(
      forbiddenMessage(e),
      'forbidden: you may not list pods in namespace "shop"; ask for a Role (or ClusterRole) that grants verb "list" on resource "pods" in API group ""',
    );
    assert.equal(forbiddenMessage(new KubeApiError(404, 'NotFound', 'x', 'GET', '/api/v1/pods')), undefined);
    const terminating = new KubeApiError(403, 'Forbidden', 'x', 'POST', '/api/v1/namespaces/a/events', [
      'NamespaceTerminating',
    ]);
    assert.equal(forbiddenMessage(terminating), undefined);
  });
});
