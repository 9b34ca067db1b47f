// The CRI client against the run's real private containerd: version negotiation, images
// imported from an OCI archive built by the test, and a real container in a real pod sandbox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CriClient } from '../../src/core/cri/index.js';
import { connect, criAvailable, runPod, waitFor, waitForImages } from '../support/cri.js';
import { buildImageArchive, importImage } from '../support/oci.js';

describe('CRI client against a real containerd', function () {
  let cri: CriClient;
  let tmp: string;

  before(async function () {
    if (!criAvailable()) this.skip();
    cri = await connect();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-cri-test-'));
  });

  after(() => {
    cri?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('negotiates runtime.v1 and reports the runtime version', async () => {
    assert.equal(cri.apiVersion, 'v1');
    const v = await cri.version();
    assert.equal(v.runtimeName, 'containerd');
    assert.equal(v.runtimeApiVersion, 'v1');
    assert.match(v.runtimeVersion, /^\d+\.\d+/);
  });

  it('exposes the configured sandbox image through verbose Status', async () => {
    const st = await cri.status(true);
    assert.equal(JSON.parse(st.info.config ?? '{}').sandboxImage, 'inv.test/pause:1');
  });

  it('lists an imported image, runs it in a pod, sees it RUNNING, then cleans up', async () => {
    const ref = 'docker.io/inv-test/cri-basic:1';
    const file = path.join(tmp, 'basic.tar');
    const built = await buildImageArchive({
      refs: [ref],
      distinct: `basic-${Date.now()}`,
      file,
      digestRefs: true,
    });
    await importImage(file);

    const [img] = await waitForImages(cri, [built.id]);
    assert.deepEqual(img!.repoTags, [ref]);
    assert.deepEqual(img!.repoDigests, [`docker.io/inv-test/cri-basic@${built.manifestDigest}`]);
    assert.ok(img!.size > 1_000_000, 'busybox layer is counted in the size');
    assert.equal((await cri.imageStatus(ref))?.id, built.id);
    assert.equal((await cri.imageStatus(built.id))?.id, built.id);

    const pod = await runPod(cri, ref);
    try {
      const c = (await cri.listContainers()).find((x) => x.id === pod.containerId);
      assert.ok(c, 'container is listed');
      assert.equal(c.state, 'CONTAINER_RUNNING');
      assert.equal(c.podSandboxId, pod.sandboxId);
      assert.equal(c.image?.image, ref);
      assert.equal(c.imageRef, built.id);
      assert.equal(c.metadata?.name, 'main');
      const sb = (await cri.listPodSandboxes()).find((s) => s.id === pod.sandboxId);
      assert.equal(sb?.state, 'SANDBOX_READY');
    } finally {
      await pod.cleanup();
    }
    assert.ok(!(await cri.listContainers()).some((c) => c.id === pod.containerId));
    assert.ok(!(await cri.listPodSandboxes()).some((s) => s.id === pod.sandboxId));

    await cri.removeImage(built.id);
    await waitFor('image gone', async () => !(await cri.listImages()).some((i) => i.id === built.id));
    assert.equal(await cri.imageStatus(ref), null);
  });

  it('reports a refused call as a CriError of kind "call" naming the endpoint', async () => {
    await assert.rejects(
      cri.call('runtime', 'ContainerStatus', { containerId: 'does-not-exist' }),
      (err: Error & { kind?: string }) => err.kind === 'call' && err.message.includes(cri.endpoint),
    );
  });
});
