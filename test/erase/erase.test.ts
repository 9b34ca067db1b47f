// `inv erase` controllers end to end: real API server, real containerd, the harness as kubelet.
import assert from 'node:assert/strict';
import { connect, criAvailable, runPod, waitFor, type RunningPod } from '../support/cri.js';
import { addImages } from '../support/oci.js';
import { EraseEnv, results } from './helpers.js';
import type { CriClient } from '../../src/core/cri/index.js';

describe('erase: ImageList and ImageJob controllers', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  let cri: CriClient;
  before(async function () {
    if (!criAvailable()) this.skip();
    cri = await connect();
  });
  after(() => cri?.close());
  beforeEach(async () => {
    env = await new EraseEnv().setup();
  });
  afterEach(async () => {
    await env.teardown();
  });

  it('full erase over 3 nodes: targeted unused images are removed from containerd, in-use ones kept', async () => {
    const t = env.tag;
    const [gone1, gone2, used] = await addImages([
      { refs: [`docker.io/library/erase-a-${t}:1`], distinct: `a-${t}` },
      { refs: [`docker.io/library/erase-b-${t}:1`], distinct: `b-${t}` },
      { refs: [`docker.io/library/erase-used-${t}:1`], distinct: `u-${t}` },
    ]);
    const running: RunningPod = await runPod(cri, `docker.io/library/erase-used-${t}:1`);
    try {
      const nodes = await env.nodes([{ name: 'n1' }, { name: 'n2' }, { name: 'n3' }]);
      env.startControllers();
      env.startKubelet();
      const name = `full-${t}`;
      const gen = await env.erase({
        name,
        images: [`erase-a-${t}:1`, `docker.io/library/erase-b-${t}:1`, `erase-used-${t}:1`],
      });
      const job = await env.wait(name, gen);
      assert.equal(job.status?.phase, 'Completed', job.status?.message);
      assert.deepEqual(
        [job.status?.desired, job.status?.succeeded, job.status?.failed, job.status?.skipped],
        [3, 3, 0, 0],
      );
      const r = results(job);
      assert.deepEqual(Object.keys(r).sort(), nodes);
      // One containerd serves all three "nodes": whichever worker ran first removed both
      // images; the others found them gone. Every node kept the in-use image.
      assert.equal(
        Object.values(r).reduce((n, x) => n + x.removed, 0),
        2,
      );
      for (const x of Object.values(r)) assert.equal(x.inUse, 1, JSON.stringify(x));
      const ids = (await cri.listImages()).map((i) => i.id);
      assert.ok(!ids.includes(gone1!.id) && !ids.includes(gone2!.id), 'targets removed from containerd');
      assert.ok(ids.includes(used!.id), 'in-use image kept');
      // One worker per node, pinned, restartPolicy Never, with the node's args.
      const pods = await env.objects('pods');
      assert.equal(pods.length, 3);
      assert.equal(env.kubelet!.runs.length, 3);
      assert.deepEqual(env.kubelet!.runs.map((x) => x.node).sort(), nodes);
      // The list got the results.
      await waitFor('list status', async () => {
        const l = await env.rest.get<{ status?: { phase?: string; success?: number } }>(
          `/apis/erase.imageinventory.dev/v1alpha1/imagelists/${name}`,
        );
        return l.status?.phase === 'Completed' && l.status.success === 3;
      });
    } finally {
      await running.cleanup();
    }
  });
});
