// A job's status always fits (issue 49, item 5), on the real API server:
// - 5,000 nodes with maximal honest reports beside a 1 MB list: the controller's status writer
//   (recordStatus, save) stays within etcd's 1.5 MiB per object, counting the spec and
//   managedFields (status.nodes is an atomic list; past the room it is packed), every result
//   reads back whole and the totals saturate below int64. The same status as written before
//   (status.nodes whole, unbounded sums) is refused by the server, and told apart as refused.
// - a status write the server refuses (here a CRD that allows one node entry) fails the job
//   with the reason, a Warning Event, and its slot is free for the next job;
// - a pause of 3,000,000,000 hours: the first wave's result and the next wave's time (clamped at
//   9999-12-31T23:59:59Z) are written, not thrown away by "Invalid time value" on every pass;
// - a CRD older than this controller prunes status.nodesPacked: the write is taken as refused
//   and the job fails saying so, instead of losing its node results and finishing on nothing.
import assert from 'node:assert/strict';
import { ApplyInventory } from '../../src/core/apply-inventory/apply-inventory.js';
import { encodeInventory } from '../../src/core/apply-inventory/item-lines.js';
import type { InventoryItem } from '../../src/core/apply-inventory/items.js';
import { encodeNodes } from '../../src/core/erase/api/node-status.js';
import { pendingResult, resultFromPod, type NodeResult } from '../../src/core/contract/results.js';
import { ETCD_REQUEST_LIMIT, statusNodes } from '../../src/core/erase/api/status-budget.js';
import { IMAGEJOBS_PATH, podNames, type ImageJob } from '../../src/core/erase/api/types.js';
import { EVENT_NAMESPACE } from '../../src/core/erase/cluster/events.js';
import { beginPass, putStatus, recordStatus } from '../../src/core/erase/imagejob/pass.js';
import { failRefused, refusal } from '../../src/core/erase/imagejob/status-refused.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { waitFor } from '../support/cri.js';
import { EraseEnv, imageJob } from './helpers.js';
import {
  createJob,
  honestReport,
  imageJobCrd,
  oneMegabyteList,
  statusContext,
  statusSchema,
} from './status-fit-data.js';

const NODES = Array.from(
  { length: 5000 },
  (_, i) => `ip-10-${(i >> 8) & 255}-${i & 255}-${i % 97}.us-west-2.compute.internal`,
);
const DONE = JSON.stringify({ counts: { removed: 1 }, bytes: 1000, results: [] });

