// Version negotiation against an in-test server that speaks only runtime.v1alpha2: the client
// must fall back and still hand out runtime.v1 shapes.
import assert from 'node:assert/strict';
import { connectCri } from '../../src/core/cri/index.js';
import { serveFake, type FakeServer } from './fake-runtime.js';

describe('CRI version negotiation (v1alpha2-only runtime)', () => {
  let fake: FakeServer;
  const removed: string[] = [];

  before(async () => {
    fake = await serveFake('v1alpha2', {
      RuntimeService: {
        Version: () => ({
          version: '0.1.0',
          runtimeName: 'oldtainerd',
          runtimeVersion: '1.4.0',
          runtimeApiVersion: 'v1alpha2',
        }),
        ListContainers: () => ({
          containers: [
            {
              id: 'c1',
              podSandboxId: 's1',
              metadata: { name: 'app', attempt: 2 },
              image: { image: 'docker.io/library/app:1' },
              imageRef: 'sha256:aaa',
              state: 'CONTAINER_EXITED',
              createdAt: '1700000000000000000',
              labels: { a: 'b' },
            },
          ],
        }),
        ListPodSandbox: () => ({
          items: [
            {
              id: 's1',
              metadata: { name: 'p', uid: 'u', namespace: 'n', attempt: 0 },
              state: 'SANDBOX_NOTREADY',
            },
          ],
        }),
      },
      ImageService: {
        ListImages: () => ({
          images: [
            {
              id: 'sha256:aaa',
              repoTags: ['docker.io/library/app:1'],
              repoDigests: [],
              size: '12345',
              pinned: true,
            },
          ],
        }),
        ImageStatus: (req) =>
          (req.image as { image: string }).image === 'sha256:aaa'
            ? { image: { id: 'sha256:aaa', size: '1' } }
            : {},
        RemoveImage: (req) => {
          removed.push((req.image as { image: string }).image);
          return {};
        },
      },
    });
  });

  after(async () => fake?.close());

  it('falls back to v1alpha2 and converts answers to v1 shapes', async () => {
    const cri = await connectCri({ endpoint: fake.endpoint, timeoutMs: 3000 });
    try {
      assert.equal(cri.apiVersion, 'v1alpha2');
      assert.deepEqual(cri.runtime, {
        version: '0.1.0',
        runtimeName: 'oldtainerd',
        runtimeVersion: '1.4.0',
        runtimeApiVersion: 'v1alpha2',
      });
      assert.deepEqual(await cri.listImages(), [
        {
          id: 'sha256:aaa',
          repoTags: ['docker.io/library/app:1'],
          repoDigests: [],
          size: 12345,
          spec: null,
          pinned: true,
        },
      ]);
      assert.deepEqual(await cri.listContainers(), [
        {
          id: 'c1',
          podSandboxId: 's1',
          metadata: { name: 'app', attempt: 2 },
          image: { image: 'docker.io/library/app:1', annotations: {} },
          imageRef: 'sha256:aaa',
          imageId: '',
          state: 'CONTAINER_EXITED',
          createdAt: '1700000000000000000',
          labels: { a: 'b' },
        },
      ]);
      const [sb] = await cri.listPodSandboxes();
      assert.equal(sb?.state, 'SANDBOX_NOTREADY');
      assert.equal((await cri.imageStatus('sha256:aaa'))?.id, 'sha256:aaa');
      assert.equal(await cri.imageStatus('sha256:nope'), null);
      await cri.removeImage('sha256:aaa');
      assert.deepEqual(removed, ['sha256:aaa']);
      // Every answered call went to the v1alpha2 services (v1 was refused as UNIMPLEMENTED).
      assert.ok(fake.calls.every((c) => c.startsWith('RuntimeService/') || c.startsWith('ImageService/')));
      assert.ok(fake.calls.includes('RuntimeService/Version'));
    } finally {
      cri.close();
    }
  });

  it('reports a server that implements neither version', async () => {
    const none = await serveFake('v1alpha2', { ImageService: { ListImages: () => ({ images: [] }) } });
    try {
      await assert.rejects(
        connectCri({ endpoint: none.endpoint, timeoutMs: 3000 }),
        /implements neither CRI runtime\.v1 nor runtime\.v1alpha2/,
      );
    } finally {
      await none.close();
    }
  });
});
