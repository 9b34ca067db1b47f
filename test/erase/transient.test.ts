// A transport error while starting a job (the API server unreachable for a moment, a reset) is
// retried, never recorded as a rejected request: the list's generation stays startable.
import assert from 'node:assert/strict';
import { ImageListController } from '../../src/core/erase/imagelist-controller.js';
import { IMAGEJOBS_PATH, IMAGELISTS_PATH, type ImageList } from '../../src/core/erase/types.js';
import type { EraseConfig } from '../../src/core/erase/config.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest, KubeTransportError } from '../../src/core/kube/rest.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { waitFor } from '../support/cri.js';

class FlakyConfig extends ImageListController {
  failures = 1;
  override loadConfig(): Promise<EraseConfig> {
    if (this.failures-- > 0)
      return Promise.reject(
        new KubeTransportError(
          'GET /api/v1/namespaces/x/configmaps: socket hang up',
          'GET',
          '/x',
          'ECONNRESET',
        ),
      );
    return super.loadConfig();
  }
}

describe('erase: a transient error never rejects a request (real API server)', () => {
  it('is thrown for the work queue to retry, and the next attempt starts the job', async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    // A CRD just installed can answer 429 while its storage initializes.
    await waitFor('ImageJobs served', () =>
      rest.list(IMAGEJOBS_PATH).then(
        () => true,
        () => false,
      ),
    );
    const ns = await newNamespace('transient');
    const name = `transient-${ns}`;
    await rest.request('POST', IMAGELISTS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageList',
        metadata: { name },
        spec: { images: ['docker.io/library/nothing:1'] },
      },
    });
    const c = new FlakyConfig({ rest, namespace: ns });
    await assert.rejects(c.reconcile(name), KubeTransportError);
    let list = await rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
    assert.notEqual(list.status?.phase, 'Error', 'not recorded as a rejected request');
    await c.reconcile(name);
    list = await rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
    assert.equal(list.status?.phase, 'Running', list.status?.message);
    assert.ok(list.status?.lastJob);
    await rest.request('DELETE', `${IMAGELISTS_PATH}/${name}`);
    rest.close();
  });
});
