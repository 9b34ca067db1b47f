// A job's status always fits (issue 49, item 5), the pure parts: times past what a status can
// hold are clamped and a time that is not one throws a named error; totals saturate below
// int64; node entries take the first form that fits beside the spec (whole, abridged, packed),
// or say why none does; a refused status write is told from a retryable failure.
import assert from 'node:assert/strict';
import { InvalidTimeError, MAX_TIME_MS, rfc3339, timeAfter } from '../../../src/core/timestamps.js';
import { countResults, pendingResult, type NodeResult } from '../../../src/core/contract/results.js';
import {
  ETCD_REQUEST_LIMIT,
  fitNodes,
  nodesAtomic,
  packNodes,
  perNodeManagedFields,
  roomForNodes,
  statusNodes,
  unpackNodes,
} from '../../../src/core/erase/api/status-budget.js';
import { encodeNodes } from '../../../src/core/erase/api/node-status.js';
import { MAX_REQUEUE_MS, requeueAfter } from '../../../src/core/controller/reconcile.js';
import { KubeApiError } from '../../../src/core/kube/rest.js';
import { refusal } from '../../../src/core/erase/imagejob/status-refused.js';
import type { ImageJob } from '../../../src/core/erase/api/types.js';
import { ApplyInventory } from '../../../src/core/apply-inventory/apply-inventory.js';
import type { JobContext } from '../../../src/core/erase/imagejob/context.js';
import { beginPass, nodesOmitted, recordStatus } from '../../../src/core/erase/imagejob/pass.js';

const formOf = (f: ReturnType<typeof fitNodes>) => ('form' in f ? f.form : 'none');

const node = (i: number, over: Partial<NodeResult> = {}): NodeResult => ({
  ...pendingResult(`ip-10-${(i >> 8) & 255}-${i & 255}-${i % 97}.us-west-2.compute.internal`),
  outcome: 'Succeeded',
  removed: 1000 + (i % 977),
  inUse: 17 + (i % 13),
  excluded: 4,
  protected: 1234 + (i % 101),
  bytes: 123_456_789_012 + i * 7919,
  ...over,
});