describe('erase: a job status always fits (real API server)', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  beforeEach(async () => {
    env = await new EraseEnv().setup();
  });
  afterEach(async () => {
    await installCrds(env.rest); // the shipped CRDs back, whatever a test left
    await env.teardown();
  });

  it('5,000 nodes with maximal honest reports beside a 1 MB list: every status write fits', async () => {
    const name = `fit-${env.tag}`;
    const images = oneMegabyteList();
    assert.ok(Buffer.byteLength(JSON.stringify(images)) > 999_000);
    const created = await createJob(env, name, images);
    const pods = podNames(name, NODES);
    const items: InventoryItem[] = NODES.map((node, i) => ({
      group: '',
      version: 'v1',
      kind: 'Pod',
      namespace: env.namespace,
      name: pods.get(node)!,
      applyOrder: 1,
      deleteOrder: 0,
      deletePolicy: 'Delete',
      digest: (0x1000000000000000 + i * 7919).toString(16),
      phase: 'Ready',
      lastAppliedAt: '2026-12-05T00:00:00Z',
    }));
    const results: NodeResult[] = NODES.map((node, i) =>
      resultFromPod(node, {
        phase: i % 50 ? 'Succeeded' : 'Failed',
        exitCode: i % 50 ? 0 : 1,
        message: honestReport(node, i),
      }),
    );
    assert.equal(results.filter((r) => r.outcome === 'Failed').length, 100);
    const ctx = statusContext(env);
    let biggest = 0;
    // Three writes, as the controller makes them: planned (every node pending), every result
    // in, finished. Each pass starts from the job as the server returns it (its managedFields).
    for (const step of ['planned', 'observed', 'finished'] as const) {
      const job = step === 'planned' ? created : (await imageJob(env.rest, name))!;
      job.status ??= {};
      const inv = ApplyInventory.decode(step === 'planned' ? encodeInventory(items) : job.status.inventory);
      const stepResults = step === 'planned' ? results.map((r) => pendingResult(r.node)) : results;
      const p = beginPass(
        ctx,
        job,
        inv,
        stepResults,
        { uid: job.metadata.uid!, name, kind: 'ImageJob' } as never,
        undefined,
      );
      Object.assign(p.st, {
        phase: step === 'finished' ? 'Failed' : 'Running',
        planned: true,
        startTime: '2026-12-05T00:00:00Z',
      });
      recordStatus(p);
      await p.save();
      const stored = (await imageJob(env.rest, name))!;
      const bytes = Buffer.byteLength(JSON.stringify(stored));
      biggest = Math.max(biggest, bytes);
      process.stderr.write(
        `      (${step}: ImageJob ${bytes} bytes as stored, nodes ${stored.status?.nodesPacked ? `packed ${stored.status.nodesPacked.length}` : 'whole'} bytes, inventory ${Buffer.byteLength(JSON.stringify(stored.status?.inventory))}, spec ${Buffer.byteLength(JSON.stringify(stored.spec))}, managedFields ${Buffer.byteLength(JSON.stringify(stored.metadata.managedFields))} bytes)\n`,
      );
      assert.ok(bytes < ETCD_REQUEST_LIMIT, `${bytes}`);
      assert.notEqual(stored.status?.phase === 'Failed' && step !== 'finished', true, stored.status?.message);
    }
    const job = (await imageJob(env.rest, name))!;
    assert.deepEqual(statusNodes(job.status), results, 'every result reads back whole');
    assert.equal(job.status?.bytesFreed, Number.MAX_SAFE_INTEGER, 'the total saturates below int64');
    process.stderr.write(`      (biggest ImageJob stored: ${biggest} bytes of ${ETCD_REQUEST_LIMIT})\n`);

    // The status as it was written before: every entry whole (abridged past 776 KiB), or the
    // sums unbounded. Each is refused, and told apart as a refusal (the controller fails the
    // job with it instead of retrying).
    const refused = async (status: Partial<NonNullable<ImageJob['status']>>): Promise<string> => {
      const before = { ...structuredClone(job), status: { ...job.status, ...status } };
      const e = await putStatus(ctx, before).then(
        () => assert.fail('the status was accepted'),
        (err: unknown) => err,
      );
      return refusal(e) ?? String(e);
    };
    const whole = await refused({ nodesPacked: undefined, nodes: encodeNodes(results) });
    assert.match(whole, /refused the job's status for its size: .*too large/);
    const sums = await refused({ bytesFreed: 5000 * 1_900_000_000_000 * 1000 });
    assert.match(sums, /refused the job's status: /);
    process.stderr.write(`      (refused: ${whole.slice(0, 120)} | ${sums.slice(0, 160)})\n`);
  });

  it('a status write the server refuses fails the job with the reason and an Event; the next job runs', async () => {
    // A CRD that takes one node entry at most: every status of a two-node job is refused (422).
    const crd = imageJobCrd();
    statusSchema(crd).nodes!.maxItems = 1;
    await installCrds(env.rest, [crd as never]);
    await env.nodes([{ name: 'a' }, { name: 'b' }]);
    await env.config('maxConcurrentJobs: 1\n');
    env.startControllers();
    env.startKubelet(() => ({ exitCode: 0, message: DONE }));
    const name = `refused-${env.tag}`;
    await env.erase({ name, images: ['docker.io/library/nothing:1'] });
    let job: ImageJob | undefined;
    await waitFor(
      'the job fails with the reason',
      async () => {
        job = (await env.rest.list<ImageJob>(IMAGEJOBS_PATH)).items.find(
          (j) => j.spec.imageList.name === name,
        );
        return job?.status?.phase === 'Failed';
      },
      30_000,
    );
    assert.match(job!.status!.message!, /^the API server refused the job's status: .*nodes/);
    assert.equal(job!.status!.conditions?.find((c) => c.type === 'Complete')?.status, 'False');
    const events = await env.rest.list<{ reason: string; message: string }>(
      `/api/v1/namespaces/${EVENT_NAMESPACE}/events`,
      {
        query: { fieldSelector: `involvedObject.name=${job!.metadata.name}` },
      },
    );
    assert.ok(
      events.items.some((ev) => ev.reason === 'StatusRefused'),
      JSON.stringify(events.items.map((ev) => ev.reason)),
    );
    // Its slot (maxConcurrentJobs: 1) is free: with the shipped CRD back, the next list runs.
    await installCrds(env.rest);
    const next = `next-${env.tag}`;
    const done = await env.wait(
      next,
      await env.erase({ name: next, images: ['docker.io/library/nothing:1'] }),
    );
    assert.equal(done.status?.phase, 'Completed', done.status?.message);
  });

  it('a pause of 3,000,000,000 h: the first wave is recorded and the next one set at the latest time, not thrown', async () => {
    const name = `pause-${env.tag}`;
    // Requesters' pauses are bounded at admission (requesterLimits.maxPause); an administrator's
    // list is not, so the time computation itself must hold.
    await env.config(`requesterLimits: {administratorLists: [${name}]}\n`);
    await env.nodes([{ name: 'a' }, { name: 'b' }]);
    env.startControllers();
    env.startKubelet(() => ({ exitCode: 0, message: DONE }));
    await env.erase({
      name,
      images: ['docker.io/library/nothing:1'],
      jobTimeout: '600s',
      rollout: { maxParallel: 1, pause: '3000000000h' },
    });
    let job: ImageJob | undefined;
    await waitFor(
      'the next wave is set',
      async () => {
        job = (await env.rest.list<ImageJob>(IMAGEJOBS_PATH)).items.find(
          (j) => j.spec.imageList.name === name,
        );
        return Boolean(job?.status?.rollout?.nextWaveAt);
      },
      30_000,
    );
    assert.equal(job!.status!.rollout!.nextWaveAt, '9999-12-31T23:59:59Z');
    assert.equal(job!.status!.phase, 'Running');
    assert.deepEqual(
      statusNodes(job!.status)
        .map((r) => r.outcome)
        .sort(),
      ['Pending', 'Succeeded'],
    );
  });

  it('a CRD older than this controller (nodes a map list, no nodesPacked): the job fails saying so, its results not lost silently', async () => {
    const crd = imageJobCrd();
    const status = statusSchema(crd);
    delete status.nodesPacked;
    Object.assign(status.nodes!, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['node'] });
    await installCrds(env.rest, [crd as never]);
    const name = `old-crd-${env.tag}`;
    await createJob(env, name, oneMegabyteList());
    // The server serves the old schema once it prunes the field.
    await waitFor(
      'the old schema is served',
      async () => {
        const cur = (await imageJob(env.rest, name))!;
        const put = await env.rest.request<ImageJob>('PUT', `${IMAGEJOBS_PATH}/${name}/status`, {
          body: { ...cur, status: { nodesPacked: 'probe' } },
        });
        return !put.status?.nodesPacked;
      },
      10_000,
    );
    const ctx = statusContext(env);
    const cur = (await imageJob(env.rest, name))!;
    cur.status = { phase: 'Running', planned: true, startTime: '2026-12-05T00:00:00Z' };
    const p = beginPass(
      ctx,
      cur,
      ApplyInventory.decode([]),
      NODES.map(pendingResult),
      {} as never,
      undefined,
    );
    recordStatus(p);
    assert.ok(p.st.nodesPacked, 'packed: 5,000 map entries and their managedFields do not fit');
    const why = refusal(
      await p.save().then(
        () => assert.fail('the pruned field went unnoticed'),
        (e: unknown) => e,
      ),
    );
    assert.match(why ?? '', /status.nodesPacked was dropped: the ImageJob CRD is older than this controller/);
    await failRefused(ctx, name, why!);
    const failed = (await imageJob(env.rest, name))!;
    assert.equal(failed.status?.phase, 'Failed');
    assert.match(failed.status?.message ?? '', /nodesPacked was dropped/);
  });
});
