// Cleaning by need on real nodes (issue 31): a `*` prune with spec.imageFs and spec.minUnusedAge,
// run by real workers on real kubelets and containerd. The nodes' image file system is the
// host's disk, so thresholds are set relative to the usage measured here the way the worker
// measures it (ImageFsInfo's bytes over statfs's capacity); test images carry a padding layer of
// a chosen size. The minimum age is advanced through the node's record, never by sleeping.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { withListedSizes } from '../../src/core/noderemove/trigger/image-fs.js';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { STATE_FILE } from '../../src/core/noderemove/trigger/unused-state-file.js';
import { hundredths } from '../../src/core/contract/trigger-results.js';
import { podImages, type WorkerPod } from '../../src/core/erase-request/report.js';
import { kubectl, nodeCri, nodesScript, until, type WholeCluster } from '../support/nodes.js';
import { importToNodes, NodeEraseEnv, nodeImageIds, results } from './helpers.js';
import { reportFromLogs } from '../support/worker-logs.js';
import { useWholeCluster } from '../support/suite-hooks.js';

const MiB = 1024 * 1024;
const DAY = 86_400_000;

/** Node i's record, as the host sees the folder its workers mount (the node's own CRI folder). */
const stateFile = (c: WholeCluster, i: number) =>
  path.join(c.dir, `node-${i + 1}`, 'cri', 'inv-state', STATE_FILE);

interface Row {
  imageId: string;
  outcome: string;
  reason: string;
  unusedForSeconds?: number;
}
interface WorkerReport {
  results: Row[];
  imageFs?: { used: number; capacity: number; usedAfter: number; mountPoint: string };
  warnings: string[];
}

