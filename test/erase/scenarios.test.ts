// Node filter, failure ratio, deadline, re-runs, dry-run, ordered cleanup, foreign collisions.
// They use the kubelet harness (./kubelet.ts): a failing or never-finishing worker on a healthy
// node and five Nodes with chosen labels and conditions are what a real kubelet cannot give on
// demand. The same paths on real kubelets are in test/nodes/erase.test.ts.
import assert from 'node:assert/strict';
import { waitFor } from '../support/cri.js';
import { addImages } from '../support/oci.js';
import { connect } from '../support/cri.js';
import { EraseEnv, eraseEnvPerTest, results, sleep } from './helpers.js';
import { IMAGEJOBS_PATH } from '../../src/core/erase/api/types.js';
import { decodeInventory } from '../../src/core/apply-inventory/item-lines.js';
import { Registry } from 'prom-client';
import { createEraseMetrics } from '../../src/core/erase/metrics/metrics.js';

describe('erase: scenarios', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  eraseEnvPerTest((e) => (env = e));

  it('node filter: exclude and include selectors, cordoned and NotReady nodes skipped with reasons', async () => {
    const nodes = await env.nodes([
      { name: 'plain' },
      { name: 'gpu', labels: { pool: 'gpu' } },
      { name: 'cordoned', cordoned: true },
      { name: 'notready', ready: false },
      { name: 'skipme', labels: { 'imageinventory.dev/erase-skip': 'true' } },
    ]);
    const n = (s: string) => nodes.find((x) => x.startsWith(`${s}-`))!;
    env.startControllers();
    env.startKubelet();
    // Default config: exclude filter with imageinventory.dev/erase-skip.
    const name = `filter-${env.tag}`;
    let job = await env.wait(
      name,
      await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] }),
    );
    let r = results(job);
    assert.deepEqual(Object.fromEntries(Object.values(r).map((x) => [x.node, `${x.outcome}:${x.reason}`])), {
      [n('plain')]: 'Succeeded:',
      [n('gpu')]: 'Succeeded:',
      [n('cordoned')]: 'Skipped:cordoned',
      [n('notready')]: 'Skipped:not-ready',
      [n('skipme')]: 'Skipped:filtered',
    });
    assert.deepEqual([job.status?.desired, job.status?.succeeded, job.status?.skipped], [5, 2, 3]);
    assert.equal(job.status?.phase, 'Completed');

    // Include filter: only the gpu pool.
    await env.config('nodeFilter:\n  type: include\n  selectors: ["pool=gpu"]\n');
    job = await env.wait(name, await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] }));
    r = results(job);
    assert.equal(r[n('gpu')]!.outcome, 'Succeeded');
    for (const x of ['plain', 'cordoned', 'notready', 'skipme']) assert.equal(r[n(x)]!.reason, 'filtered', x);
    assert.equal(env.kubelet!.runs.filter((x) => x.node === n('gpu')).length, 2);
    assert.equal(env.kubelet!.runs.filter((x) => x.node === n('plain')).length, 1);

    // --node-selector narrows further: nodes outside are not part of the job at all.
    job = await env.wait(
      name,
      await env.erase({ name, images: ['busybox'], nodeSelector: `erase-test=${env.tag},pool=gpu` }),
    );
    assert.deepEqual(Object.keys(results(job)), [n('gpu')]);
  });

  it('one failing node: Failed with successRatio 1.0, Completed with 0.5 (real division)', async () => {
    const nodes = await env.nodes([{ name: 'ok' }, { name: 'bad' }]);
    const registry = new Registry();
    env.startControllers({ metrics: createEraseMetrics(registry) });
    env.startKubelet((node) => (node.startsWith('bad-') ? 'fail' : 'run'));
    const name = `ratio-${env.tag}`;
    let job = await env.wait(
      name,
      await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] }),
    );
    assert.equal(job.status?.phase, 'Failed');
    const r = results(job);
    assert.equal(r[nodes[1]!]!.outcome, 'Failed');
    assert.match(r[nodes[1]!]!.reason, /simulated failure/);
    assert.equal(r[nodes[0]!]!.outcome, 'Succeeded');

    await env.config('successRatio: 0.5\n');
    job = await env.wait(name, await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] }));
    assert.equal(job.status?.phase, 'Completed', '1/2 = 0.5 >= 0.5');
    await env.config('successRatio: 0.51\n');
    job = await env.wait(name, await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] }));
    assert.equal(job.status?.phase, 'Failed', '1/2 = 0.5 < 0.51');
    // Each finished job counted once, by result; the duration of the last one recorded. The
    // controller counts after its status write is accepted, so the job can read Failed a moment
    // before the counter moves: wait for the count, then check it is exact.
    let text = '';
    await waitFor(
      'the third finished job counted',
      async () => /^inv_erase_jobs_total\{result="Failed"\} 2$/m.test((text = await registry.metrics())),
      10_000,
    );
    assert.match(text, /^inv_erase_jobs_total\{result="Failed"\} 2$/m);
    assert.match(text, /^inv_erase_jobs_total\{result="Completed"\} 1$/m);
    assert.match(text, /^inv_erase_images_removed_total 0$/m);
    assert.match(text, /^inv_erase_last_job_duration_seconds \d+/m);
  });

  it('a worker that never finishes is caught by the job deadline (reason timeout), its Pod deleted', async () => {
    const nodes = await env.nodes([{ name: 'ok' }, { name: 'hung' }]);
    env.startControllers();
    env.startKubelet((node) => (node.startsWith('hung-') ? 'hang' : 'run'));
    const name = `timeout-${env.tag}`;
    const t0 = Date.now();
    // A deadline the healthy node's worker meets even on a loaded machine (3 s did not, once).
    const job = await env.wait(name, await env.erase({ name, images: ['busybox'], jobTimeout: '8s' }));
    const took = Date.now() - t0;
    assert.equal(job.status?.phase, 'Failed');
    const r = results(job);
    // The reason names the worker Pod and its state, not a bare "timeout".
    assert.match(r[nodes[1]!]!.reason, /^timeout: Pod timeout-\S+ Running$/);
    assert.equal(r[nodes[0]!]!.outcome, 'Succeeded', r[nodes[0]!]!.reason);
    assert.ok(took >= 8000 && took < 30_000, `finished after ${took} ms (never before the 8 s timeout)`);
    // The hung worker's Pod is deleted at once (the fake kubelet finalizes it).
    await waitFor('hung Pod deleted', async () => (await env.objects('pods')).length === 1, 10_000);
  });

  it('re-running the same image list starts a second job; a newer request waits for the running one', async () => {
    await env.nodes([{ name: 'a' }]);
    env.startControllers();
    const kubelet = env.startKubelet();
    const name = `rerun-${env.tag}`;
    const images = [`docker.io/library/nothing-${env.tag}:1`];
    const j1 = await env.wait(name, await env.erase({ name, images }));
    kubelet.active = false; // the next job's worker stays Pending for now
    const g2 = await env.erase({ name, images });
    await waitFor(
      'job 2 running',
      async () =>
        (
          await env.rest.get<{ status?: { lastJobGeneration?: number } }>(
            `/apis/erase.imageinventory.dev/v1alpha1/imagelists/${name}`,
          )
        ).status?.lastJobGeneration === g2,
    );
    const g3 = await env.erase({ name, images });
    // The controller has looked at generation 3 and said it waits (observedGeneration is written
    // in the same status update as that decision).
    await waitFor('generation 3 observed', async () => {
      const st = (
        await env.rest.get<{ status?: { observedGeneration?: number; message?: string } }>(
          `/apis/erase.imageinventory.dev/v1alpha1/imagelists/${name}`,
        )
      ).status;
      return st?.observedGeneration === g3 && /waits for job/.test(st.message ?? '');
    });
    const jobs = (
      await env.rest.list<{ metadata: { name: string } }>(IMAGEJOBS_PATH, {
        query: { labelSelector: `erase.imageinventory.dev/imagelist=${name}` },
      })
    ).items;
    assert.equal(jobs.length, 2, 'generation 3 waits while job 2 runs');
    kubelet.active = true;
    const j3 = await env.wait(name, g3);
    const j2 = await env.job(jobs.map((j) => j.metadata.name).find((x) => x !== j1.metadata.name)!);
    assert.equal(j2?.status?.phase, 'Completed');
    assert.equal(j3.status?.phase, 'Completed');
    assert.equal(new Set([j1.metadata.name, j2?.metadata.name, j3.metadata.name]).size, 3);
  });

  it('dry-run reports what each node would remove and removes nothing', async () => {
    const t = env.tag;
    const [img] = await addImages([{ refs: [`docker.io/library/erase-dry-${t}:1`], distinct: `dry-${t}` }]);
    await env.nodes([{ name: 'a' }, { name: 'b' }]);
    env.startControllers();
    env.startKubelet();
    const name = `dry-${t}`;
    const job = await env.wait(name, await env.erase({ name, images: [`erase-dry-${t}:1`], dryRun: true }));
    assert.equal(job.status?.phase, 'Completed');
    for (const r of Object.values(results(job))) assert.equal(r.removed, 1, 'would remove 1 on every node');
    assert.ok(env.kubelet!.runs.every((r) => r.args.includes('--dry-run')));
    const cri = await connect();
    try {
      assert.ok(
        (await cri.listImages()).some((i) => i.id === img!.id),
        'still there',
      );
    } finally {
      cri.close();
    }
  });

  it('cleans up after deleteAfter in delete order (Pods, then PodTemplate, then ConfigMaps), then the job', async () => {
    await env.nodes([{ name: 'a' }, { name: 'b' }]);
    await env.config('delayOnSuccess: 2s\n');
    env.startControllers();
    env.startKubelet();
    const name = `cleanup-${env.tag}`;
    const job = await env.wait(name, await env.erase({ name, images: ['busybox'] }));
    assert.equal(job.status?.phase, 'Completed');
    const inv = decodeInventory(job.status?.inventory);
    assert.deepEqual(
      inv.map((i) => `${i.kind}:${i.phase}`),
      ['Pod:Completed', 'Pod:Completed', 'PodTemplate:Ready', 'ConfigMap:Ready', 'ConfigMap:Ready'],
    );
    // Watch the objects disappear and record the order of kinds.
    const order: string[] = [];
    const start = Date.now();
    for (;;) {
      const present = {
        Pod: (await env.objects('pods')).length,
        PodTemplate: (await env.objects('podtemplates')).length,
        ConfigMap: (await env.objects('configmaps')).length,
      };
      for (const [k, v] of Object.entries(present)) if (v === 0 && !order.includes(k)) order.push(k);
      if (order.length === 3) break;
      // A later wave never goes before an earlier one is entirely gone.
      if (present.Pod > 0)
        assert.ok(present.PodTemplate === 1 && present.ConfigMap === 2, JSON.stringify(present));
      if (Date.now() - start > 30_000) throw new Error(`cleanup stuck: ${JSON.stringify(present)}`);
      await sleep(20);
    }
    assert.equal(order[0], 'Pod');
    assert.ok(Date.now() - Date.parse(job.status!.completionTime!) >= 2000, 'not before deleteAfter');
    await waitFor('job deleted', async () => (await env.job(job.metadata.name)) === undefined, 15_000);
    // The generation is done: another list reconcile never starts its job again.
    await env.controllers!.lists.reconcile(name);
    assert.equal(await env.job(job.metadata.name), undefined, 'the finished generation was started again');
    const list = await env.rest.get<{ status?: { phase?: string; lastJob?: string } }>(
      `/apis/erase.imageinventory.dev/v1alpha1/imagelists/${name}`,
    );
    assert.deepEqual([list.status?.phase, list.status?.lastJob], ['Completed', job.metadata.name]);
  });

  it('a foreign object with a colliding name is reported and left untouched', async () => {
    const nodes = await env.nodes([{ name: 'a' }, { name: 'b' }]);
    await env.config('delayOnSuccess: 1s\ndelayOnFailure: 1s\n');
    const name = `collide-${env.tag}`;
    // Predict the job's first worker Pod name and squat it with a foreign Pod.
    const { podNames } = await import('../../src/core/erase/api/types.js');
    env.startControllers();
    env.startKubelet((node) => (node === nodes[0] ? 'ignore' : 'run'));
    // The list's UID is needed for the job name: create the list, then squat before the job plans.
    await env.controllers!.jobQueue.shutDown(); // hold the job controller back
    const gen = await env.erase({ name, images: ['busybox'] });
    let jobName = '';
    await waitFor('job created', async () => {
      const l = await env.rest.get<{ status?: { lastJob?: string } }>(
        `/apis/erase.imageinventory.dev/v1alpha1/imagelists/${name}`,
      );
      jobName = l.status?.lastJob ?? '';
      return jobName;
    });
    const squat = podNames(jobName, nodes).get(nodes[0]!)!;
    await env.rest.request('POST', `/api/v1/namespaces/${env.namespace}/pods`, {
      body: {
        metadata: { name: squat, labels: { app: 'someone-else' } },
        spec: { nodeName: nodes[0], containers: [{ name: 'c', image: 'busybox' }] },
      },
    });
    await env.stopControllers();
    env.startControllers();
    const job = await env.wait(name, gen);
    assert.equal(job.status?.phase, 'Failed');
    assert.match(results(job)[nodes[0]!]!.reason, /name collision/);
    assert.equal(results(job)[nodes[1]!]!.outcome, 'Succeeded');
    assert.match(
      (job.status?.collisions ?? []).join(),
      new RegExp(`Pod ${env.namespace}/${squat} is held by unmanaged`),
    );
    assert.ok(
      !decodeInventory(job.status?.inventory).some((i) => i.name === squat),
      'never in the inventory',
    );
    // After cleanup the foreign Pod is still there, untouched.
    await waitFor('job cleaned up', async () => (await env.job(jobName)) === undefined, 20_000);
    const foreign = await env.rest.get<{ metadata: { labels?: Record<string, string> } }>(
      `/api/v1/namespaces/${env.namespace}/pods/${squat}`,
    );
    assert.deepEqual(foreign.metadata.labels, { app: 'someone-else' });
  });
});
