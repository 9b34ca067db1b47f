// The bound on running jobs (maxConcurrentJobs) on the real API server: with a bound of 2 and
// four lists, two jobs run and two wait, oldest first, each saying why (message, condition
// reason Queued, an Event); when the running ones finish, the queued ones run and finish too.
import assert from 'node:assert/strict';
import { waitFor } from '../support/cri.js';
import { EraseEnv, eraseEnvPerTest } from './helpers.js';
import { IMAGEJOBS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';
import { EVENT_NAMESPACE } from '../../src/core/erase/cluster/events.js';

describe('erase: the bound on running jobs (maxConcurrentJobs)', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  eraseEnvPerTest((e) => (env = e));

  it('runs two of four jobs at a bound of 2; the others wait in creation order, saying why, then run', async () => {
    await env.nodes([{ name: 'a' }]);
    await env.config('maxConcurrentJobs: 2\n');
    env.startControllers();
    // Worker Pods stay Pending (a slow node) until the test lets them run.
    env.startKubelet().active = false;
    const lists = ['q1', 'q2', 'q3', 'q4'].map((q) => `${q}-${env.tag}`);
    for (const name of lists) await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] });
    const mine = async () =>
      (await env.rest.list<ImageJob>(IMAGEJOBS_PATH)).items
        .filter((j) => j.spec.namespace === env.namespace)
        .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    let jobs: ImageJob[] = [];
    await waitFor(
      'two jobs planned and two queued',
      async () => {
        jobs = await mine();
        // A queued job's message is rewritten every few seconds: wait for the one that says
        // where things stand now (it can still say what it saw before the second job started,
        // or before the third job was created: under load the lists' jobs can appear out of order).
        const last = jobs.find((j) => j.spec.imageList.name === lists[3]);
        return (
          jobs.length === 4 &&
          jobs.filter((j) => j.status?.planned).length === 2 &&
          jobs.filter((j) => j.status?.message?.startsWith('queued: ')).length === 2 &&
          /^queued: 2 job\(s\) running .* and 1 queued before this one/.test(last?.status?.message ?? '')
        );
      },
      30_000,
    );
    const byList = (l: string) => jobs.find((j) => j.spec.imageList.name === l)!;
    assert.deepEqual(
      lists.map((l) => Boolean(byList(l).status?.planned)),
      [true, true, false, false],
      'the oldest two run',
    );
    const last = byList(lists[3]!).status!;
    assert.match(
      last.message!,
      /^queued: 2 job\(s\) running \(.+\) and 1 queued before this one, at the cluster's bound of 2 \(maxConcurrentJobs\)$/,
    );
    assert.equal(last.phase, 'Queued', 'not running');
    const cond = last.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(cond?.reason, 'Queued');
    // Events are written after the status, by the controller's event recorder: wait for it.
    await waitFor(
      'a Queued Event for the third job',
      async () => {
        const events = await env.rest.list<{ reason: string; involvedObject: { name: string } }>(
          `/api/v1/namespaces/${EVENT_NAMESPACE}/events`,
          { query: { fieldSelector: `involvedObject.name=${byList(lists[2]!).metadata.name}` } },
        );
        return events.items.some((e) => e.reason === 'Queued');
      },
      20_000,
    );
    // Never more than two sets of workers at once (a job is planned before its Pod exists:
    // wait for both Pods, then check there is no third).
    await waitFor(
      'the two running jobs have their Pods',
      async () => (await env.objects('pods')).length >= 2,
      20_000,
    );
    assert.equal((await env.objects('pods')).length, 2);

    env.kubelet!.active = true;
    await waitFor(
      'all four completed',
      async () => {
        jobs = await mine();
        return jobs.length === 4 && jobs.every((j) => j.status?.phase === 'Completed');
      },
      60_000,
    );
  });
});
