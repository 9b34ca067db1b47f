// `inv erase`, `inv erase status` and `inv erase cancel` as real subprocesses against the real
// API server (issue 18): a job run by a controller other than the CLI (the test's, holding a
// Lease the CLI checks) is followed with progress; a dry run lists every node's targets, images
// and outcomes, and its JSON is a valid EraseReport (docs/schemas/EraseReport.json, checked with
// ajv); status renders any job; cancel stops a running one and touches nothing it does not own.
// The preflight's refusals and the flags' rules: cli-preflight.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import {
  IMAGEJOBS_PATH,
  IMAGELISTS_PATH,
  type ImageJob,
  type ImageList,
} from '../../../src/core/erase/api/types.js';
import { addImages } from '../../support/oci.js';
import { kubeconfigPath } from '../../support/kube.js';
import { repoRoot } from '../../support/paths.js';
import { envFlags, inv } from './cli-helpers.js';
import { EraseEnv, eraseEnvPerTest, sleep, holdLease } from '../helpers.js';
import { until } from '../../watch/helpers.js';

const schema = JSON.parse(
  fs.readFileSync(path.join(repoRoot, 'docs/schemas/EraseReport.json'), 'utf8'),
) as object;
const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
const validateReport = ajv.compile(schema);
function assertReport(json: unknown): void {
  assert.ok(validateReport(json), JSON.stringify(validateReport.errors, null, 2));
}

