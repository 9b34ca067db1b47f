// A finished-looking erase request without controllers: a dry-run ImageList and one ImageJob
// that names it, as the controllers would have created them. For tests of what the CLI and
// kubectl show of them (columns, completion), not of erasing.
import { IMAGEJOBS_PATH, IMAGELISTS_PATH } from '../../src/core/erase/api/types.js';
import type { KubeRest } from '../../src/core/kube/rest.js';

const API_VERSION = 'erase.imageinventory.dev/v1alpha1';
const IMAGES = ['docker.io/library/nothing:1'];

/** Creates ImageList `list` and ImageJob `job` (generation 1 of that list); both dry runs. */
export async function createDryRunListAndJob(rest: KubeRest, list: string, job: string): Promise<void> {
  const created = await rest.request<{ metadata: { uid: string } }>('POST', IMAGELISTS_PATH, {
    body: {
      apiVersion: API_VERSION,
      kind: 'ImageList',
      metadata: { name: list },
      spec: { images: IMAGES, dryRun: true },
    },
  });
  await rest.request('POST', IMAGEJOBS_PATH, {
    body: {
      apiVersion: API_VERSION,
      kind: 'ImageJob',
      metadata: { name: job },
      spec: {
        imageList: { name: list, uid: created.metadata.uid, generation: 1 },
        namespace: 'inv-system',
        images: IMAGES,
        dryRun: true,
        config: {},
      },
    },
  });
}
