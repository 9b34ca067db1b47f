// node-remove against the real containerd behind a proxy that rewrites its answers into
// garbage (src/core/noderemove/remove/runtime-answers.ts):
// - a running container whose image, imageRef and image ID are empty: nothing is removed on the
//   node that run, `*` included (it once made every image "would-remove"), exit 1 and the reason
//   in the JSON report;
// - an image listed without an ID is refused (it once became RemoveImage("")), and two entries
//   sharing one ID are one image whose row lists the names of both.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { serveFaultProxy, type FaultProxy } from './fault-proxy.js';
import { connect, criAvailable, criEndpoint, waitForImages } from '../support/cri.js';
import { addImages } from '../support/oci.js';
import { runNodeRemove } from './helpers.js';

type Obj = Record<string, unknown>;

describe('inv node-remove with garbage runtime answers (fault proxy, real containerd)', function () {
  this.timeout(60_000);
  let proxy: FaultProxy;
  const tag = randomBytes(3).toString('hex');
  const refs = ['a', 'b', 'c'].map((n) => `docker.io/invgarbage${tag}/${n}:1`);
  let ids: string[] = [];

  before(async function () {
    if (!criAvailable()) this.skip();
    const built = await addImages(refs.map((r) => ({ refs: [r], distinct: `garbage-${tag}-${r}` })));
    ids = built.map((b) => b.id);
    const cri = await connect();
    try {
      await waitForImages(cri, ids);
    } finally {
      cri.close();
    }
    proxy = await serveFaultProxy(criEndpoint());
  });
  after(async () => {
    await proxy?.close();
    const cri = await connect();
    try {
      for (const id of ids) await cri.removeImage(id).catch(() => undefined);
    } finally {
      cri.close();
    }
  });
  afterEach(() => {
    proxy?.heal('RuntimeService/ListContainers');
    proxy?.heal('ImageService/ListImages');
  });

  const present = async () => {
    const cri = await connect();
    try {
      const listed = new Set((await cri.listImages()).map((i) => i.id));
      return ids.filter((id) => listed.has(id));
    } finally {
      cri.close();
    }
  };

  it('a container naming no image: nothing removed on the node, `*` included, exit 1 with the reason', async () => {
    proxy.rewrite('RuntimeService/ListContainers', (a) => ({
      containers: [
        ...(a.containers as Obj[]),
        { id: `garbage${tag}`, podSandboxId: 'x', state: 'CONTAINER_RUNNING', imageRef: '', imageId: '' },
      ],
    }));
    let r = await runNodeRemove(proxy.endpoint, ['--images', '*', '--dry-run', '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const rows = r.json!.results;
    assert.deepEqual(
      rows.filter((x) => x.outcome === 'would-remove'),
      [],
    );
    const ours = rows.filter((x) => ids.includes(x.imageId));
    assert.equal(ours.length, 3);
    for (const row of ours) {
      assert.equal(row.outcome, 'failed');
      assert.match(
        row.error,
        new RegExp(`container garbage${tag}.* with no image .*nothing is removed on this node this run`),
      );
    }
    assert.ok(
      r.json!.warnings.some((w) => w.includes(`garbage${tag}`)),
      r.json!.warnings.join('\n'),
    );

    const before = proxy.calls.length;
    r = await runNodeRemove(proxy.endpoint, ['--images', refs.join(','), '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(
      r.json!.results.map((x) => x.outcome),
      ['failed', 'failed', 'failed'],
    );
    assert.ok(!proxy.calls.slice(before).includes('ImageService/RemoveImage'), 'no RemoveImage call');
    assert.deepEqual(await present(), ids);
  });

  it('an image without an ID is refused, never RemoveImage(""); one ID listed twice is one image', async () => {
    const alias = `docker.io/invgarbage${tag}/alias:2`;
    proxy.rewrite('ImageService/ListImages', (a) => {
      const images = a.images as Obj[];
      const out = images.map((i) => ((i.repoTags as string[]).includes(refs[0]!) ? { ...i, id: '' } : i));
      const b = images.find((i) => (i.repoTags as string[]).includes(refs[1]!))!;
      return { images: [...out, { ...b, repoTags: [alias] }] };
    });
    const before = proxy.calls.length;
    const r = await runNodeRemove(proxy.endpoint, ['--images', `${refs[0]},${alias}`, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const [noId, dup] = r.json!.results;
    assert.deepEqual([noId!.outcome, noId!.imageId], ['failed', '']);
    assert.match(noId!.error, /without an ID, and inv removes images only by ID/);
    assert.deepEqual([dup!.outcome, dup!.imageId], ['removed', ids[1]]);
    assert.deepEqual(dup!.aliases, [refs[1], alias, ids[1]]);
    assert.ok(r.json!.warnings.some((w) => w.includes(`lists image ${ids[1]} 2 times`)));
    assert.ok(r.json!.warnings.some((w) => w.includes('1 image(s) without an ID')));
    // One RemoveImage, for the duplicated image's ID: none for the image without one.
    assert.deepEqual(
      proxy.calls.slice(before).filter((c) => c === 'ImageService/RemoveImage'),
      ['ImageService/RemoveImage'],
    );
    assert.deepEqual(await present(), [ids[0], ids[2]]);
  });
});
