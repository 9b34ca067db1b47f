// Scoped prunes and keep-newest on real nodes (issue 54): `inv erase --all-unused --only P
// --except Q` as a user runs it (the binary, --standalone, a dry run, its table read), then a real
// run by the controllers that removes only the CI registry's images but the excepted one; a node
// holding app:1.0 … app:1.4, one of them in use, where keep-newest 2 keeps the two newest by
// version and removes the rest but the one in use; a repository whose tags are not versions,
// ranked by the creation time containerd reports; and bad input refused by the CLI, the CRD and
// the ImageList controller, each with its reason.
import assert from 'node:assert/strict';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { IMAGELISTS_PATH, type ImageList } from '../../src/core/erase/api/types.js';
import { KubeApiError } from '../../src/core/kube/rest.js';
import { kubectl, until, type WholeCluster } from '../support/nodes.js';
import { importToNodes, NodeEraseEnv, nodeImageIds } from './helpers.js';
import { reportFromLogs } from '../support/worker-logs.js';
import { useWholeCluster } from '../support/suite-hooks.js';
import { runCli } from '../cli/run-cli.js';

interface Row {
  imageId: string;
  outcome: string;
  reason: string;
}

describe('scoped prunes and keep-newest (real nodes)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let node: string;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    node = c.nodes[0]!.name;
    env = await new NodeEraseEnv(c).setup();
  });
  after(async () => {
    await env?.teardown();
  });

  let started = false;
  /** The controllers in this process, from the first test that needs them on. */
  const controllers = () => {
    if (!started) env.startControllers();
    started = true;
  };

  const onNode = () => `kubernetes.io/hostname=${node}`;

  /** The worker's full report on the node (its log: the termination summary may be shortened). */
  async function rows(job: string): Promise<Row[]> {
    const pod = (await env.workers(job)).get(node);
    assert.ok(pod, `a worker on ${node}`);
    const logs = await kubectl(c, ['-n', env.namespace, 'logs', pod.metadata.name]);
    assert.equal(logs.code, 0, logs.stderr);
    return reportFromLogs<{ results: Row[] }>(logs.stdout).results;
  }

  const cli = (args: string[]) =>
    runCli([
      'erase',
      '--kubeconfig',
      c.kubeconfig,
      '--workers-namespace',
      env.namespace,
      '--config-namespace',
      env.namespace,
      ...args,
    ]);

  it('--only and --except: a dry run through the CLI names what would go and why the rest is out of scope; the real run removes only those', async () => {
    const t = env.tag;
    // The CI registry's images carry this run's tag in their names; the pattern is the registry's.
    const ci = 'ci.example.com';
    const [build, test, keep, other] = await importToNodes(
      c,
      [0],
      [
        { refs: [`${ci}/team/build-${t}:7`], distinct: `build-${t}` },
        { refs: [`${ci}/team/test-${t}:7`], distinct: `test-${t}` },
        { refs: [`${ci}/keep-${t}:1`], distinct: `keep-${t}` },
        { refs: [`docker.io/library/other-${t}:1`], distinct: `other-${t}` },
      ],
    );
    // As a user runs it: the binary, its own controllers (--standalone), a dry run.
    const dry = cli([
      '--all-unused',
      '--dry-run',
      '--standalone',
      '--name',
      `scope-${t}`,
      '-l',
      onNode(),
      '--only',
      `${ci}/**`,
      '--except',
      `${ci}/keep-${t}:*`,
    ]);
    env.lists.push(`scope-${t}`);
    assert.equal(dry.status, 0, dry.stderr + dry.stdout);
    assert.match(dry.stdout, new RegExp(`${ci}/team/build-${t}:7\\s+would-remove`), dry.stdout);
    assert.match(dry.stdout, new RegExp(`${ci}/team/test-${t}:7\\s+would-remove`), dry.stdout);
    assert.match(dry.stdout, /would remove 2 image\(s\)/, dry.stdout);
    const list = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/scope-${t}`);
    assert.deepEqual(list.spec.scope, { only: [`${ci}/**`], except: [`${ci}/keep-${t}:*`] });
    const ids = await nodeImageIds(c, 0);
    for (const x of [build!, test!, keep!, other!]) assert.ok(ids.has(x.id), 'a dry run removes nothing');

    // The real run, by the controllers: the CI images go but the excepted one.
    controllers();
    const job = await env.wait(
      await env.erase({
        images: [PRUNE_ALL],
        nodeSelector: onNode(),
        scope: { only: [`${ci}/**`], except: [`${ci}/keep-${t}:*`] },
      }),
      180_000,
    );
    assert.equal(job.status?.phase, 'Completed', JSON.stringify(job.status));
    const after = await nodeImageIds(c, 0);
    assert.ok(!after.has(build!.id) && !after.has(test!.id), 'the CI images went');
    assert.ok(after.has(keep!.id), 'the excepted one stayed');
    assert.ok(after.has(other!.id), 'an image out of scope stayed');
    const rs = await rows(job.metadata.name);
    const row = (id: string) => rs.find((r) => r.imageId === id);
    assert.equal(row(build!.id)?.outcome, 'removed');
    assert.deepEqual(row(keep!.id), {
      ...row(keep!.id),
      outcome: 'out-of-scope',
      reason: `matches except pattern ${ci}/keep-${t}:*`,
    });
    assert.deepEqual(row(other!.id), {
      ...row(other!.id),
      outcome: 'out-of-scope',
      reason: `matches no only pattern (${ci}/**)`,
    });
    // Every image of the node not removed is out of scope, each with its reason.
    for (const r of rs.filter((x) => x.imageId && x.outcome !== 'removed'))
      assert.ok(r.outcome === 'out-of-scope' && r.reason, JSON.stringify(r));
  });

  it('keep-newest 2 keeps app:1.3 and 1.4 by version, removes 1.1 and 1.2 and keeps 1.0 in use; by creation time where tags are not versions', async () => {
    const t = env.tag;
    const app = `docker.io/library/app-${t}`;
    const web = `docker.io/library/web-${t}`;
    const apps = await importToNodes(
      c,
      [0],
      ['1.0', '1.1', '1.2', '1.3', '1.4'].map((v) => ({ refs: [`${app}:${v}`], distinct: `app-${v}-${t}` })),
    );
    // `latest` is no version: the repository is ranked by the creation time the runtime gives.
    const webs = await importToNodes(
      c,
      [0],
      [
        { refs: [`${web}:old`], distinct: `web-old-${t}`, created: '2026-01-01T00:00:00Z' },
        { refs: [`${web}:latest`], distinct: `web-latest-${t}`, created: '2026-03-01T00:00:00Z' },
        { refs: [`${web}:stable`], distinct: `web-stable-${t}`, created: '2026-02-01T00:00:00Z' },
      ],
    );
    await env.runPod(node, `${app}:1.0`);
    controllers();
    const only = [`${app}:*`, `${web}:*`];
    const dry = await env.wait(
      await env.erase({
        images: [PRUNE_ALL],
        nodeSelector: onNode(),
        dryRun: true,
        keepNewest: 2,
        scope: { only },
      }),
      180_000,
    );
    assert.equal(dry.status?.phase, 'Completed', JSON.stringify(dry.status));
    const rs = await rows(dry.metadata.name);
    const row = (id: string) => rs.find((r) => r.imageId === id)!;
    assert.deepEqual(
      apps.map((a) => row(a.id).outcome),
      ['in-use', 'would-remove', 'would-remove', 'kept-newest', 'kept-newest'],
    );
    assert.equal(row(apps[4]!.id).reason, `newest 1 of 5 in ${app} (by version)`);
    assert.equal(row(apps[3]!.id).reason, `newest 2 of 5 in ${app} (by version)`);
    // containerd gives each image's creation time (ImageStatus verbose: imageSpec.created).
    assert.deepEqual(
      webs.map((w) => [row(w.id).outcome, row(w.id).reason]),
      [
        ['would-remove', ''],
        ['kept-newest', `newest 1 of 3 in ${web} (by created)`],
        ['kept-newest', `newest 2 of 3 in ${web} (by created)`],
      ],
    );
    const real = await env.wait(
      await env.erase({ images: [PRUNE_ALL], nodeSelector: onNode(), keepNewest: 2, scope: { only } }),
      180_000,
    );
    assert.equal(real.status?.phase, 'Completed', JSON.stringify(real.status));
    const ids = await nodeImageIds(c, 0);
    assert.deepEqual(
      [...apps, ...webs].map((x) => ids.has(x.id)),
      [true, false, false, true, true, false, true, true],
    );
  });

  it('refuses bad input with the reason: the CLI before writing, the CRD, and the ImageList controller', async () => {
    const base = ['--all-unused', '--dry-run', '--standalone', '-l', onNode()];
    const bad: [string[], RegExp][] = [
      [['--only', ''], /--only "": an empty pattern matches no image/],
      [['--only', '*'], /--only "\*": a pattern of only \* matches every image/],
      [['--except', '**'], /puts every image out of scope/],
      [
        ['--only', 'ci.example.com/Team*'],
        /--only "ci.example.com\/Team\*": no image reference can match it/,
      ],
      [['--keep-newest', '0'], /--keep-newest must be at least 1/],
      [['--keep-newest', '-2'], /--keep-newest must be at least 1/],
      [['--keep-newest', '1000000'], /--keep-newest must be at most 1000/],
      [['--keep-newest', '2.5'], /--keep-newest must be a whole number/],
    ];
    for (const [args, want] of bad) {
      const r = cli([...base, ...args]);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, want, args.join(' '));
    }
    const named = cli(['--images', 'nginx:1', '--dry-run', '--only', 'a/*']);
    assert.equal(named.status, 2);
    assert.match(
      named.stderr,
      /--only, --except and --keep-newest go with --all-unused or --vulnerable alone/,
    );

    // The CRD refuses what it can say in its schema.
    const post = (name: string, spec: Record<string, unknown>) =>
      env.rest.request('POST', IMAGELISTS_PATH, {
        body: {
          apiVersion: 'erase.imageinventory.dev/v1alpha1',
          kind: 'ImageList',
          metadata: { name },
          spec,
        },
      });
    await assert.rejects(
      post(`kn0-${env.tag}`, { images: ['*'], keepNewest: 0 }),
      (e: unknown) => e instanceof KubeApiError && e.code === 422 && /keepNewest/.test(e.message),
    );
    await assert.rejects(
      post(`named-${env.tag}`, { images: ['nginx:1'], scope: { only: ['a/*'] } }),
      (e: unknown) => e instanceof KubeApiError && /narrow a "\*" prune only/.test(e.message),
    );
    controllers();
    // The grammar is the controller's to check: the list takes phase Error with the reason.
    const name = `badscope-${env.tag}`;
    env.lists.push(name);
    await post(name, { images: ['*'], dryRun: true, scope: { only: ['ci.example.com/Team*'] } }).catch(
      (e: unknown) => assert.fail(String(e)),
    );
    const list = await until(
      'the ImageList refused',
      async () => {
        const l = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
        return l.status?.phase === 'Error' ? l : undefined;
      },
      60_000,
      200,
    );
    assert.match(
      list.status?.message ?? '',
      /spec\.scope\.only "ci.example.com\/Team\*": no image reference can match it/,
    );
  });
});