describe('erase: a job status always fits (pure)', () => {
  it('timeAfter clamps at the latest time a status holds and throws on a time that is not one', () => {
    const now = new Date('2026-12-05T00:00:00Z');
    // --pause 3000000000h: past what a Date can hold at all.
    const pause = 3_000_000_000 * 3_600_000;
    assert.throws(() => new Date(now.getTime() + pause).toISOString(), /Invalid time value/);
    assert.equal(rfc3339(timeAfter(now, pause, 'the next wave')), '9999-12-31T23:59:59Z');
    assert.equal(timeAfter(now, 1000, 'x').getTime(), now.getTime() + 1000);
    assert.equal(timeAfter(now, Infinity, 'x').getTime(), MAX_TIME_MS);
    assert.throws(
      () => timeAfter(now, NaN, 'the job deadline'),
      (e: unknown) => {
        assert.ok(e instanceof InvalidTimeError);
        assert.equal(e.message, 'the job deadline is not a valid time');
        return true;
      },
    );
    assert.throws(() => timeAfter(NaN, 0, 'deleteAfter'), InvalidTimeError);
  });

  it('totals saturate below int64: 1,025 nodes at the per-node bound', () => {
    const results = Array.from({ length: 1025 }, (_, i) => node(i, { bytes: Number.MAX_SAFE_INTEGER }));
    const c = countResults(results);
    assert.equal(c.bytes, Number.MAX_SAFE_INTEGER);
    assert.ok(c.bytes < 2 ** 63);
    assert.equal(c.succeeded, 1025);
  });

  it('node entries: whole, abridged, packed, packed and abridged, or the reason none fits', () => {
    const results = Array.from({ length: 5000 }, (_, i) => node(i));
    assert.equal(formOf(fitNodes(results, 10_000_000, true)), 'whole');
    assert.equal(formOf(fitNodes(results, 700_000, true)), 'abridged');
    const packed = fitNodes(results, 300_000, true);
    assert.equal(formOf(packed), 'packed');
    assert.ok(packed.bytes < 300_000);
    process.stderr.write(`      (5,000 nodes packed: ${packed.bytes} bytes)\n`);
    const none = fitNodes(results, 1000, true);
    assert.ok('problem' in none && /even packed/.test(none.problem), JSON.stringify(none).slice(0, 200));
    // Packed entries read back whole.
    assert.ok('nodesPacked' in packed && packed.nodesPacked);
    assert.deepEqual(statusNodes({ nodesPacked: packed.nodesPacked }), results);
    assert.deepEqual(
      unpackNodes(packNodes(encodeNodes(results.slice(0, 3)))),
      encodeNodes(results.slice(0, 3)),
    );
    assert.deepEqual(statusNodes({ nodesPacked: 'not gzip' }, true), []);
    assert.throws(() => statusNodes({ nodesPacked: 'not gzip' }), /nodesPacked cannot be read/);
  });

  it('a map-keyed status.nodes is charged its managedFields until they show an atomic list', () => {
    const results = Array.from({ length: 2000 }, (_, i) => node(i));
    const entries = encodeNodes(results);
    const mf = perNodeManagedFields(entries);
    assert.ok(mf > 2000 * 120, `${mf}`);
    const bytes = Buffer.byteLength(JSON.stringify(entries));
    assert.equal(fitNodes(results, bytes + 10, true).bytes, bytes);
    assert.notEqual(formOf(fitNodes(results, bytes + 10, false)), 'whole');
    const job = (managedFields: unknown[]): ImageJob =>
      ({ metadata: { name: 'j', managedFields }, spec: {} }) as unknown as ImageJob;
    assert.equal(nodesAtomic(job([])), false);
    assert.equal(nodesAtomic(job([{ fieldsV1: { 'f:status': { 'f:nodes': {} } } }])), true);
    assert.equal(
      nodesAtomic(job([{ fieldsV1: { 'f:status': { 'f:nodes': { 'k:{"node":"a"}': {} } } } }])),
      false,
    );
  });

  it('the room counts the spec, the metadata with managedFields and the rest of the status', () => {
    const images = Array.from({ length: 10_000 }, (_, i) => `r.example.com/app-${i}:${'v'.repeat(80)}`);
    const job = {
      metadata: { name: 'j', managedFields: [{ manager: 'x', fieldsV1: { big: 'm'.repeat(50_000) } }] },
      spec: { images },
      status: { inventory: ['i'.repeat(100_000)], nodes: [{ node: 'n', outcome: 'Pending' }] },
    } as unknown as ImageJob;
    const room = roomForNodes(job);
    const rest = Buffer.byteLength(JSON.stringify({ ...job, status: { inventory: job.status!.inventory } }));
    assert.ok(room < ETCD_REQUEST_LIMIT - rest, `${room}`);
    assert.ok(room > ETCD_REQUEST_LIMIT - rest - 64 * 1024, `${room}`);
  });

  it('requeues never overflow a timer, and refused status writes are told apart', () => {
    assert.equal(requeueAfter(1e16).requeueAfter, MAX_REQUEUE_MS);
    const put = (
      code: number,
      message: string,
      path = '/apis/erase.imageinventory.dev/v1alpha1/imagejobs/j/status',
    ) => new KubeApiError(code, '', message, 'PUT', path);
    assert.match(refusal(put(500, 'etcdserver: request is too large')) ?? '', /for its size/);
    assert.match(refusal(put(413, 'Request entity too large')) ?? '', /for its size/);
    assert.match(refusal(put(422, 'status.bytesFreed: Invalid value')) ?? '', /refused the job's status/);
    assert.equal(refusal(put(500, 'etcdserver: leader changed')), undefined);
    assert.equal(refusal(put(409, 'conflict')), undefined);
    assert.equal(refusal(put(422, 'x', '/api/v1/namespaces/n/pods')), undefined);
    assert.match(refusal(new InvalidTimeError('the next wave')) ?? '', /not a valid time/);
  });
});

describe('erase: a job whose results cannot fit fails with the reason (pure)', () => {
  it('recordStatus fails it, its pending nodes with it, leaves its entries out and keeps its totals', () => {
    const nodes = Array.from({ length: 3 }, (_, i) => node(i));
    const job = {
      metadata: { name: 'huge', uid: 'u' },
      // A spec that leaves no room at all (a CRD without the list limits).
      spec: { images: ['x'.repeat(ETCD_REQUEST_LIMIT)], config: { delayOnFailureSeconds: 60 } },
      status: { phase: 'Running', planned: true },
    } as unknown as ImageJob;
    const ctx = { now: () => new Date('2026-12-05T00:00:00Z') } as unknown as JobContext;
    const results = [...nodes, pendingResult('waiting')];
    const p = beginPass(ctx, job, ApplyInventory.decode([]), results, {} as never, undefined);
    recordStatus(p);
    const st = p.st;
    assert.equal(st.phase, 'Failed');
    assert.match(st.message!, /^status too large: the results of 4 node\(s\) take \d+ bytes even packed/);
    assert.equal(p.tooLarge, st.message);
    assert.equal(st.deleteAfter, '2026-12-05T00:01:00Z');
    assert.equal(st.nodes, undefined);
    assert.equal(st.nodesPacked, undefined);
    assert.deepEqual([st.desired, st.succeeded, st.failed], [4, 3, 1]);
    assert.equal(st.removed, countResults(nodes).removed);
    // The next pass reads no entries: the totals recorded stay.
    assert.equal(nodesOmitted(st, statusNodes(st)), true);
    const next = beginPass(
      ctx,
      job,
      ApplyInventory.decode(st.inventory),
      statusNodes(st),
      {} as never,
      undefined,
    );
    recordStatus(next);
    assert.deepEqual(
      [st.desired, st.succeeded, st.failed, st.removed],
      [4, 3, 1, countResults(nodes).removed],
    );
  });
});
