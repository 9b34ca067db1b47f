// A `*` prune that knows the inventory, on real nodes with the real controller-manager,
// scheduler and kubelets: images of a Deployment scaled to 0, a suspended CronJob, a Job whose
// Pods are gone and a Deployment that names its image only by digest are present on both nodes
// and run nowhere; the prune keeps them (outcome protected, with the reason) and removes an
// unreferenced image, and the bytes it reports are what the runtime listed for what went.
import assert from 'node:assert/strict';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { kubectl, nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { importToNodes, NodeEraseEnv, results } from './helpers.js';
import { reportFromLogs } from '../support/worker-logs.js';
import { useWholeCluster } from '../support/suite-hooks.js';

/** Image ID → size, as node i's runtime lists them. */
async function listed(c: WholeCluster, i: number): Promise<Map<string, number>> {
  const cri = await nodeCri(c, i);
  try {
    return new Map((await cri.listImages()).map((x) => [x.id, x.size]));
  } finally {
    cri.close();
  }
}

describe('erase --all-unused keeps what the inventory references (real nodes)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
  });
  after(async () => {
    await env?.teardown();
  });

  it('keeps the images of a Deployment at 0, a suspended CronJob, a finished Job and a digest ref; removes the rest and reports the bytes', async () => {
    const t = env.tag;
    const ns = env.namespace;
    const ref = (what: string) => `docker.io/library/e2e-prot-${what}-${t}:1`;
    const [scaled, cron, job, digest, unused] = await importToNodes(
      c,
      [0, 1],
      [
        { refs: [ref('scaled')], distinct: `scaled-${t}` },
        { refs: [ref('cron')], distinct: `cron-${t}` },
        { refs: [ref('job')], distinct: `job-${t}` },
        { refs: [ref('digest')], distinct: `digest-${t}`, digestRefs: true },
        { refs: [ref('unused')], distinct: `unused-${t}` },
      ],
    );
    const digestRef = `docker.io/library/e2e-prot-digest-${t}@${digest!.manifestDigest}`;
    const tmpl = (app: string, image: string) => ({
      metadata: { labels: { app } },
      spec: {
        containers: [{ name: 'c', image, imagePullPolicy: 'Never', command: ['/bin/true'] }],
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
      },
    });
    const post = (path: string, body: unknown) => env.rest.request('POST', path, { body });
    const deployment = (name: string, image: string) => ({
      metadata: { name },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: name } },
        template: { ...tmpl(name, image), spec: { ...tmpl(name, image).spec, restartPolicy: 'Always' } },
      },
    });
    await post(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('scaled', ref('scaled')));
    await post(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('by-digest', digestRef));
    await post(`/apis/batch/v1/namespaces/${ns}/cronjobs`, {
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 3 * * *',
        suspend: true,
        jobTemplate: { spec: { template: tmpl('nightly', ref('cron')) } },
      },
    });
    // A Job that really ran (scheduler, kubelet), then lost its Pods: the Job stays, Complete.
    await post(`/apis/batch/v1/namespaces/${ns}/jobs`, {
      metadata: { name: 'once' },
      spec: { backoffLimit: 0, template: tmpl('once', ref('job')) },
    });
    await until(
      'Job once Complete',
      async () => {
        const j = await env.rest.get<{ status?: { succeeded?: number } }>(
          `/apis/batch/v1/namespaces/${ns}/jobs/once`,
        );
        return (j.status?.succeeded ?? 0) >= 1;
      },
      120_000,
      500,
    );
    const del = await kubectl(c, ['-n', ns, 'delete', 'pods', '-l', 'job-name=once', '--wait=true']);
    assert.equal(del.code, 0, del.stderr);
    await until('the Job Pods gone', async () => {
      const pods = await env.rest.list(`/api/v1/namespaces/${ns}/pods`, {
        query: { labelSelector: 'job-name=once' },
      });
      return pods.items.length === 0;
    });
    // The real controllers do what they do: a scaled-to-0 Deployment runs nothing.
    const pods = await env.rest.list(`/api/v1/namespaces/${ns}/pods`);
    assert.equal(pods.items.length, 0, 'nothing of this namespace runs');

    const before = [await listed(c, 0), await listed(c, 1)];
    const jobObj = await env.wait(await env.erase({ images: [PRUNE_ALL] }), 180_000);
    assert.equal(jobObj.status?.phase, 'Completed', jobObj.status?.message);
    assert.match(
      jobObj.status?.message ?? '',
      /referenced image\(s\) protected \(from a fresh scan of the cluster\)/,
    );
    const after = [await listed(c, 0), await listed(c, 1)];

    const kept = [scaled!, cron!, job!, digest!];
    const r = results(jobObj);
    let total = 0;
    for (const [i, node] of c.nodes.map((n) => n.name).entries()) {
      for (const k of kept) assert.ok(after[i]!.has(k.id), `${k.refs[0]} kept on ${node}`);
      assert.ok(!after[i]!.has(unused!.id), `the unreferenced image is removed from ${node}`);
      const gone = [...before[i]!].filter(([id]) => !after[i]!.has(id));
      const expected = gone.reduce((n, [, size]) => n + size, 0);
      assert.ok(expected > 0);
      assert.equal(r[node]?.bytes, expected, `bytes freed on ${node} = sizes listed for what went`);
      total += expected;
    }
    assert.equal(jobObj.status?.bytesFreed, total);
    assert.ok((jobObj.status?.protectedRefs ?? 0) >= kept.length);

    // Each worker's own report names each image it kept and why: protected, with the workload
    // that references it (or in-use, where an exited container of the Job still holds it).
    const workers = await env.workers(jobObj.metadata.name);
    const want: [string, string][] = [
      [scaled!.id, `referenced by Deployment in ${ns}`],
      [cron!.id, `referenced by CronJob in ${ns}`],
      [job!.id, `referenced by Job in ${ns}`],
      [digest!.id, `referenced by Deployment in ${ns}`],
    ];
    let protectedSeen = 0;
    for (const pod of workers.values()) {
      const logs = await kubectl(c, ['-n', ns, 'logs', pod.metadata.name]);
      assert.equal(logs.code, 0, logs.stderr);
      // kubectl logs carries stderr too, in no fixed order (see reportFromLogs).
      const report = reportFromLogs<{
        results: { imageId: string; outcome: string; reason: string }[];
      }>(logs.stdout);
      for (const [id, reason] of want) {
        const row = report.results.find((x) => x.imageId === id);
        assert.ok(row, `${id} in the report of ${pod.spec.nodeName}`);
        if (row.outcome === 'protected') {
          assert.equal(row.reason, reason);
          protectedSeen++;
        } else {
          assert.equal(row.outcome, 'in-use', JSON.stringify(row));
        }
      }
    }
    assert.ok(protectedSeen >= 6, `${protectedSeen} protected rows over both nodes`);
    assert.equal(
      Object.values(r).reduce((n, x) => n + x.protected, 0),
      jobObj.status?.protected,
    );
  });

  it('--no-protect-inventory (spec.protectInventory: false) prunes them like any unused image', async () => {
    const t = env.tag;
    const ns = env.namespace;
    const [img] = await importToNodes(
      c,
      [0],
      [{ refs: [`docker.io/library/e2e-noprot-${t}:1`], distinct: `noprot-${t}` }],
    );
    await env.rest.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        metadata: { name: 'noprot' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'noprot' } },
          template: {
            metadata: { labels: { app: 'noprot' } },
            spec: { containers: [{ name: 'c', image: `e2e-noprot-${t}:1`, imagePullPolicy: 'Never' }] },
          },
        },
      },
    });
    const jobObj = await env.wait(await env.erase({ images: [PRUNE_ALL], protectInventory: false }), 180_000);
    assert.equal(jobObj.status?.phase, 'Completed', jobObj.status?.message);
    assert.equal(jobObj.status?.protectedChunks ?? 0, 0);
    assert.ok(!(await listed(c, 0)).has(img!.id), 'removed: protection was turned off');
  });
});
