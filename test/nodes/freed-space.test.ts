// Freed space measured on real nodes: the worker reads the runtime's image file system usage
// (CRI ImageFsInfo) before and after its removals. Images that share their layers free far less
// than their listed sizes add up to; the node's result keeps both, and `inv erase` prints both.
// On containerd (cached usage, refreshed in the background) the worker waits for a figure taken
// after its removals; a runtime whose figure does not count the layers (CRI-O counts its metadata
// folder; the test nodes' containerd 2.4.2 answers 0) makes the node say so instead of giving a
// number, and the test checks that verdict against the runtime's figure.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { renderEraseReport } from '../../src/cli/erase/render.js';
import { buildReport } from '../../src/core/erase-request/report.js';
import { IMAGELISTS_PATH, type ImageList } from '../../src/core/erase/api/types.js';
import { nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { importToNodes, nodeImageIds, NodeEraseEnv, results } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

describe('erase: freed space measured by the runtime (real nodes)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  useWholeCluster((x) => (c = x));
  beforeEach(async () => {
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
  });
  afterEach(async () => {
    await env.teardown();
  });

  it('20 images sharing one layer, one with its own: measured freed is that layer, far below the listed sizes; both reported', async () => {
    const n2 = c.nodes[1]!.name;
    const t = env.tag;
    const refs = Array.from({ length: 20 }, (_, i) => `docker.io/library/shared-${t}-${i}:1`);
    const built = await importToNodes(
      c,
      [1],
      refs.map((ref, i) => ({
        refs: [ref],
        distinct: `shared-${t}-${i}`,
        // The last one has a layer of its own: that much space does come back.
        ...(i === refs.length - 1 ? { padBytes: 8 * 2 ** 20 } : {}),
      })),
    );
    // Whether the runtime's figure counts the images at all: containerd's is 0 until its first
    // background measurement after start; CRI-O's counts only its metadata folder.
    const figure = async () => {
      const cri = await nodeCri(c, 1);
      try {
        const used = (await cri.imageFsInfo())[0]?.usedBytes ?? 0;
        const largest = Math.max(0, ...(await cri.listImages()).map((i) => i.size ?? 0));
        return { used, largest, counts: used >= largest };
      } finally {
        cri.close();
      }
    };
    const seen = await until(
      'a runtime figure that counts the images',
      async () => (await figure()).counts,
      30_000,
      1000,
    ).then(
      () => true,
      () => false,
    );
    const fig = await figure();
    const job = await env.wait(
      await env.erase({ images: refs.map((r) => r.replace('docker.io/library/', '')) }),
    );
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const r = results(job)[n2]!;
    assert.equal(r.removed, 20, JSON.stringify(r));
    const ids = await nodeImageIds(c, 1);
    assert.ok(
      built.every((b) => !ids.has(b.id)),
      'all 20 removed from node 2',
    );
    const runtime = fs.readFileSync(path.join(c.dir, 'node-2', 'cri', 'runtime'), 'utf8').trim();
    process.stderr.write(
      `      (${runtime}: listed sizes ${r.bytes} bytes, measured ${r.bytesMeasured ?? `not (${r.freedNotMeasured})`}; ImageFsInfo ${fig.used} bytes, largest image ${fig.largest})\n`,
    );
    if (!seen) {
      // A figure below the node's largest image does not count the layers (CRI-O counts its
      // metadata folder): the node says so, never a number it does not have.
      assert.equal(r.freedNotMeasured, 'not-image-bytes', JSON.stringify(r));
    } else {
      assert.equal(typeof r.bytesMeasured, 'number', JSON.stringify(r));
      // The shared layer stays (other images on the node use it): what came back is the one
      // image's own 8 MiB layer, not 20 listed sizes.
      assert.ok(r.bytesMeasured! * 2 < r.bytes, `measured ${r.bytesMeasured} vs listed ${r.bytes}`);
      assert.ok(r.bytesMeasured! >= 7 * 2 ** 20, `the own layer's 8 MiB measured: ${r.bytesMeasured}`);
    }
    // The job's totals and `inv erase`'s line carry both.
    const list = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${job.spec.imageList.name}`);
    const report = buildReport(list, { job, generation: job.spec.imageList.generation });
    const text = renderEraseReport(report);
    if (r.bytesMeasured !== undefined) {
      assert.equal(job.status?.bytesMeasured, r.bytesMeasured);
      assert.equal(job.status?.bytesMeasuredEstimate, r.bytes);
      assert.match(
        text,
        /freed \S+ \S+ on 1 node\(s\), measured \S+ \S+ \(the listed sizes count a shared layer once per image\)/,
        text,
      );
    } else {
      assert.equal(job.status?.freedNotMeasured, 1);
      assert.match(text, /not measured on 1 node\(s\)/, text);
    }
  });
});
