// `inv check --nodes` runs its dry run under the ImageList name inv-check; it never overwrites
// or deletes an ImageList of that name that it did not create.
import assert from 'node:assert/strict';
import { CHECK_IMAGELIST, nodesCheck } from '../../src/core/check/nodes.js';
import { IMAGELISTS_PATH, type ImageList } from '../../src/core/erase/api/types.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig } from '../support/kube.js';

describe('inv check --nodes and an existing inv-check ImageList (real API server)', () => {
  it('refuses, says how to go on, and leaves the list exactly as it was', async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    const path = `${IMAGELISTS_PATH}/${CHECK_IMAGELIST}`;
    const mine = await rest.request<ImageList>('POST', IMAGELISTS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageList',
        metadata: { name: CHECK_IMAGELIST },
        spec: { images: ['docker.io/library/someone-elses:1'] },
      },
    });
    try {
      const r = await nodesCheck(rest, { ready: true, timeoutMs: 10_000 });
      assert.equal(r.length, 1);
      assert.equal(r[0]!.status, 'fail');
      assert.match(r[0]!.detail ?? '', /an ImageList named inv-check already exists/);
      assert.match(r[0]!.hint ?? '', /kubectl delete imagelist inv-check/);
      const after = await rest.get<ImageList>(path);
      assert.equal(after.metadata.uid, mine.metadata.uid);
      assert.equal(after.metadata.resourceVersion, mine.metadata.resourceVersion, 'not written');
    } finally {
      await rest.request('DELETE', path).catch(() => undefined);
      rest.close();
    }
  });
});
