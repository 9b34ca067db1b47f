// Issue 29 §1 and §3 on real nodes: a dry run names every image it would remove (tags, grouped
// across nodes), counts an image once whatever the number of targets naming it, warns of a
// target present on no node, and a real run prints the same rows; `kubectl get imagejobs` tells
// a dry run apart and shows sizes for people; `kubectl describe` and `-o jsonpath` read the
// per-node status fields; a worker that cannot mount the runtime socket fails its node after
// workerStartGrace naming the socket and the setting.
import assert from 'node:assert/strict';
import { groupImages, renderEraseReport } from '../../src/cli/erase/render.js';
import { buildReport } from '../../src/core/erase-request/report.js';
import { workerPods } from '../../src/core/erase-request/follow.js';
import { IMAGELISTS_PATH, type ImageJob, type ImageList } from '../../src/core/erase/api/types.js';
import { kubectl, type WholeCluster } from '../support/nodes.js';
import { importToNodes, nodeImageIds, NodeEraseEnv, results } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

describe('erase names what it removes; the kubectl views (real nodes)', function () {
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

  const report = async (job: ImageJob) => {
    const list = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${job.spec.imageList.name}`);
    return buildReport(list, {
      generation: job.spec.imageList.generation,
      job,
      pods: await workerPods(env.rest, job),
    });
  };

  it('a dry run and a real run name the image on both nodes, count it once, and warn of the absent target', async () => {
    const t = env.tag;
    const ref = `docker.io/library/legacy-${t}:0.9`;
    const [img] = await importToNodes(c, [0, 1], [{ refs: [ref], distinct: `legacy-${t}` }]);
    // Two targets name the same image; a third names nothing on any node.
    const images = [ref, `legacy-${t}:0.9`, `ngnix-${t}:1.25`];
    const dry = await env.wait(await env.erase({ images, dryRun: true }));
    assert.equal(dry.status?.phase, 'Completed', dry.status?.message);
    for (const node of [n1, n2]) assert.equal(results(dry)[node]?.removed, 1, `one image on ${node}`);
    assert.equal(dry.status?.removed, 2);
    const r = await report(dry);
    const groups = groupImages(r.results).map((g) => [g.name, g.outcome, g.nodes.length, g.id]);
    assert.deepEqual(groups, [
      [ref, 'would-remove', 2, img!.id],
      [`ngnix-${t}:1.25`, 'not-present', 2, ''],
    ]);
    assert.deepEqual(r.notPresent, [`ngnix-${t}:1.25`]);
    const table = renderEraseReport(r, { width: 80 });
    assert.match(table, new RegExp(`legacy-${t}:0\\.9\\s+would-remove\\s+2 nodes\\s+\\d`));
    assert.match(table, /would remove 2 image\(s\)/);
    assert.ok(renderEraseReport(r, { wide: true, width: 250 }).includes(img!.id), '-o wide: the full ID');

    // kubectl get: the dry run is marked, would-free apart from freed, in human units.
    const get = await kubectl(c, ['get', 'imagejob', dry.metadata.name]);
    assert.equal(get.code, 0, get.stderr);
    const [head, row] = get.stdout.trim().split('\n') as [string, string];
    // kubectl leaves an empty cell blank: cut the row at the header's offsets.
    const names = head.split(/\s{2,}/);
    const starts = names.map((h) => head.indexOf(h));
    const cells = Object.fromEntries(names.map((h, i) => [h, row.slice(starts[i], starts[i + 1]).trim()]));
    assert.equal(cells['DRY-RUN'], 'true', get.stdout);
    assert.match(cells['WOULD-FREE'] ?? '', /^\d+(\.\d)? (B|kB|MB|GB)$/, get.stdout);
    assert.ok(!('BYTES' in cells), 'raw bytes only with -o wide');
    // The per-node status: fields kubectl describe prints and -o jsonpath reads.
    const jp = await kubectl(c, [
      'get',
      'imagejob',
      dry.metadata.name,
      '-o',
      'jsonpath={.status.nodes[?(@.outcome=="Succeeded")].node}',
    ]);
    assert.deepEqual(jp.stdout.split(' ').sort(), [n1, n2].sort());
    const describe = await kubectl(c, ['describe', 'imagejob', dry.metadata.name]);
    assert.match(
      describe.stdout,
      /Nodes:\s*\n\s+Bytes:\s+\d+\n\s+Node:\s+\S+\n\s+Outcome:\s+Succeeded\n\s+Removed:\s+1/,
      describe.stdout,
    );
    assert.ok(!describe.stdout.includes('|Succeeded|'), 'no pipe-encoded lines');
    assert.ok((await nodeImageIds(c, 0)).has(img!.id), 'a dry run removes nothing');

    // The real run prints the same rows, removed, and counts the image once per node.
    const real = await env.wait(await env.erase({ images }));
    assert.equal(real.status?.phase, 'Completed', real.status?.message);
    assert.equal(real.status?.removed, 2);
    const rr = await report(real);
    assert.match(renderEraseReport(rr, { width: 80 }), new RegExp(`legacy-${t}:0\\.9\\s+removed\\s+2 nodes`));
    assert.deepEqual(rr.notPresent, [`ngnix-${t}:1.25`]);
    const realGet = await kubectl(c, [
      'get',
      'imagejob',
      real.metadata.name,
      '-o',
      'jsonpath={.spec.dryRun}/{.status.freed}/{.status.wouldFree}',
    ]);
    assert.match(realGet.stdout, /^(false)?\/\d+(\.\d)? (B|kB|MB|GB)\/$/, realGet.stdout);
    assert.ok(!(await nodeImageIds(c, 1)).has(img!.id), 'removed from node 2');
  });

  it('a worker that cannot mount the runtime socket fails its node after workerStartGrace, naming the socket and runtimeSocket', async () => {
    await env.config('', undefined, `/run/inv-no-such-${env.tag}.sock`);
    const started = Date.now();
    const job = await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`] }));
    const took = Date.now() - started;
    assert.equal(job.status?.phase, 'Failed');
    for (const node of [n1, n2]) {
      const reason = results(job)[node]?.reason ?? '';
      assert.match(
        reason,
        new RegExp(
          `^runtime-socket: cannot mount /run/inv-no-such-${env.tag}\\.sock \\(set runtimeSocket in ConfigMap inv-erase-config`,
        ),
        reason,
      );
    }
    assert.ok(took < 60_000, `took ${took} ms (the default jobTimeout is 30 minutes)`);
  });
});
