// Pure parts of inv erase's CLI (issue 18): the EraseReport built from list, job and worker
// Pods; the Lease verdict of the preflight; what cancel may touch; the progress line; the
// IMAGES printer column's summary; tables fitted to the width.
import assert from 'node:assert/strict';
import { progressDue } from '../../../src/cli/erase/common.js';
import {
  formatElapsed,
  progressLine,
  renderEraseReport,
  shortImageId,
} from '../../../src/cli/erase/render.js';
import { foreignJob, ownedWorker } from '../../../src/core/erase-request/cancel.js';
import { summarizeImages } from '../../../src/core/erase/spec/images.js';
import { leaseHolder, neededPermissions } from '../../../src/core/erase-request/preflight.js';
import { buildReport, podImages, type WorkerPod } from '../../../src/core/erase-request/report.js';
import type { ImageJob, ImageList } from '../../../src/core/erase/api/types.js';

const list = (dryRun = false): ImageList => ({
  metadata: { name: 'l', uid: 'L', generation: 3 },
  spec: { images: ['busybox:1'], dryRun },
  status: { lastJob: 'l-3-abcde', lastJobGeneration: 3, phase: 'Completed' },
});
const job = (dryRun = false, nodes: string[] = []): ImageJob => ({
  metadata: {
    name: 'l-3-abcde',
    uid: 'J',
    labels: { 'app.kubernetes.io/managed-by': 'inv-erase' },
    ownerReferences: [{ apiVersion: 'x', kind: 'ImageList', name: 'l', uid: 'L', controller: true }],
  },
  spec: {
    imageList: { name: 'l', uid: 'L', generation: 3 },
    namespace: 'w',
    images: ['busybox:1'],
    dryRun,
    config: {} as ImageJob['spec']['config'],
  },
  status: { phase: 'Running', desired: nodes.length, removed: 2, bytesFreed: 2000, nodes },
});
const summary = (results: object[], truncated = false) =>
  JSON.stringify({ node: 'n', counts: {}, bytes: 0, ...(truncated ? { truncated } : {}), results });
const pod = (name: string, node: string, owner: string, status: WorkerPod['status']): WorkerPod => ({
  metadata: { name, ownerReferences: [{ uid: owner }] },
  spec: { nodeName: node },
  status,
});

