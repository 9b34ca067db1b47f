// The ImageJob reconcile step by step, against the real API server, with an injected clock: each
// call is one pass, and after each the test decodes the job's inventory and node results and
// checks them exactly, as component-operator-runtime's tests check the inventory. Nothing runs
// in the background: no controllers, no kubelet; the test writes the worker Pods' status itself.
import assert from 'node:assert/strict';
import { ImageJobController } from '../../src/core/erase/imagejob-controller.js';
import { ImageListController } from '../../src/core/erase/imagelist-controller.js';
import { decodeNodes } from '../../src/core/erase/api/node-status.js';
import { EVENT_NAMESPACE } from '../../src/core/erase/cluster/events.js';
import { IMAGEJOBS_PATH, podNames, type ImageJob } from '../../src/core/erase/api/types.js';
import { terminationSummary } from '../../src/core/noderemove/summary.js';
import { decodeInventory } from '../../src/core/apply-inventory/item-lines.js';
import { EraseEnv } from './helpers.js';

/** An input ConfigMap's name without its random part (worker/inputs.ts planInputs). */
const inputName = (i: { kind: string; name: string }) =>
  i.kind === 'ConfigMap' ? i.name.replace(/-[a-z0-9]{10}$/, '') : i.name;

describe('erase: the ImageJob reconcile step by step (real API server, injected clock)', function () {
  this.timeout(60_000);
  let env: EraseEnv;
  before(async () => {
    env = await new EraseEnv().setup();
  });
  after(async () => {
    await env.teardown();
  });

  it('plan, apply, observe, deadline, finish: the inventory and node results after each pass', async () => {
    const nodes = await env.nodes([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    const [a, b, c] = nodes as [string, string, string];
    const list = `steps-${env.tag}`;
    // A CRD just installed answers 429 while its storage initializes.
    for (let i = 0; ; i++) {
      try {
        await env.rest.list<ImageJob>(IMAGEJOBS_PATH);
        break;
      } catch (e) {
        if (i > 100) throw e;
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    await env.erase({ name: list, images: [`docker.io/library/nothing-${env.tag}:1`], jobTimeout: '1m' });
    let clock = new Date();
    await new ImageListController({
      rest: env.rest,
      namespace: env.namespace,
      configNamespace: env.namespace,
      now: () => clock,
    }).reconcile(list);
    const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH);
    const name = jobs.items.find((j) => j.spec.imageList.name === list)!.metadata.name;
    const ctl = new ImageJobController({
      rest: env.rest,
      namespace: env.namespace,
      configNamespace: env.namespace,
      now: () => clock,
    });
    const pods = podNames(name, nodes);
    const ns = env.namespace;

    const read = async () => {
      const job = (await env.job(name))!;
      const inv = decodeInventory(job.status?.inventory).map((i) => `${i.kind}/${inputName(i)}=${i.phase}`);
      const res = Object.fromEntries(
        decodeNodes(job.status?.nodes).map((r) => [r.node, `${r.outcome}${r.reason ? `: ${r.reason}` : ''}`]),
      );
      return { job, inv: inv.sort(), res };
    };
    const workerObjects = [`ConfigMap/${name}-exclude`, `ConfigMap/${name}-images`, `PodTemplate/${name}`];

    // 1. Plan (write-ahead) and the first wave: ConfigMaps and PodTemplate exist, Pods recorded.
    let r = await ctl.reconcile(name);
    assert.deepEqual(r, { requeueAfter: 0 }, 'the next wave at once');
    let s = await read();
    assert.deepEqual(
      s.inv,
      [
        ...workerObjects.map((o) => `${o}=Ready`),
        ...[a, b, c].map((n) => `Pod/${pods.get(n)}=Creating`),
      ].sort(),
    );
    assert.deepEqual(s.res, { [a]: 'Pending', [b]: 'Pending', [c]: 'Pending' });
    assert.equal(s.job.status?.phase, 'Running');
    assert.equal(s.job.status?.observedGeneration, s.job.metadata.generation);
    const cond = (t: string) => s.job.status?.conditions?.find((x) => x.type === t);
    assert.equal(cond('Progressing')?.status, 'True');
    assert.equal(cond('Progressing')?.reason, 'Applying');

    // 2. The Pods.
    clock = new Date(clock.getTime() + 1000);
    r = await ctl.reconcile(name);
    s = await read();
    assert.deepEqual(
      s.inv,
      [...workerObjects.map((o) => `${o}=Ready`), ...[a, b, c].map((n) => `Pod/${pods.get(n)}=Ready`)].sort(),
    );
    assert.deepEqual(s.res, { [a]: 'Pending', [b]: 'Pending', [c]: 'Pending' });
    assert.equal(cond('Progressing')?.reason, 'Observing');
    assert.equal(r.requeueAfter, 30_000, 'looks again within the resync, long before the 1 min deadline');

    // 3. a finishes; b cannot be placed (Unschedulable); c's image cannot be pulled, within its grace.
    const setStatus = async (pod: string, status: Record<string, unknown>) => {
      const cur = await env.rest.get<Record<string, unknown>>(`/api/v1/namespaces/${ns}/pods/${pod}`);
      await env.rest.request('PUT', `/api/v1/namespaces/${ns}/pods/${pod}/status`, {
        body: { ...cur, status },
      });
    };
    const ts = clock.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const message = terminationSummary({
      node: a,
      runtime: { name: 'containerd', version: 'v1.6.20', apiVersion: 'v1' },
      results: [],
    });
    await setStatus(pods.get(a)!, {
      phase: 'Succeeded',
      containerStatuses: [
        {
          name: 'remover',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 0, message } },
        },
      ],
    });
    await setStatus(pods.get(b)!, {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/3 nodes are available: 3 Insufficient memory.',
        },
      ],
    });
    await setStatus(pods.get(c)!, {
      phase: 'Pending',
      startTime: ts,
      containerStatuses: [
        {
          name: 'remover',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ErrImagePull', message: 'pull access denied' } },
        },
      ],
    });
    clock = new Date(clock.getTime() + 1000);
    await ctl.reconcile(name);
    s = await read();
    assert.deepEqual(s.res, { [a]: 'Succeeded', [b]: 'Pending', [c]: 'Pending' });
    assert.ok(s.inv.includes(`Pod/${pods.get(a)}=Completed`), s.inv.join(', '));

    // 4. Past the grace and the deadline: every unfinished node fails with its reason (b's worker
    //    could not be placed: the scheduler's message); the job finishes Failed (1 of 3
    //    succeeded), its conditions say so, Events record it.
    clock = new Date(clock.getTime() + 65_000);
    await ctl.reconcile(name);
    s = await read();
    assert.deepEqual(s.res, {
      [a]: 'Succeeded',
      [b]: 'Failed: unschedulable: Unschedulable: 0/3 nodes are available: 3 Insufficient memory.',
      [c]: 'Failed: image-pull: ErrImagePull: pull access denied',
    });
    assert.equal(s.job.status?.phase, 'Failed');
    assert.equal(cond('Failed')?.status, 'True');
    assert.equal(cond('Complete')?.status, 'False');
    assert.equal(cond('Progressing')?.status, 'False');
    assert.ok(
      s.inv.every(
        (i) =>
          i.endsWith('=Completed') ||
          i.endsWith('=Ready') ||
          i.includes('Deletion') ||
          i.includes('Deleting'),
      ),
      s.inv.join(', '),
    );

    const events = await env.rest.list<{ reason: string; message: string; type: string }>(
      `/api/v1/namespaces/${EVENT_NAMESPACE}/events`,
      { query: { fieldSelector: `involvedObject.name=${name}` } },
    );
    const seen = events.items.map((e) => `${e.type} ${e.reason}`).sort();
    // Both nodes failed in the same pass: one aggregated NodesFailed Event names them both.
    assert.deepEqual(seen, ['Normal Planned', 'Warning Failed', 'Warning NodesFailed']);
    const failedEvents = events.items
      .filter((e) => e.reason === 'NodesFailed')
      .map((e) => e.message)
      .join(' / ');
    assert.match(failedEvents, /^2 node\(s\) failed: /);
    assert.match(failedEvents, /^2 node\(s\) failed: /);
    assert.match(failedEvents, new RegExp(`${b} \\(unschedulable: Unschedulable: 0/3 nodes`));
    assert.match(failedEvents, new RegExp(`${c} \\(image-pull: ErrImagePull`));
    assert.match(failedEvents, new RegExp(`${c} \\(image-pull: ErrImagePull`));

    // 5. One pass sees the deleted Pods gone (the workers' Pods are unbound here, with no
    //    scheduler, so the API server removes them at once) and drops them from the inventory;
    //    after that the same pass again changes nothing and writes no second Event.
    await ctl.reconcile(name);
    const rv = (await env.job(name))?.metadata.resourceVersion;
    await ctl.reconcile(name);
    assert.equal((await env.job(name))?.metadata.resourceVersion, rv, 'no write');
    const again = await env.rest.list(`/api/v1/namespaces/${EVENT_NAMESPACE}/events`, {
      query: { fieldSelector: `involvedObject.name=${name}` },
    });
    assert.equal(again.items.length, events.items.length);
  });

  it("a missing workers' namespace: each node fails at the deadline naming its Pod and the API's answer", async () => {
    const nodes = await env.nodes([{ name: 'm1' }, { name: 'm2' }]);
    const list = `nons-${env.tag}`;
    const missing = `missing-${env.tag}`;
    await env.erase({ name: list, images: [`docker.io/library/nothing-${env.tag}:1`], jobTimeout: '1m' });
    let clock = new Date();
    // The controllers are told to use a namespace that does not exist.
    await new ImageListController({
      rest: env.rest,
      namespace: missing,
      configNamespace: env.namespace,
      now: () => clock,
    }).reconcile(list);
    const name = (await env.rest.list<ImageJob>(IMAGEJOBS_PATH)).items.find(
      (j) => j.spec.imageList.name === list,
    )!.metadata.name;
    const ctl = new ImageJobController({
      rest: env.rest,
      namespace: missing,
      configNamespace: env.namespace,
      now: () => clock,
    });
    // The first wave is refused: thrown (retried with backoff), and the status says why.
    await assert.rejects(ctl.reconcile(name), /the workers' namespace does not exist: namespaces "missing-/);
    let job = (await env.job(name))!;
    assert.match(job.status?.message ?? '', new RegExp(`namespaces "${missing}" not found`));
    clock = new Date(clock.getTime() + 65_000);
    await ctl.reconcile(name);
    job = (await env.job(name))!;
    assert.equal(job.status?.phase, 'Failed');
    // Every node of the tag (the first test's too) is part of this job.
    const results = decodeNodes(job.status?.nodes);
    assert.ok(nodes.every((n) => results.some((r) => r.node === n)));
    const pods = podNames(
      name,
      results.map((r) => r.node),
    );
    for (const r of results) {
      assert.equal(r.outcome, 'Failed');
      assert.match(
        r.reason,
        new RegExp(`^timeout: Pod ${pods.get(r.node)} not created: .*namespaces "${missing}" not found`),
      );
    }
  });
});
