// A schedule that does not drift, end to end on the whole cluster: `inv erase --schedule
// '* * * * *'` writes the list, `inv watch --erase-controllers` (a child process holding the
// Lease) runs it, and the daemon is SIGKILLed and restarted between ticks, once with no daemon
// at all when a tick comes. Each of three consecutive ticks must run exactly once, with real
// worker Pods on the real nodes, and lastScheduleTime must name the ticks. Takes three to four minutes of wall time: a tick is a
// minute. The target is an image no node has, so nothing other suites need is removed.
import assert from 'node:assert/strict';
import { runCli } from '../cli/run-cli.js';
import {
  IMAGEJOBS_PATH,
  IMAGELIST_LABEL,
  IMAGELISTS_PATH,
  JOB_LABEL,
  SCHEDULE_TIME_ANNOTATION,
  type ImageJob,
  type ImageList,
} from '../../src/core/erase/api/types.js';
import { killDaemon, leaderFlags, spawnDaemon, type ChildDaemon } from '../watch/helpers.js';
import { kubectl, until, type WholeCluster } from '../support/nodes.js';
import { NodeEraseEnv } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

describe('erase: a schedule of every minute under inv watch, SIGKILLed between ticks (real nodes)', function () {
  this.timeout(480_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let daemon: ChildDaemon | undefined;
  let name = '';
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    env = await new NodeEraseEnv(c).setup();
    name = `every-minute-${env.tag}`;
    env.lists.push(name);
  });
  after(async function () {
    this.timeout(180_000);
    if (!env) return;
    // Stop the schedule first, then delete the list while a daemon still runs, so the cleanup
    // finalizer removes the workers of its jobs; without a daemon, take the finalizer off.
    const list = await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`).catch(() => undefined);
    if (list)
      await env.rest
        .request('PUT', `${IMAGELISTS_PATH}/${name}`, {
          body: { ...list, spec: { ...list.spec, suspend: true } },
        })
        .catch(() => undefined);
    if (!daemon || daemon.proc.exitCode !== null) daemon = start();
    await env.rest.request('DELETE', `${IMAGELISTS_PATH}/${name}`).catch(() => undefined);
    await until('the jobs cleaned up', async () => (await env.jobs()).length === 0, 90_000, 500).catch(
      () => undefined,
    );
    await killDaemon(daemon);
    for (const j of await env.jobs())
      await env.rest
        .request('PATCH', `${IMAGEJOBS_PATH}/${j.metadata.name}`, {
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers: null } },
        })
        .catch(() => undefined);
    await env.teardown();
  });

  const start = () =>
    spawnDaemon([
      '--kubeconfig',
      c.kubeconfig,
      '--namespaces',
      env.namespace,
      '--erase-controllers',
      '--erase-namespace',
      env.namespace,
      '--erase-config-namespace',
      env.namespace,
      ...leaderFlags(env.namespace, `schedule-${env.tag}`),
    ]);
  const list = () => env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
  const jobs = async () =>
    (
      await env.rest.list<ImageJob>(IMAGEJOBS_PATH, {
        query: { labelSelector: `${IMAGELIST_LABEL}=${name}` },
      })
    ).items;
  /** Waits until the list records `tick` as its last run; returns when it saw it. */
  const ranAt = async (tick: string) =>
    until(
      `lastScheduleTime ${tick}`,
      async () => ((await list()).status?.lastScheduleTime === tick ? new Date() : undefined),
      Date.parse(tick) - Date.now() + 60_000,
      200,
    );

  it('runs exactly once per tick over 3 ticks; lastScheduleTime matches the ticks', async () => {
    const cli = runCli([
      'erase',
      '--kubeconfig',
      c.kubeconfig,
      '--workers-namespace',
      env.namespace,
      '--config-namespace',
      env.namespace,
      '--name',
      name,
      '--images',
      `docker.io/library/nothing-${env.tag}:1`,
      '--schedule',
      '* * * * *',
    ]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /Not waiting for a run/);

    daemon = start();
    const first = await until(
      'nextScheduleTime',
      async () => (await list()).status?.nextScheduleTime,
      30_000,
      200,
    );
    const ticks = [0, 1, 2].map((i) =>
      new Date(Date.parse(first) + i * 60_000).toISOString().replace('.000Z', 'Z'),
    );
    const seen: Date[] = [];
    for (const [i, tick] of ticks.entries()) {
      seen.push(await ranAt(tick));
      // The job of this tick exists. The first time the daemon is killed right away, while the
      // workers start, and a fresh one (a new process, a new leadership term) starts at once;
      // the second time the cluster has no daemon when the last tick comes, and a new one starts
      // 5 s after it: that tick still runs once, and is recorded as its tick, not the late start.
      if (i === 0) {
        await killDaemon(daemon, 'SIGKILL');
        daemon = start();
      } else if (i === 1) {
        // This time the daemon dies only once the job has finished: a job the API still shows
        // as running when the tick comes would make the tick a skip (JobRunning), by design.
        await until(
          'the second job Completed',
          async () => (await list()).status?.phase === 'Completed',
          50_000,
          200,
        );
        await killDaemon(daemon, 'SIGKILL');
        const late = Date.parse(ticks[2]!) + 5000;
        await until('5 s past the last tick, no daemon running', async () => Date.now() >= late, 70_000, 100);
        daemon = start();
      }
    }
    // Every job finishes (each worker ran on its real node).
    const done = await until(
      'the three jobs finished',
      async () => {
        const js = await jobs();
        return js.length >= 3 && js.every((j) => j.status?.phase === 'Completed') ? js : undefined;
      },
      120_000,
      500,
    );
    // Exactly one job per tick, and no other.
    const byTick = done.map((j) => j.metadata.annotations?.[SCHEDULE_TIME_ANNOTATION]).sort();
    assert.deepEqual(byTick, ticks);
    for (const j of done) {
      const tick = Date.parse(j.metadata.annotations![SCHEDULE_TIME_ANNOTATION]!);
      const created = Date.parse(j.metadata.creationTimestamp!);
      assert.ok(
        created >= tick - 1000 && created < tick + 30_000,
        `${j.metadata.name} created ${created - tick} ms after its tick`,
      );
      // One worker Pod per selected node, never a second one.
      const pods = await env.rest.list<{ spec: { nodeName?: string } }>(
        `/api/v1/namespaces/${env.namespace}/pods`,
        { query: { labelSelector: `${JOB_LABEL}=${j.metadata.name}` } },
      );
      const nodes = pods.items.map((p) => p.spec.nodeName).sort();
      assert.equal(nodes.length, j.status?.desired, `${j.metadata.name}: ${JSON.stringify(nodes)}`);
      assert.equal(new Set(nodes).size, nodes.length);
      assert.equal(j.status?.succeeded, j.status?.desired);
    }
    assert.ok(done[0]!.status!.desired! >= 1, 'the workers ran on real nodes');
    const l = await list();
    assert.equal(l.status?.lastScheduleTime, ticks[2]);
    assert.equal(l.status?.lastSkipped, undefined, JSON.stringify(l.status?.lastSkipped));
    assert.ok(
      l.status?.nextScheduleTime && Date.parse(l.status.nextScheduleTime) >= Date.parse(ticks[2]!) + 60_000,
    );
    process.stderr.write(
      `      (ticks ${ticks.join(', ')}; recorded ${seen.map((d, i) => d.getTime() - Date.parse(ticks[i]!)).join(', ')} ms after each)\n`,
    );

    // kubectl get shows the schedule, the last run (an age), the next run and the last result.
    await until(
      'the last job recorded as Completed',
      async () => (await list()).status?.phase === 'Completed',
      30_000,
      200,
    );
    const t = await kubectl(c, ['get', 'imagelist', name]);
    assert.equal(t.code, 0, t.stderr);
    const [header, row] = t.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    const cell = (col: string) => row![header!.indexOf(col)];
    assert.equal(cell('SCHEDULE'), '* * * * *');
    assert.match(cell('LAST RUN') ?? '', /^\d+(s|m)(\d+s)?$/);
    assert.match(cell('NEXT RUN') ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    assert.equal(cell('LAST RESULT'), 'Completed');
  });
});
