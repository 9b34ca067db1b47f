// `inv erase` end to end on real nodes: the erase controllers create worker Pods, the real
// kube-scheduler places each on its node (node affinity), real kubelets run the worker image built from this checkout on
// each node's own containerd, and the results come back through real termination messages.
import assert from 'node:assert/strict';
import { podNames } from '../../src/core/erase/api/types.js';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { WORKER_NODE_OPTIONS } from '../../src/core/erase/worker/pod-spec.js';
import { kubectl, nodesScript, until, type WholeCluster } from '../support/nodes.js';
import { importToNodes, nodeImageIds, NodeEraseEnv, results } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

describe('erase on real nodes (kubelet + containerd per node)', function () {
  this.timeout(180_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let n1: string;
  let n2: string;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000); // the first suite to ask starts the whole cluster
    [n1, n2] = c.nodes.map((n) => n.name) as [string, string];
  });
  beforeEach(async () => {
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
  });
  afterEach(async () => {
    await env.teardown();
  });

  it('targeted erase: kept where a Pod runs it (node 1), removed where unused (node 2); kubectl logs on a worker', async () => {
    const t = env.tag;
    const ref = `docker.io/library/e2e-target-${t}:1`;
    const [img] = await importToNodes(c, [0, 1], [{ refs: [ref], distinct: `target-${t}` }]);
    await env.runPod(n1, ref);
    const requested = Date.now();
    const req = await env.erase({ images: [`e2e-target-${t}:1`] });
    const job = await env.wait(req);
    const requestToCompleted = Date.now() - requested;
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const r = results(job);
    assert.deepEqual(
      [r[n1]?.outcome, r[n1]?.inUse, r[n1]?.removed],
      ['Succeeded', 1, 0],
      JSON.stringify(r[n1]),
    );
    assert.deepEqual(
      [r[n2]?.outcome, r[n2]?.inUse, r[n2]?.removed],
      ['Succeeded', 0, 1],
      JSON.stringify(r[n2]),
    );
    assert.ok((await nodeImageIds(c, 0)).has(img!.id), 'kept on node 1, where it runs');
    assert.ok(!(await nodeImageIds(c, 1)).has(img!.id), 'removed from node 2');

    // Real worker Pods: Succeeded, with the summary as their termination message.
    const workers = await env.workers(job.metadata.name);
    assert.deepEqual([...workers.keys()].sort(), [n1, n2].sort());
    for (const [node, pod] of workers) {
      assert.equal(pod.status?.phase, 'Succeeded', node);
      const msg = pod.status?.containerStatuses?.[0]?.state?.terminated?.message ?? '';
      assert.match(msg, /^\{/, `termination message on ${node}: ${msg}`);
    }
    const podSeconds = [...workers.values()].map((p) => {
      const t = p.status?.containerStatuses?.[0]?.state?.terminated as { finishedAt?: string } | undefined;
      return (Date.parse(t?.finishedAt ?? '') - Date.parse(p.metadata.creationTimestamp ?? '')) / 1000;
    });
    process.stderr.write(
      `      (2-node erase, request to Completed: ${requestToCompleted} ms; worker Pod created to Succeeded: ${podSeconds.join(', ')} s, 1 s resolution)\n`,
    );
    // kubectl logs reaches the kubelet (InternalIP) and shows the worker's JSON output.
    const logs = await kubectl(c, ['-n', env.namespace, 'logs', workers.get(n2)!.metadata.name]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, new RegExp(`e2e-target-${t}`));
    assert.match(logs.stdout, /"removed"/);
    // The worker ran under the Pod's NODE_OPTIONS (read-only root, the image's compile cache) and
    // printed nothing but its report (the log is one JSON document).
    const spec = workers.get(n2)!.spec as { containers?: { env?: { name: string; value?: string }[] }[] };
    const container = spec.containers?.[0];
    assert.deepEqual(
      container?.env?.find((e) => e.name === 'NODE_OPTIONS'),
      { name: 'NODE_OPTIONS', value: WORKER_NODE_OPTIONS },
    );
    assert.deepEqual((JSON.parse(logs.stdout) as { warnings: string[] }).warnings, []);
  });

  it('--all-unused removes every unused image, keeps running ones, the sandbox and the worker image', async () => {
    const t = env.tag;
    const [unused, running] = await importToNodes(
      c,
      [0, 1],
      [
        { refs: [`docker.io/library/e2e-unused-${t}:1`], distinct: `unused-${t}` },
        { refs: [`docker.io/library/e2e-running-${t}:1`], distinct: `running-${t}` },
      ],
    );
    await env.runPod(n2, `docker.io/library/e2e-running-${t}:1`);
    const job = await env.wait(await env.erase({ images: [PRUNE_ALL] }));
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const r = results(job);
    for (const node of [n1, n2]) {
      assert.equal(r[node]?.outcome, 'Succeeded', JSON.stringify(r[node]));
      assert.ok(r[node]!.removed >= 1, JSON.stringify(r[node]));
    }
    const [on1, on2] = [await nodeImageIds(c, 0), await nodeImageIds(c, 1)];
    assert.ok(!on1.has(unused!.id) && !on2.has(unused!.id), 'the unused image is gone from both nodes');
    assert.ok(on2.has(running!.id), 'the running image stays on node 2');
    // On node 1 nothing runs it, but the Pod on node 2 references it: the inventory's
    // protection keeps it there too (protect.test.ts covers that in depth).
    assert.ok(on1.has(running!.id), 'and is kept on node 1 as referenced (protected)');
    assert.ok(r[n1]!.protected >= 1, JSON.stringify(r[n1]));
    // The worker's own image was in use on every node while it ran; the sandbox image is
    // excluded: new Pods still start on both nodes.
    const again = await env.wait(await env.erase({ images: [PRUNE_ALL], dryRun: true }));
    assert.equal(again.status?.phase, 'Completed', 'a worker still starts: its image and the sandbox stayed');
  });

  it('--dry-run reports what each node would remove and removes nothing', async () => {
    const t = env.tag;
    const [img] = await importToNodes(
      c,
      [0, 1],
      [{ refs: [`docker.io/library/e2e-dry-${t}:1`], distinct: `dry-${t}` }],
    );
    const job = await env.wait(await env.erase({ images: [`e2e-dry-${t}:1`], dryRun: true }));
    assert.equal(job.status?.phase, 'Completed');
    const r = results(job);
    for (const node of [n1, n2]) assert.equal(r[node]?.removed, 1, `would remove on ${node}`);
    assert.ok((await nodeImageIds(c, 0)).has(img!.id) && (await nodeImageIds(c, 1)).has(img!.id));
  });

  it('a cordoned node and a node excluded by label are skipped with their reasons; no worker runs there', async () => {
    try {
      await env.patchNode(n2, { spec: { unschedulable: true } });
      let job = await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`] }));
      let r = results(job);
      assert.deepEqual([r[n1]?.outcome, r[n2]?.outcome, r[n2]?.reason], ['Succeeded', 'Skipped', 'cordoned']);
      assert.deepEqual([...(await env.workers(job.metadata.name)).keys()], [n1]);
      await env.patchNode(n2, { spec: { unschedulable: null } });

      await env.patchNode(n2, { metadata: { labels: { 'imageinventory.dev/erase-skip': 'true' } } });
      job = await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`] }));
      r = results(job);
      assert.deepEqual([r[n1]?.outcome, r[n2]?.outcome, r[n2]?.reason], ['Succeeded', 'Skipped', 'filtered']);
      assert.deepEqual([...(await env.workers(job.metadata.name)).keys()], [n1]);
    } finally {
      await env.patchNode(n2, {
        spec: { unschedulable: null },
        metadata: { labels: { 'imageinventory.dev/erase-skip': null } },
      });
    }
  });

  it('a worker Pod deleted before it finished fails its node, is not recreated, and the job ends at once', async () => {
    const req = await env.erase({ images: [`nothing-${env.tag}:1`] });
    // The job's name is <list>-<generation>-<suffix>: find the job, then its Pod for node 2.
    const jobName = await until('the job', async () => {
      const l = await env.rest.get<{ status?: { lastJob?: string } }>(
        `/apis/erase.imageinventory.dev/v1alpha1/imagelists/${req.name}`,
      );
      return l.status?.lastJob;
    });
    const podName = podNames(jobName, [n2]).get(n2)!;
    await until('the worker Pod on node 2', async () => (await env.workers(jobName)).has(n2), 30_000, 10);
    await env.rest.request('DELETE', `/api/v1/namespaces/${env.namespace}/pods/${podName}`);
    const started = Date.now();
    const job = await env.wait(req);
    const r = results(job);
    assert.equal(r[n1]?.outcome, 'Succeeded');
    assert.equal(r[n2]?.outcome, 'Failed', JSON.stringify(r[n2]));
    assert.equal(job.status?.phase, 'Failed');
    assert.ok(Date.now() - started < 60_000, 'finished long before the job deadline');
    await until('the deleted worker gone', async () => !(await env.workers(jobName)).has(n2), 60_000);
    // Never recreated: the only worker left is node 1's.
    assert.deepEqual([...(await env.workers(jobName)).keys()], [n1]);
  });

  it('a worker whose image cannot be pulled fails its node (image-pull) within seconds, not at the deadline', async () => {
    await env.config('', `inv.local/does-not-exist-${env.tag}:1`);
    const started = Date.now();
    const job = await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`] }));
    const took = Date.now() - started;
    assert.equal(job.status?.phase, 'Failed');
    const r = results(job);
    for (const node of [n1, n2]) {
      assert.equal(r[node]?.outcome, 'Failed');
      assert.match(r[node]!.reason, /^image-pull: (ErrImagePull|ImagePullBackOff)/, r[node]!.reason);
    }
    assert.ok(took < 45_000, `took ${took} ms (the default jobTimeout is 30 minutes)`);
  });

  it('a kubelet killed during a job: its node goes NotReady (node lifecycle controller) and fails node-not-ready', async () => {
    const nodes = await nodesScript();
    await nodes.killKubelet(c.dir, 2);
    try {
      const started = Date.now();
      // The Node still looks Ready for ~10 s, so the job selects it; its worker never starts.
      const job = await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`], jobTimeout: '10m' }));
      const r = results(job);
      assert.equal(r[n1]?.outcome, 'Succeeded');
      assert.equal(r[n2]?.outcome, 'Failed');
      assert.match(r[n2]!.reason, /^node-not-ready: NodeStatusUnknown/, r[n2]!.reason);
      assert.ok(Date.now() - started < 90_000, 'well before the 10 minute deadline');
      const node = await env.rest.get<{ status: { conditions: { type: string; status: string }[] } }>(
        `/api/v1/nodes/${n2}`,
      );
      assert.equal(node.status.conditions.find((x) => x.type === 'Ready')?.status, 'Unknown');
    } finally {
      await nodes.startKubelet(c.dir, 2);
      await until('node 2 Ready again', () => nodes.nodeReady(c.kubeconfig, n2), 60_000, 200);
    }
  });
});
