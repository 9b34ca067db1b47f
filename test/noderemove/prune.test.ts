// `inv node-remove --images '*'` on a containerd of its own: pruning removes every image of the
// runtime, so it must not run on the containerd the other test files share. Everything is real:
// images imported from OCI archives, a running and an exited container in real sandboxes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectCri, type CriClient } from '../../src/core/cri/index.js';
import {
  criAvailable,
  RUNTIMES,
  runPod,
  useRuntime,
  waitForImages,
  type RunningPod,
} from '../support/cri.js';
import { buildImagesArchive, importImage } from '../support/oci.js';
import { repoRoot } from '../support/paths.js';
import { runNodeRemove } from './helpers.js';

interface CriScript {
  up(dir: string, opts?: { runtime?: string }): Promise<{ endpoint: string; address: string }>;
  down(dir: string): Promise<void>;
}

for (const runtime of RUNTIMES)
  describe(`inv node-remove --images '*' (prune) on a dedicated containerd [${runtime}]`, function () {
    before(() => useRuntime(runtime));
    after(() => useRuntime('containerd'));
    let script: CriScript;
    let dir = '';
    let endpoint: string;
    let cri: CriClient;
    const pods: RunningPod[] = [];

    before(async function () {
      if (!criAvailable()) this.skip();
      script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-prune-'));
      const up = await script.up(path.join(dir, 'cri'), { runtime });
      endpoint = up.endpoint;
      cri = await connectCri({ endpoint, timeoutMs: 10_000 });
    });

    after(async () => {
      for (const p of pods) await p.cleanup();
      cri?.close();
      if (dir) {
        await script.down(path.join(dir, 'cri'));
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('removes every image except in-use, excluded and sandbox images', async () => {
      const file = path.join(dir, 'images.tar');
      const refs = {
        free1: 'docker.io/library/free-one:1',
        free2: 'quay.io/org/free-two:2',
        running: 'docker.io/library/running:1',
        exited: 'docker.io/library/exited:1',
        excluded: 'localhost:5000/keep/me:1',
        pause: 'registry.k8s.io/pause:3.9',
      };
      const built = await buildImagesArchive(
        file,
        Object.entries(refs).map(([k, ref]) => ({ refs: [ref], distinct: `prune-${k}` })),
      );
      await importImage(file, endpoint.replace(/^unix:\/\//, ''));
      await waitForImages(
        cri,
        built.map((b) => b.id),
      );
      const id = Object.fromEntries(Object.keys(refs).map((k, i) => [k, built[i]!.id]));
      pods.push(await runPod(cri, refs.running));
      pods.push(await runPod(cri, refs.exited, { exit: true }));
      const sandboxId = (await cri.listImages()).find((i) => i.repoTags.includes('inv.test/pause:1'))!.id;

      const dry = await runNodeRemove(endpoint, [
        '--images',
        '*',
        '--exclude',
        'localhost:5000/keep/*',
        '--dry-run',
        '-o',
        'json',
      ]);
      assert.equal(dry.code, 0, dry.stderr);
      const byId = (r: typeof dry) => Object.fromEntries(r.json!.results.map((x) => [x.imageId, x.outcome]));
      const expected = {
        [id.free1!]: 'would-remove',
        [id.free2!]: 'would-remove',
        [id.running!]: 'in-use',
        [id.exited!]: 'in-use',
        [id.excluded!]: 'excluded',
        [id.pause!]: 'sandbox-image', // the upstream pause image (registry.k8s.io/pause:*)
        // The runtime's sandbox image: it backs the pods' sandboxes (in-use wins over the exclusion
        // that CRI Status also gives it).
        [sandboxId]: 'in-use',
      };
      assert.deepEqual(byId(dry), expected);
      assert.equal((await cri.listImages()).length, 7, 'dry run removed nothing');

      const r = await runNodeRemove(endpoint, [
        '--images',
        '*',
        '--exclude',
        'localhost:5000/keep/*',
        '-o',
        'json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(byId(r), { ...expected, [id.free1!]: 'removed', [id.free2!]: 'removed' });
      assert.deepEqual(
        (await cri.listImages()).map((i) => i.id).sort(),
        [id.running, id.exited, id.excluded, id.pause, sandboxId].sort(),
      );
      // The pods still run: nothing they need was touched.
      const running = (await cri.listContainers()).filter((c) => c.state === 'CONTAINER_RUNNING');
      assert.equal(running.length, 1);
    });
  });