describe('inv erase lifecycle (CLI, real API server)', function () {
  this.timeout(150_000);
  let env: EraseEnv;
  let release: (() => Promise<void>) | undefined;
  eraseEnvPerTest((e) => (env = e), {
    beforeTeardown: async () => {
      await release?.();
      release = undefined;
    },
  });

  it('follows a job the daemon runs (Lease held): progress on stderr; dry run lists node, target, image, outcome; -o json is a valid EraseReport', async () => {
    const t = env.tag;
    const [img] = await addImages([{ refs: [`docker.io/library/erase-cli-${t}:1`], distinct: `cli-${t}` }]);
    const nodes = await env.nodes([{ name: 'a' }, { name: 'b' }, { name: 'c', cordoned: true }]);
    release = await holdLease(env, 'ctl');
    env.startControllers();
    env.startKubelet();
    // The inventory knows the image; the second target is a typo of it, on no node.
    await env.rest.request('POST', `/apis/imageinventory.dev/v1alpha1/namespaces/${env.namespace}/images`, {
      body: {
        apiVersion: 'imageinventory.dev/v1alpha1',
        kind: 'Image',
        metadata: { name: `erase-cli-${t}` },
        spec: { image: `docker.io/library/erase-cli-${t}:1` },
      },
    });
    const args = [
      'erase',
      '--images',
      `erase-cli-${t}:1,erase-clj-${t}:1`,
      '--dry-run',
      '--node-selector',
      `erase-test=${t}`,
      '--name',
      `dry-${t}`,
      ...envFlags(env),
      '--controller-lease',
      `${env.namespace}/ctl`,
    ];
    const r = await inv([...args, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assertReport(out);
    assert.equal(out.kind, 'EraseReport');
    assert.equal(out.phase, 'Completed');
    assert.equal(out.dryRun, true);
    assert.equal(out.removed, 0, 'nothing removed in a dry run');
    assert.equal(out.wouldRemove, 2);
    assert.deepEqual(out.nodes, { desired: 3, running: 0, pending: 0, succeeded: 2, failed: 0, skipped: 1 });
    const byNode = Object.fromEntries(out.results.map((n: { node: string }) => [n.node, n]));
    for (const n of nodes.slice(0, 2))
      assert.deepEqual(byNode[n].images, [
        {
          target: `erase-cli-${t}:1`,
          image: img!.id,
          names: [`docker.io/library/erase-cli-${t}:1`],
          size: byNode[n].images[0].size,
          outcome: 'would-remove',
        },
        { target: `erase-clj-${t}:1`, image: '', names: [], size: 0, outcome: 'not-present' },
      ]);
    assert.ok(byNode[nodes[0]!].images[0].size > 0);
    // What it did not do: the typo warned of before the job (did you mean), and absent everywhere.
    assert.deepEqual(out.notPresent, [`erase-clj-${t}:1`]);
    assert.match(
      r.stderr,
      new RegExp(
        `warning: erase-clj-${t}:1 is referenced by no workload and was not found in the inventory; did you mean erase-cli-${t}:1\\?`,
      ),
    );
    assert.match(r.stderr, new RegExp(`warning: erase-clj-${t}:1: not present on any node`));
    assert.equal(byNode[nodes[2]!].outcome, 'Skipped');
    assert.equal(byNode[nodes[2]!].reason, 'cordoned');
    assert.equal(byNode[nodes[2]!].images, null);
    // Without a terminal: progress lines on stderr, with the counts and the elapsed time.
    assert.match(
      r.stderr,
      /: (waiting for the controller|not started|choosing nodes|\d+ running, \d+ pending, \d+\/3 finished)/,
    );

    // The table, piped (never truncated): node rows, then one row per image and outcome, by
    // name, over both nodes.
    const tbl = await inv(args);
    assert.equal(tbl.code, 0, tbl.stderr);
    const lines = tbl.stdout.split('\n');
    assert.match(lines[0]!, /^NODE\s+OUTCOME\s+WOULD REMOVE\s+KEPT\s+FAILED\s+WOULD FREE\s+REASON$/);
    assert.ok(lines.some((l) => new RegExp(`^${nodes[2]}\\s+Skipped\\s.*cordoned$`).test(l)));
    assert.ok(
      lines.some((l) => /^IMAGE\s+OUTCOME\s+NODES\s+SIZE\s+DETAIL$/.test(l)),
      tbl.stdout,
    );
    assert.ok(
      lines.some((l) =>
        new RegExp(
          `^docker\\.io/library/erase-cli-${t}:1\\s+would-remove\\s+2 nodes\\s+\\d+(\\.\\d)? [kMG]?B$`,
        ).test(l),
      ),
      tbl.stdout,
    );
    assert.ok(
      lines.some((l) => new RegExp(`^erase-clj-${t}:1\\s+not-present\\s+2 nodes\\s+-$`).test(l)),
      tbl.stdout,
    );
    assert.match(tbl.stdout, /\(dry run\), 3 node\(s\): 2 succeeded, 0 failed, 1 skipped/);
    assert.match(tbl.stdout, /^would remove 2 image\(s\), would free /m);
    // --no-headers: rows only; -o name: the job.
    const bare = await inv([...args, '--no-headers']);
    assert.doesNotMatch(bare.stdout, /NODE|would remove/);
    assert.ok(bare.stdout.trim().split('\n').length >= 5, bare.stdout);
    const name = await inv([...args, '-o', 'name']);
    assert.match(name.stdout, /^imagejob\/dry-[0-9a-f]+-\d+-[0-9a-z]{5}\n$/);

    // inv erase status renders the same job at any time, and its JSON validates too.
    const job = name.stdout.trim().split('/')[1]!;
    const st = await inv(['erase', 'status', job, '--kubeconfig', kubeconfigPath()]);
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, new RegExp(`^Job:\\s+${job}$`, 'm'));
    assert.match(st.stdout, /^Request:\s+dry run: erase-cli-/m);
    assert.match(st.stdout, /^Finished:\s+\S+ \(took \d+/m);
    // The job's Events, as kubectl describe lists them (<none> when the controller wrote none).
    assert.match(st.stdout, /^Events:(\s+<none>|\nLAST SEEN\s+TYPE\s+REASON\s+MESSAGE)$/m);
    const stj = await inv([
      'erase',
      'status',
      '--name',
      `dry-${t}`,
      '--kubeconfig',
      kubeconfigPath(),
      '-o',
      'json',
    ]);
    assert.equal(stj.code, 0, stj.stderr);
    assertReport(JSON.parse(stj.stdout));
    assert.equal(JSON.parse(stj.stdout).job, job);
  });

  it('--no-wait returns once written; status --follow re-attaches; cancel stops a running job and deletes only its own Pods', async () => {
    const t = env.tag;
    await env.nodes([{ name: 'a' }, { name: 'b' }]);
    release = await holdLease(env, 'ctl');
    env.startControllers();
    env.startKubelet(() => 'hang');
    const submitted = await inv([
      'erase',
      '--images',
      'busybox:1',
      '--node-selector',
      `erase-test=${t}`,
      '--name',
      `hang-${t}`,
      '--no-wait',
      ...envFlags(env),
      '--controller-lease',
      `${env.namespace}/ctl`,
      '-o',
      'json',
    ]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const sub = JSON.parse(submitted.stdout);
    assertReport(sub);
    // Written, not finished: the controllers may already have made the job by the time the
    // command reads it back (they run in this process, and a loaded machine reorders them).
    // Queued: it made the job, and the job waits behind one that has not finished yet.
    assert.ok(['Submitted', 'Queued', 'Running'].includes(sub.phase), sub.phase);
    // Wait until both workers run.
    let job: ImageJob | undefined;
    for (let i = 0; i < 600; i++) {
      const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH, {
        query: { labelSelector: `erase.imageinventory.dev/imagelist=hang-${t}` },
      });
      job = jobs.items[0];
      if (job && (await env.objects('pods')).length === 2) break;
      await sleep(100);
    }
    assert.ok(job);
    assert.equal((await env.objects('pods')).length, 2, 'both workers created within 60 s');
    const name = job.metadata.name;
    // status --follow gives up after its --timeout with the running counts (exit 1).
    const f = await inv([
      'erase',
      'status',
      name,
      '--follow',
      '--timeout',
      '3s',
      '--kubeconfig',
      kubeconfigPath(),
      '-o',
      'json',
    ]);
    assert.equal(f.code, 1, f.stderr);
    assert.match(f.stderr, /gave up waiting after 3s \(--timeout\); the job keeps running/);
    assert.equal(JSON.parse(f.stdout).phase, 'Running');
    // A Pod with the job's label that the job does not own is not ours to delete.
    await env.rest.request('POST', `/api/v1/namespaces/${env.namespace}/pods`, {
      body: {
        metadata: { name: `stranger-${t}`, labels: { 'erase.imageinventory.dev/job': name } },
        spec: { nodeName: 'nowhere', containers: [{ name: 'c', image: 'busybox' }] },
      },
    });
    const c = await inv(['erase', 'cancel', name, '--kubeconfig', kubeconfigPath(), '-o', 'json']);
    assert.equal(c.code, 0, c.stderr);
    const res = JSON.parse(c.stdout);
    assert.equal(res.cancelled, true);
    assert.equal(res.podsDeleted.length, 2);
    assert.deepEqual(res.podsLeft, [`stranger-${t}`]);
    assert.equal(res.cleanedUp, true);
    assert.match(c.stderr, /stranger-.* does not own it: left alone/);
    assert.equal(await env.job(name), undefined);
    // The list says Cancelled, by whom and when (a SelfSubjectReview), not a bare Failed.
    let list: ImageList | undefined;
    await until('the list Cancelled', async () => {
      list = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/hang-${t}`);
      return list.status?.phase === 'Cancelled';
    });
    assert.match(
      list!.status!.message!,
      new RegExp(`^job ${name} cancelled by \\S+ at \\d{4}-\\d\\d-\\d\\dT`),
    );
    const st = await inv([
      'erase',
      'status',
      '--name',
      `hang-${t}`,
      '--kubeconfig',
      kubeconfigPath(),
      '-o',
      'json',
    ]);
    assert.equal(JSON.parse(st.stdout).phase, 'Cancelled', st.stdout + st.stderr);
    await env.rest.get(`/api/v1/namespaces/${env.namespace}/pods/stranger-${t}`);
    // Cancelling something that is not inv's job is refused.
    await env.rest.request('POST', IMAGEJOBS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageJob',
        metadata: { name: `foreign-${t}` },
        spec: {
          imageList: { name: 'x', uid: 'x', generation: 1 },
          namespace: env.namespace,
          images: ['busybox'],
          config: {},
        },
      },
    });
    const refused = await inv(['erase', 'cancel', `foreign-${t}`, '--kubeconfig', kubeconfigPath()]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /was not created by inv's erase controllers .*: not touching it/);
    assert.notEqual(await env.job(`foreign-${t}`), undefined);
  });

  it('cancel --standalone: with no controller running, it stops the job and finishes the cleanup itself', async () => {
    const t = env.tag;
    await env.nodes([{ name: 'a' }, { name: 'b' }]);
    env.startControllers();
    env.startKubelet(() => 'hang');
    await env.erase({ name: `orphan-${t}`, images: ['busybox:1'] });
    let name = '';
    await until(
      'the job and its two worker Pods',
      async () => {
        const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH, {
          query: { labelSelector: `erase.imageinventory.dev/imagelist=orphan-${t}` },
        });
        name = jobs.items[0]?.metadata.name ?? '';
        return name !== '' && (await env.objects('pods')).length === 2;
      },
      30_000,
    );
    // The controllers go away with the job running: nobody would finish its cleanup.
    await env.stopControllers();
    assert.ok((await env.objects('configmaps')).length > 0, 'the job has its ConfigMaps');
    const c = await inv(['erase', 'cancel', name, '--standalone', ...envFlags(env), '-o', 'json']);
    assert.equal(c.code, 0, c.stderr);
    const res = JSON.parse(c.stdout);
    assert.equal(res.cancelled, true);
    assert.equal(res.podsDeleted.length, 2);
    assert.equal(res.cleanedUp, true, c.stderr);
    assert.equal(await env.job(name), undefined);
    assert.deepEqual(await env.objects('pods'), []);
    assert.deepEqual(await env.objects('configmaps'), []);
    assert.deepEqual(await env.objects('podtemplates'), []);
  });
});
