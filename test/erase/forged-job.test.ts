// A hand-made ImageJob that copies a live dry-run list's owner reference and UID, but asks for
// other images and a real run, on the real API server: refused before anything is created, with
// the fields that differ. (Creating ImageJobs is a right no documented role has; the check is
// for whoever holds it anyway.) The list's own job still runs.
import assert from 'node:assert/strict';
import { waitFor } from '../support/cri.js';
import { EraseEnv, eraseEnvPerTest } from './helpers.js';
import {
  API_VERSION,
  IMAGEJOBS_PATH,
  IMAGELISTS_PATH,
  type ImageJob,
  type ImageList,
} from '../../src/core/erase/api/types.js';
import { DEFAULT_CONFIG } from '../../src/core/erase/config/config.js';

describe('erase: a job must ask for what its list asks for', function () {
  this.timeout(60_000);
  let env: EraseEnv;
  eraseEnvPerTest((e) => (env = e));

  it('refuses a copy of a dry-run list job that asks for other images and a real run', async () => {
    await env.nodes([{ name: 'a' }]);
    env.startControllers();
    env.startKubelet();
    const name = `dry-${env.tag}`;
    const gen = await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`], dryRun: true });
    const real = await env.wait(name, gen);
    assert.equal(real.status?.phase, 'Completed');
    const list = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
    const forged = `forged-${env.tag}`;
    await env.rest.request('POST', IMAGEJOBS_PATH, {
      body: {
        apiVersion: API_VERSION,
        kind: 'ImageJob',
        metadata: {
          name: forged,
          ownerReferences: [
            { apiVersion: API_VERSION, kind: 'ImageList', name, uid: list.metadata.uid, controller: true },
          ],
        },
        spec: {
          imageList: { name, uid: list.metadata.uid, generation: list.metadata.generation },
          namespace: env.namespace,
          images: ['docker.io/library/busybox:1'],
          dryRun: false,
          nodeSelector: list.spec.nodeSelector,
          exclusions: [],
          config: DEFAULT_CONFIG,
        },
      },
    });
    let job: ImageJob | undefined;
    await waitFor(
      'the forged job refused',
      async () => (job = await env.job(forged))?.status?.phase === 'Failed',
      20_000,
    );
    assert.equal(
      job!.status?.message,
      `refused: its spec differs from what ImageList ${name} asks for (images, dryRun)`,
    );
    assert.equal(job!.status?.planned, undefined, 'never planned');
    const objects = await env.objects('configmaps', `erase.imageinventory.dev/job=${forged}`);
    assert.deepEqual(objects, [], 'nothing created for it');
  });
});
