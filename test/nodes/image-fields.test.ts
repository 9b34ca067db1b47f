// A `*` prune on real nodes keeps the images that declared kinds name in string fields: the
// CRDs of kube-fledged (ImageCache), OpenKruise (ImagePullJob) and Tekton (Task, and the
// cluster-scoped ClusterTask), written for the tests in test/fixtures/source-kinds/. No Pod runs
// any of these images: only the objects name them. Each is imported onto both nodes with one
// image nobody names; the prune removes that one and keeps the others, the worker saying which
// kind protects each. The inventory of these kinds on the API server:
// test/inventory/image-fields.test.ts.
import assert from 'node:assert/strict';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { ScanProtection } from '../../src/core/erase/worker/inventory-protection.js';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { discoverKinds } from '../../src/core/inventory/discover-kinds.js';
import { kubectl, type WholeCluster } from '../support/nodes.js';
import { useWholeCluster } from '../support/suite-hooks.js';
import { reportFromLogs } from '../support/worker-logs.js';
import {
  installFieldKinds,
  kindsFile,
  objectsOf,
  pathOf,
  type Obj,
} from '../inventory/image-fields-helpers.js';
import { importToNodes, NodeEraseEnv, nodeImageIds } from './helpers.js';

describe('a * prune keeps the images declared kinds name in fields (real nodes)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let objects: Obj[] = [];
  useWholeCluster((x) => (c = x));
  // This run's ref of each image the objects name: distinct per run, imported onto the nodes.
  const refOf = (image: string) =>
    `docker.io/library/e2e-fields-${image.split(':')[0]!.replace(/[^a-z0-9]+/g, '-')}-${env.tag}:1`;

  before(async function () {
    this.timeout(600_000);
    env = await new NodeEraseEnv(c).setup();
    await installFieldKinds(env);
    const { kinds, skipped } = await discoverKinds(
      env.rest,
      parseSourceKinds(kindsFile(env.namespace), 'kinds.yaml'),
    );
    assert.deepEqual(skipped, []);
    env.startControllers({ protection: new ScanProtection(env.rest, kinds) });
  });
  after(async () => {
    for (const o of objects.filter((x) => x.kind === 'ClusterTask'))
      await env.rest.request('DELETE', `${pathOf(o, env.namespace)}/${o.metadata.name as string}`);
    await env?.teardown();
  });

  it('keeps the ImageCache, ImagePullJob, Task and ClusterTask images and removes the unnamed one', async () => {
    const ns = env.namespace;
    objects = objectsOf(ns, refOf);
    const named = [
      'nginx:1.27',
      'redis:7.4',
      'gcr.io/tekton-releases/git-init:v0.40',
      'golang:1.23',
      'alpine:3.20',
    ];
    const refs = [...named.map(refOf), refOf('unnamed:1')];
    const built = await importToNodes(
      c,
      [0, 1],
      refs.map((r) => ({ refs: [r], distinct: r })),
    );
    for (const o of objects) await env.rest.request('POST', pathOf(o, ns), { body: o });

    const job = await env.wait(await env.erase({ images: [PRUNE_ALL] }), 180_000);
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const gone = built.at(-1)!;
    for (const i of [0, 1]) {
      const ids = await nodeImageIds(c, i);
      for (const [j, b] of built.slice(0, -1).entries())
        assert.ok(ids.has(b.id), `${named[j]} kept on node ${i + 1}`);
      assert.ok(!ids.has(gone.id), `the unnamed image removed from node ${i + 1}`);
    }
    // The worker's report names the kinds that protect each image.
    const reasons: Record<string, string> = {
      [refOf('redis:7.4')]: `referenced by ImageCache in ${ns}`,
      [refOf('nginx:1.27')]: `referenced by ImageCache in ${ns}, ImagePullJob in ${ns}`,
      [refOf('gcr.io/tekton-releases/git-init:v0.40')]: `referenced by Task in ${ns}`,
      [refOf('alpine:3.20')]: `referenced by ClusterTask in ${ns}`,
    };
    const idOf = new Map(built.map((b, j) => [b.id, refs[j]!]));
    for (const pod of (await env.workers(job.metadata.name)).values()) {
      const logs = await kubectl(c, ['-n', ns, 'logs', pod.metadata.name]);
      assert.equal(logs.code, 0, logs.stderr);
      const report = reportFromLogs<{ results: { imageId: string; outcome: string; reason: string }[] }>(
        logs.stdout,
      );
      for (const [ref, reason] of Object.entries(reasons)) {
        const row = report.results.find((x) => idOf.get(x.imageId) === ref);
        assert.deepEqual([row?.outcome, row?.reason], ['protected', reason], ref);
      }
    }
  });
});
