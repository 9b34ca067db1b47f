// The removal record on a real kubelet: a node holding 1,000 small unused images, a `*` dry run
// whose worker reports every one of them (far past its 4 KiB termination message), read by the
// controller from the worker Pod's log into ImageJobRecords; the job and its Pods deleted after
// delayOnSuccess by a clock moved on, the record read the next day by `inv erase history` and
// `inv erase status` of the deleted job; then the retention's object bound evicting the oldest.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Ajv } from 'ajv';
import fs from 'node:fs';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import type { ImageJobRecord } from '../../src/core/erase/api/record.js';
import { JOB_LABEL } from '../../src/core/erase/api/types.js';
import * as resources from '../../src/core/kube/resources.js';
import { RECORD_PART_BYTES } from '../../src/core/contract/removal-record.js';
import { until, type WholeCluster } from '../support/nodes.js';
import { repoRoot } from '../support/paths.js';
import { useWholeCluster } from '../support/suite-hooks.js';
import { importToNodes, NodeEraseEnv } from './helpers.js';

const IMAGES = 1000;
const DAY = 86_400_000;

describe('removal record on a real kubelet (1,000 images, kept after the job)', function () {
  this.timeout(600_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  // The controllers' clock: real time plus what the test moves it on by.
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(900_000);
    // delayOnSuccess: 1h (the environment's configuration).
    env = await new NodeEraseEnv(c).setup();
    // A finished job waits for its deleteAfter by the real clock; the resync has the
    // controllers look at it again soon after the test moves theirs.
    env.startControllers({ now, resyncMs: 2000 });
  });
  after(async () => {
    await env?.teardown();
  });

  const cli = (args: string[]) => {
    const r = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'bin', 'run.js'), ...args, '--kubeconfig', c.kubeconfig],
      {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 120_000,
      },
    );
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };
  const records = async (job: string) =>
    (
      await resources.list<ImageJobRecord>(env.rest, 'ImageJobRecord', undefined, {
        query: { labelSelector: `${JOB_LABEL}=${job}` },
      })
    ).items;

  it('every row of a 1,000-image node is in the record after the job is deleted, the next day too; the oldest go first past the bound', async () => {
    const t = env.tag;
    const node = c.nodes[0]!.name;
    const started = Date.now();
    const built = await importToNodes(
      c,
      [0],
      Array.from({ length: IMAGES }, (_, i) => ({
        // Long names: 1,000 rows then take more than one part of the record.
        refs: [`docker.io/library/rec-${t}-${'long'.repeat(30)}-${i}:1`],
        distinct: `rec-${t}-${i}`,
      })),
    );
    process.stderr.write(`      (${IMAGES} images built and imported in ${Date.now() - started} ms)\n`);

    // A `*` dry run on that node: every image would go, and the worker says so for each.
    const first = await env.erase({
      images: [PRUNE_ALL],
      dryRun: true,
      nodeSelector: `kubernetes.io/hostname=${node}`,
    });
    const job = await env.wait(first, 300_000);
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const name = job.metadata.name;
    const pod = [...(await env.workers(name)).values()][0]!;
    const msg = pod.status?.containerStatuses?.[0]?.state?.terminated?.message ?? '';
    assert.match(msg, /"truncated":true/, 'the termination message could not hold the rows');

    const parts = await records(name);
    assert.ok(parts.length >= 2, `${parts.length} part(s): 1,000 rows take more than one`);
    for (const p of parts)
      assert.ok(Buffer.byteLength(JSON.stringify(p.spec.rows)) <= RECORD_PART_BYTES, p.metadata.name);
    const rows = parts.flatMap((p) => p.spec.rows);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const b of built) {
      const r = byId.get(b.id);
      assert.equal(r?.outcome, 'would-remove', `${b.refs[0]}: ${JSON.stringify(r)}`);
      assert.ok(r!.size > 0 && r!.names.includes(b.refs[0]!), JSON.stringify(r));
    }
    assert.equal(parts[0]!.spec.recorded, rows.length);
    assert.equal(parts[0]!.spec.beyond, 0);
    assert.equal(parts[0]!.spec.unrecorded, '');
    assert.equal(parts[0]!.spec.node, node);

    // Past delayOnSuccess the controller deletes the job and its Pods; the record stays.
    offset = 61 * 60_000;
    await until('the job deleted', async () => !(await env.job(name)), 120_000, 250);
    await until('its worker Pods deleted', async () => (await env.leftovers(name)).length === 0, 60_000, 250);

    // The next day: another job finishes (and prunes by that clock); the first's record is whole.
    offset = DAY;
    const [one] = await importToNodes(
      c,
      [0],
      [{ refs: [`docker.io/library/rec-${t}-x:1`], distinct: `x-${t}` }],
    );
    const second = await env.wait(
      await env.erase({ images: [`rec-${t}-x:1`], nodeSelector: `kubernetes.io/hostname=${node}` }),
    );
    assert.equal(second.status?.phase, 'Completed', second.status?.message);
    assert.equal((await records(name)).length, parts.length, 'the first job kept its whole record');

    // `inv erase history`: every row, filtered by node, as JSON that its schema accepts.
    const h = cli(['erase', 'history', name, '--node', node, '-o', 'json']);
    assert.equal(h.status, 0, h.stderr);
    const doc = JSON.parse(h.stdout) as { records: { images: { id: string; outcome: string }[] }[] };
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'docs/schemas/EraseHistory.json'), 'utf8'));
    const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
    assert.ok(ajv.validate(schema, doc), ajv.errorsText(ajv.errors));
    assert.equal(doc.records.length, 1);
    const shown = new Set(doc.records[0]!.images.map((i) => i.id));
    assert.ok(
      built.every((b) => shown.has(b.id)),
      'every image in the history',
    );
    // An image filter finds one image by name; the table lists it.
    const one1 = cli(['erase', 'history', '--image', `${'long'.repeat(30)}-7:1`, '--no-headers']);
    assert.equal(one1.status, 0, one1.stderr);
    assert.equal(one1.stdout.trim().split('\n').length, 1, one1.stdout);
    assert.match(one1.stdout, /would-remove/);
    // The second job's removal is in the record too.
    const removed = cli(['erase', 'history', '--outcome', 'removed', '--image', one!.id, '-o', 'json']);
    assert.equal((JSON.parse(removed.stdout) as typeof doc).records[0]?.images[0]?.id, one!.id);

    // `inv erase status` of the deleted job: every image of the node, from the record.
    const s = cli(['erase', 'status', name, '-o', 'json']);
    assert.equal(s.status, 0, s.stderr);
    const report = JSON.parse(s.stdout) as {
      job: string;
      phase: string;
      wouldRemove: number;
      results: { node: string; images: { image: string }[]; imagesTruncated: boolean }[];
    };
    assert.equal(report.job, name);
    assert.equal(report.results[0]?.imagesTruncated, false);
    const inReport = new Set(report.results[0]!.images.map((i) => i.image));
    assert.ok(
      built.every((b) => inReport.has(b.id)),
      'every image in the status of the deleted job',
    );

    // The bound in objects: past it the oldest go (the first job's), the newest stay.
    await env.config('record: {maxObjects: 2}');
    offset = 2 * DAY;
    const third = await env.wait(
      await env.erase({ images: [`rec-${t}-none:1`], nodeSelector: `kubernetes.io/hostname=${node}` }),
    );
    assert.equal(third.status?.phase, 'Completed', third.status?.message);
    await until('the oldest records evicted', async () => (await records(name)).length === 0, 30_000, 250);
    assert.equal((await records(second.metadata.name)).length, 1, 'the second job kept');
    assert.equal((await records(third.metadata.name)).length, 1, 'the third job kept');
  });
});