describe('erase report (pure)', () => {
  it('separates removed from would-remove; nodes running and waiting come from their Pods; lists from termination messages', () => {
    const j = job(true, [
      'a|Succeeded|1|0|0|0|0|1000|',
      'b|Pending|0|0|0|0|0|0|',
      'c|Pending|0|0|0|0|0|0|',
      'd|Skipped|0|0|0|0|0|0|cordoned',
    ]);
    const pods = [
      pod('p-a', 'a', 'J', {
        phase: 'Succeeded',
        containerStatuses: [
          {
            state: {
              terminated: {
                exitCode: 0,
                message: summary([{ t: 'busybox:1', i: 'sha256:abc', o: 'would-remove' }]),
              },
            },
          },
        ],
      }),
      pod('p-b', 'b', 'J', { phase: 'Running' }),
      pod('p-c', 'c', 'J', {
        phase: 'Pending',
        containerStatuses: [{ state: { waiting: { reason: 'ErrImagePull' } } }],
      }),
      // Someone else's Pod on node d: never read.
      pod('x-d', 'd', 'OTHER', { phase: 'Running' }),
    ];
    const r = buildReport(list(true), { generation: 3, job: j, pods });
    assert.equal(r.apiVersion, 'cli.imageinventory.dev/v1');
    assert.equal(r.kind, 'EraseReport');
    assert.equal(r.removed, 0);
    assert.equal(r.wouldRemove, 2);
    assert.equal(r.bytesFreed, 0);
    assert.equal(r.bytesWouldFree, 2000);
    assert.deepEqual(r.nodes, { desired: 4, running: 1, pending: 1, succeeded: 1, failed: 0, skipped: 1 });
    const [a, b, c, d] = r.results;
    assert.deepEqual(a!.images, [
      { target: 'busybox:1', image: 'sha256:abc', names: [], size: 0, outcome: 'would-remove' },
    ]);
    assert.equal(a!.wouldRemove, 1);
    assert.equal(a!.removed, 0);
    assert.equal(b!.outcome, 'Running');
    assert.equal(c!.reason, 'Pod p-c waiting: ErrImagePull');
    assert.equal(d!.pod, null);
    assert.equal(d!.images, null);
    // A real run counts as removed.
    const real = buildReport(list(), { generation: 3, job: job(false, ['a|Succeeded|1|0|0|0|0|1000|']) });
    assert.equal(real.removed, 2);
    assert.equal(real.wouldRemove, 0);
    assert.equal(real.bytesFreed, 2000);
  });

  it('before the job: Submitted; a rejected request: Error with the message', () => {
    const l: ImageList = {
      metadata: { name: 'l', generation: 4 },
      spec: { images: ['x'] },
      status: { lastJobGeneration: 3 },
    };
    assert.equal(buildReport(l, { generation: 4, submitted: true }).phase, 'Submitted');
    assert.equal(buildReport(l, { generation: 4, submitted: true }).job, null);
    l.status = { phase: 'Error', observedGeneration: 4, message: 'invalid image' };
    const r = buildReport(l, { generation: 4 });
    assert.equal(r.phase, 'Error');
    assert.equal(r.message, 'invalid image');
  });

  it('reads a shortened list as truncated; a message that is not a summary gives no list', () => {
    const p = (message: string) =>
      pod('p', 'n', 'J', { containerStatuses: [{ state: { terminated: { message } } }] });
    assert.deepEqual(podImages(p(summary([{ t: '*', i: 'sha256:1', o: 'failed', e: 'boom' }], true))), {
      images: [{ target: '*', image: 'sha256:1', names: [], size: 0, outcome: 'failed', detail: 'boom' }],
      truncated: true,
    });
    assert.equal(podImages(p('exec format error')), undefined);
    assert.equal(podImages(p('{not json')), undefined);
  });

  it('preflight Lease verdict: held while renewed within its duration (plus slack), else who let it go and when', () => {
    const now = Date.parse('2026-01-01T00:01:00Z');
    const lease = (holder: string | null, renew: string) => ({
      spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: renew },
    });
    assert.deepEqual(leaseHolder(lease('pod-1', '2026-01-01T00:00:50.000000Z'), now), { holder: 'pod-1' });
    assert.match(
      leaseHolder(lease('pod-1', '2026-01-01T00:00:00Z'), now).problem!,
      /pod-1 last renewed it 60s ago/,
    );
    assert.match(leaseHolder(lease(null, '2026-01-01T00:00:59Z'), now).problem!, /no controller holds it/);
  });

  it('permissions: submitting needs the ImageList and ImageJob; --standalone also the workers objects in the namespace', () => {
    const base = neededPermissions({ workersNamespace: 'w', standalone: false });
    assert.ok(base.every((p) => p.group === 'erase.imageinventory.dev'));
    const sa = neededPermissions({ workersNamespace: 'w', standalone: true });
    assert.ok(sa.some((p) => p.resource === 'pods' && p.verb === 'create' && p.namespace === 'w'));
    assert.ok(sa.some((p) => p.resource === 'nodes' && p.verb === 'list' && p.namespace === undefined));
  });

  it('cancel touches only our jobs and Pods the job owns', () => {
    const j = job();
    assert.equal(foreignJob(j), undefined);
    assert.match(foreignJob({ ...j, metadata: { ...j.metadata, labels: {} } })!, /lacks the label/);
    const labels = {
      'app.kubernetes.io/managed-by': 'inv-erase',
      'erase.imageinventory.dev/job': j.metadata.name,
    };
    const p = (uid: string, l: Record<string, string> = labels) => ({
      metadata: { name: 'p', labels: l, ownerReferences: [{ kind: 'ImageJob', uid, controller: true }] },
    });
    assert.ok(ownedWorker(p('J'), j));
    assert.ok(!ownedWorker(p('OTHER'), j));
    assert.ok(!ownedWorker(p('J', { 'erase.imageinventory.dev/job': j.metadata.name }), j));
  });

  it('progress line, durations, short IDs, the IMAGES column summary', () => {
    const r = buildReport(list(), {
      generation: 3,
      job: job(false, ['a|Succeeded|1|0|0|0|0|1|', 'b|Pending|0|0|0|0|0|0|']),
    });
    assert.equal(
      progressLine(r, 65_000),
      'l-3-abcde: 0 running, 1 pending, 1/2 finished (1 succeeded, 0 failed, 0 skipped), 1m05s',
    );
    assert.equal(formatElapsed(3_723_000), '1h02m');
    assert.equal(shortImageId('sha256:0123456789abcdef0123'), '0123456789abc');
    assert.equal(
      summarizeImages(['docker.io/library/nginx:1.25', 'docker.io/bitnami/redis:7']),
      'nginx:1.25, bitnami/redis:7',
    );
    assert.equal(summarizeImages(['*']), '* (every unused image)');
    const many = Array.from({ length: 20 }, (_, i) => `registry.example.com/team/app-${i}:v1`);
    assert.equal(summarizeImages(many), 'registry.example.com/team/app-0:v1 (+19 more)');
    assert.equal(summarizeImages(['a:1', 'b:1', 'c:1'], 12), 'a:1 (+2 more)');
  });

  it('a threshold run: IMAGE FS per node, before -> after, in the table and the JSON', () => {
    const r = buildReport(list(), {
      generation: 3,
      job: {
        ...job(false),
        status: {
          phase: 'Completed',
          nodes: [
            {
              node: 'a',
              outcome: 'Succeeded',
              removed: 2,
              bytes: 300,
              imageFsBefore: 8120,
              imageFsAfter: 6990,
            },
            {
              node: 'b',
              outcome: 'Succeeded',
              imageFsBefore: 310,
              imageFsAfter: 310,
              belowThreshold: 5,
            },
          ],
        },
      },
    });
    assert.deepEqual(r.results[0]!.imageFs, { before: 81.2, after: 69.9 });
    const out = renderEraseReport(r, { width: 120 });
    assert.match(out, /IMAGE FS/);
    assert.match(out, /81\.20%->69\.90%/);
    assert.match(out, /3\.10%/);
    const plain = buildReport(list(), { generation: 3, job: job(false, ['a|Succeeded|1|0|0|0|0|1|']) });
    assert.equal(plain.results[0]!.imageFs, undefined);
    assert.doesNotMatch(renderEraseReport(plain, {}), /IMAGE FS/);
  });

  it('the node table fits the width it is given', () => {
    const long = 'ip-10-0-101-23.eu-central-1.compute.internal';
    const r = buildReport(list(), {
      generation: 3,
      job: job(false, [
        `${long}|Failed|0|0|0|1|0|0|failed busybox:1: rpc error: code = Unknown desc = image is being used by a running container`,
      ]),
    });
    for (const width of [80, 120]) {
      const out = renderEraseReport(r, { width });
      const table = out.split('\n').filter((l) => /^(NODE|ip-)/.test(l));
      assert.ok(table.length === 2);
      for (const l of table) assert.ok(l.length <= width, `${l.length} > ${width}: ${l}`);
    }
    assert.ok(renderEraseReport(r, {}).includes(long), 'piped: never cut');
  });

  it('without a terminal, a progress line at once, on a change at most every 5 s, and at least every 30 s', () => {
    assert.ok(progressDue(0, false, 1_000));
    assert.ok(!progressDue(1_000, true, 4_000));
    assert.ok(progressDue(1_000, true, 6_000));
    assert.ok(!progressDue(1_000, false, 30_000));
    assert.ok(progressDue(1_000, false, 31_000));
  });
});