describe('erase by need: image-fs thresholds and a minimum unused age (real nodes)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let names: string[];
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    names = c.nodes.map((n) => n.name);
    env = await new NodeEraseEnv(c).setup();
    // The record in a folder each node has of its own (under the common CRI path every node
    // bind-mounts its own folder over), and the nodes' folder as the image file system's path.
    await env.config(
      [
        `stateDir: ${path.join(path.dirname(c.runtimeSocket), 'inv-state')}`,
        `imageFsPath: ${path.resolve(c.dir)}`,
      ].join('\n'),
    );
    for (const i of [0, 1]) fs.rmSync(stateFile(c, i), { force: true });
    env.startControllers();
  });
  after(async () => {
    await env?.teardown();
  });

  /** The usage a worker will see on node i: ImageFsInfo's bytes, once containerd's count is steady. */
  async function usage(i: number, atLeast = 0): Promise<{ used: number; capacity: number }> {
    const cri = await nodeCri(c, i);
    try {
      let last = -1;
      const used = await until(
        `node ${i + 1}'s image file system count steady`,
        async () => {
          const f = (await cri.imageFsInfo())[0];
          // As the worker counts it: CRI-O's count (its image metadata only) gives way to the
          // listed sizes (withListedSizes).
          const u = f
            ? withListedSizes(
                { used: f.usedBytes, capacity: Infinity, available: 0, mountPoint: f.mountpoint },
                await cri.listImages(),
              ).usage.used
            : 0;
          const steady = u === last && u >= atLeast;
          last = u;
          return steady ? u : undefined;
        },
        60_000,
        2_000,
      );
      const mount = (await cri.imageFsInfo())[0]!.mountpoint;
      const st = fs.statfsSync(mount);
      return { used, capacity: st.blocks * st.bsize };
    } finally {
      cri.close();
    }
  }

  async function report(job: string, node: string): Promise<WorkerReport> {
    const pod = (await env.workers(job)).get(node);
    assert.ok(pod, `a worker on ${node}`);
    const logs = await kubectl(c, ['-n', env.namespace, 'logs', pod.metadata.name]);
    assert.equal(logs.code, 0, logs.stderr);
    return reportFromLogs<WorkerReport>(logs.stdout);
  }

  const onNode = (i: number) => `kubernetes.io/hostname=${names[i]}`;

  it('above the high mark removes unused images down to the low mark and keeps a scaled-to-zero Deployment image; below it removes nothing', async () => {
    const t = env.tag;
    const ref = (what: string) => `docker.io/library/e2e-fs-${what}-${t}:1`;
    const before0 = await usage(0);
    const imgs = [
      { refs: [ref('a')], distinct: `a-${t}`, padBytes: 24 * MiB },
      { refs: [ref('b')], distinct: `b-${t}`, padBytes: 16 * MiB },
      { refs: [ref('c')], distinct: `c-${t}`, padBytes: 8 * MiB },
      { refs: [ref('scaled')], distinct: `scaled-${t}`, padBytes: 32 * MiB },
    ];
    const [a, b, cc, scaled] = await importToNodes(c, [0, 1], imgs);
    await env.rest.request('POST', `/apis/apps/v1/namespaces/${env.namespace}/deployments`, {
      body: {
        metadata: { name: 'scaled' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'scaled' } },
          template: {
            metadata: { labels: { app: 'scaled' } },
            spec: { containers: [{ name: 'c', image: ref('scaled'), imagePullPolicy: 'Never' }] },
          },
        },
      },
    });
    const u = await usage(0, before0.used + 70 * MiB);
    const sizes = new Map<string, number>();
    {
      const cri = await nodeCri(c, 0);
      for (const x of await cri.listImages()) sizes.set(x.id, x.size);
      cri.close();
    }
    // Other files leave unused images on the shared nodes (scanner images of hundreds of MB
    // among them), which the removal order would take first (never seen in use, then largest):
    // the administrator's exclusions set them aside, so only this test's images are candidates.
    const ours = new Set([a!.id, b!.id, cc!.id, scaled!.id]);
    await env.rest.request('POST', `/api/v1/namespaces/${env.configNamespace}/configmaps`, {
      body: {
        metadata: { name: 'keep-others', labels: { 'imageinventory.dev/exclusion-list': 'true' } },
        data: { 'others.json': JSON.stringify([...sizes.keys()].filter((id) => !ours.has(id))) },
      },
    });
    // To free: all of a and half of b (by listed sizes): a and b go, c stays.
    const toFree = sizes.get(a!.id)! + sizes.get(b!.id)! / 2;
    const highPercent = ((u.used - MiB) / u.capacity) * 100;
    const lowPercent = ((u.used - toFree) / u.capacity) * 100;
    const job = await env.wait(
      await env.erase({ images: [PRUNE_ALL], nodeSelector: onNode(0), imageFs: { highPercent, lowPercent } }),
      180_000,
    );
    assert.equal(job.status?.phase, 'Completed', JSON.stringify(job.status?.nodes));
    const ids = await nodeImageIds(c, 0);
    assert.ok(!ids.has(a!.id) && !ids.has(b!.id), 'the two first in removal order went');
    assert.ok(ids.has(cc!.id), 'then it stopped: usage was at the low mark');
    assert.ok(ids.has(scaled!.id), "the scaled-to-zero Deployment's image is kept");
    const r = results(job)[names[0]!]!;
    assert.equal(r.removed, 2);
    const rep = await report(job.metadata.name, names[0]!);
    const f = rep.imageFs!;
    assert.ok(Math.abs(f.used - u.used) < 4 * MiB, `${f.used} measured by the worker ~ ${u.used}`);
    assert.equal(f.usedAfter, f.used - sizes.get(a!.id)! - sizes.get(b!.id)!);
    assert.ok(f.usedAfter <= (lowPercent / 100) * u.capacity + 4 * MiB);
    // The job's status keeps the shares, in hundredths of a percent.
    assert.equal(r.imageFsBefore, hundredths(f.used, f.capacity));
    assert.equal(r.imageFsAfter, hundredths(f.usedAfter, f.capacity));
    assert.match(job.status?.imageFs ?? '', new RegExp(`^${names[0]} [0-9.]+%->[0-9.]+%$`));
    const row = (id: string) => rep.results.find((x) => x.imageId === id)!;
    assert.equal(row(a!.id).outcome, 'removed');
    assert.equal(row(cc!.id).outcome, 'low-mark-reached');
    assert.match(row(cc!.id).reason, /low mark/);
    assert.equal(row(scaled!.id).outcome, 'protected');
    assert.ok(rep.imageFs!.mountPoint.startsWith(path.resolve(c.dir)), rep.imageFs!.mountPoint);

    // Node 2 holds the same images and sits below a high mark set above its usage: nothing goes.
    const u2 = await usage(1);
    const high2 = ((u2.used + 64 * MiB) / u2.capacity) * 100;
    const job2 = await env.wait(
      await env.erase({
        images: [PRUNE_ALL],
        nodeSelector: onNode(1),
        imageFs: { highPercent: high2, lowPercent: high2 / 2 },
      }),
      180_000,
    );
    assert.equal(job2.status?.phase, 'Completed', JSON.stringify(job2.status?.nodes));
    const ids2 = await nodeImageIds(c, 1);
    for (const x of [a!, b!, cc!, scaled!]) assert.ok(ids2.has(x.id), `${x.refs[0]} kept on ${names[1]}`);
    const r2 = results(job2)[names[1]!]!;
    assert.equal(r2.removed, 0);
    assert.ok((r2.belowThreshold ?? 0) >= 3, `${r2.belowThreshold} below-threshold`);
    assert.equal(r2.imageFsAfter, r2.imageFsBefore);
    const rep2 = await report(job2.metadata.name, names[1]!);
    assert.match(
      rep2.results.find((x) => x.imageId === a!.id)!.reason,
      /image file system at [0-9.]+%, under/,
    );

    // What people see: kubectl's -o wide column and inv erase status.
    const wide = await kubectl(c, ['get', 'imagejobs', job.metadata.name, '-o', 'wide']);
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /IMAGE-FS/);
    assert.match(wide.stdout, new RegExp(`${names[0]} [0-9.]+%->[0-9.]+%`));
  });

  it('a minimum unused age keeps a freshly unused image, survives a worker and a kubelet restart, and removes it once its recorded age passes', async () => {
    const t = env.tag;
    const [img] = await importToNodes(
      c,
      [1],
      [{ refs: [`docker.io/library/e2e-age-${t}:1`], distinct: `age-${t}` }],
    );
    const file = stateFile(c, 1);
    const run = async () => {
      const job = await env.wait(
        await env.erase({ images: [PRUNE_ALL], nodeSelector: onNode(1), minUnusedAge: '7d' }),
        180_000,
      );
      assert.equal(job.status?.phase, 'Completed', JSON.stringify(job.status?.nodes));
      return job;
    };
    // First look: the clock starts now; a week is not up.
    const job1 = await run();
    const row1 = (await report(job1.metadata.name, names[1]!)).results.find((x) => x.imageId === img!.id)!;
    assert.equal(row1.outcome, 'recently-unused');
    const rec = () =>
      (JSON.parse(fs.readFileSync(file, 'utf8')) as { images: Record<string, { unusedSince?: string }> })
        .images;
    const since = rec()[img!.id]!.unusedSince!;
    assert.ok(since, 'recorded');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.ok(results(job1)[names[1]!]!.recentlyUnused! >= 1);

    // The kubelet restarts; a new worker (a new Pod) reads the same record: the clock goes on.
    const nodes = await nodesScript();
    await nodes.killKubelet(c.dir, 2);
    await nodes.startKubelet(c.dir, 2);
    await until('node 2 Ready again', () => nodes.nodeReady(c.kubeconfig, names[1]!), 60_000, 200);
    const job2 = await run();
    const row2 = (await report(job2.metadata.name, names[1]!)).results.find((x) => x.imageId === img!.id)!;
    assert.equal(row2.outcome, 'recently-unused');
    assert.equal(rec()[img!.id]!.unusedSince, since, 'not reset by the restarts');
    assert.ok((await nodeImageIds(c, 1)).has(img!.id));

    // Eight days pass, as far as the record says.
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      images: Record<string, { unusedSince?: string }>;
    };
    doc.images[img!.id]!.unusedSince = new Date(Date.parse(since) - 8 * DAY).toISOString();
    fs.writeFileSync(file, JSON.stringify(doc));
    const job3 = await run();
    const row3 = (await report(job3.metadata.name, names[1]!)).results.find((x) => x.imageId === img!.id)!;
    assert.equal(row3.outcome, 'removed');
    assert.ok(row3.unusedForSeconds! >= 8 * 86_400, `${row3.unusedForSeconds} s`);
    assert.ok(!(await nodeImageIds(c, 1)).has(img!.id), 'removed once its recorded age passed');
    // What inv erase (and its --dry-run) shows per image, from the worker's summary.
    const shown = podImages((await env.workers(job3.metadata.name)).get(names[1]!) as WorkerPod);
    assert.match(shown?.images.find((x) => x.image === img!.id)?.detail ?? '', /^unused for 8d/);
    assert.equal(rec()[img!.id], undefined, 'and dropped from the record');
  });
});
