// Rollout waves (spec.rollout) on the kubelet harness: at most maxParallel workers at once, whole
// waves with a pause, the failure budget, and a controller process SIGKILLed and restarted
// mid-rollout that resumes the same job, runs no node twice and passes none over.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { kubeconfigPath } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import { EraseEnv, eraseEnvPerTest, results, sleep } from './helpers.js';
import { requestState } from '../../src/core/erase-request/request.js';
import { IMAGEJOBS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';
import { decodeInventory } from '../../src/core/apply-inventory/item-lines.js';

interface PodView {
  metadata: { name: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    containerStatuses?: { state?: { terminated?: { finishedAt?: string } } }[];
  };
}

describe('erase: rollout waves', function () {
  this.timeout(180_000);
  let env: EraseEnv;
  let proc: ChildProcess | undefined;
  let sampling = false;
  eraseEnvPerTest((e) => (env = e), {
    beforeTeardown: async () => {
      sampling = false;
      proc?.kill('SIGKILL');
    },
  });

  const pods = async () =>
    (
      await env.rest.list<PodView>(`/api/v1/namespaces/${env.namespace}/pods`, {
        query: { labelSelector: 'erase.imageinventory.dev/job' },
      })
    ).items;
  const unfinished = (ps: PodView[]) =>
    ps.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length;
  /** Samples the unfinished worker Pods until stopped; resolves to the most seen at once. */
  const sampleMax = () => {
    sampling = true;
    return (async () => {
      let max = 0;
      while (sampling) {
        max = Math.max(max, unfinished(await pods()));
        await sleep(50);
      }
      return max;
    })();
  };
  const podItems = (job: ImageJob | undefined) =>
    decodeInventory(job?.status?.inventory).filter((i) => i.kind === 'Pod');

  it('maxParallel 2: two workers at a time, the others wait; every node runs once', async () => {
    const nodes = await env.nodes(Array.from({ length: 5 }, (_, i) => ({ name: `w${i}` })));
    const kubelet = env.startKubelet();
    kubelet.active = false; // workers stay Pending: the controller must hold the other three
    env.startControllers();
    const name = `waves-${env.tag}`;
    const gen = await env.erase({
      name,
      images: [`docker.io/library/nothing-${env.tag}:1`],
      rollout: { maxParallel: 2 },
    });
    let job: ImageJob | undefined;
    for (;;) {
      const st = await requestState(env.rest, name, gen);
      job = st.list.status?.lastJob ? await env.job(st.list.status.lastJob) : undefined;
      if (podItems(job).filter((i) => i.phase !== 'Creating').length >= 2) break;
      await sleep(50);
    }
    // The pass that created two recorded the other three as waiting.
    assert.deepEqual(
      podItems(job)
        .map((i) => i.phase)
        .sort(),
      ['Creating', 'Creating', 'Creating', 'Ready', 'Ready'],
    );
    assert.equal((await pods()).length, 2);
    const max = sampleMax();
    kubelet.active = true;
    const done = await env.wait(name, gen);
    sampling = false;
    assert.equal(done.status?.phase, 'Completed', done.status?.message);
    assert.ok((await max) <= 2, `at most 2 unfinished workers at once, saw ${await max}`);
    assert.deepEqual(done.status?.rollout?.maxParallel, 2);
    assert.ok((done.status?.rollout?.wave ?? 0) >= 3, JSON.stringify(done.status?.rollout));
    assert.deepEqual(
      Object.values(results(done)).map((r) => r.outcome),
      nodes.map(() => 'Succeeded'),
    );
    assert.deepEqual(kubelet.runs.map((r) => r.node).sort(), [...nodes].sort());
  });

  it('50% with a pause: whole waves, the second one created after the pause; the failure budget stops the rest', async () => {
    const nodes = await env.nodes(Array.from({ length: 4 }, (_, i) => ({ name: `p${i}` })));
    env.startKubelet();
    env.startControllers();
    const paused = `pause-${env.tag}`;
    const pausedGen = await env.erase({
      name: paused,
      images: [`nothing-${env.tag}:1`],
      rollout: { maxParallel: '50%', pause: '2s' },
    });
    const job = await env.wait(paused, pausedGen);
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    assert.deepEqual(job.status?.rollout, { maxParallel: 2, wave: 2 });
    const ps = (await pods()).map((p) => ({
      created: Date.parse(p.metadata.creationTimestamp ?? ''),
      finished: Date.parse(p.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt ?? ''),
    }));
    ps.sort((a, b) => a.created - b.created);
    assert.equal(ps.length, 4);
    // 1 s resolution: the pause of 2 s shows as at least 1 s between the first wave's last finish
    // and the second wave's creation.
    const firstDone = Math.max(ps[0]!.finished, ps[1]!.finished);
    assert.ok(ps[2]!.created - firstDone >= 1000, JSON.stringify(ps));

    // Every worker fails: after 2 failed nodes (maxParallel 1) the other 2 never start.
    await env.stopControllers();
    await env.kubelet!.stop();
    const kubelet = env.startKubelet(() => 'fail');
    env.startControllers();
    const name = `budget-${env.tag}`;
    const gen = await env.erase({
      name,
      images: [`nothing-${env.tag}:2`],
      rollout: { maxParallel: 1, failureBudget: 2 },
    });
    const stopped = await env.wait(name, gen);
    assert.equal(stopped.status?.phase, 'Failed');
    assert.match(stopped.status?.message ?? '', /rollout stopped: 2 node\(s\) failed/);
    assert.equal(stopped.status?.rollout?.stopped, true);
    const outcomes = Object.values(results(stopped)).map(
      (r) => `${r.outcome}:${r.reason === 'rollout-stopped' ? r.reason : ''}`,
    );
    assert.deepEqual(outcomes.sort(), [
      'Failed:',
      'Failed:',
      'Skipped:rollout-stopped',
      'Skipped:rollout-stopped',
    ]);
    assert.equal(kubelet.runs.length, 2, 'the skipped nodes never got a worker');
    void nodes;
  });

  it('a controller process killed and restarted mid-rollout resumes the same job: no node twice, none skipped', async () => {
    const N = 6;
    const nodes = await env.nodes(Array.from({ length: N }, (_, i) => ({ name: `r${i}` })));
    // The rollout from the configuration's default this time (the list has no spec.rollout).
    await env.config('delayOnSuccess: 1h\nrollout: {maxParallel: 2}\n');
    const kubelet = env.startKubelet();
    const startProc = () =>
      new Promise<ChildProcess>((resolve) => {
        const p = spawn(process.execPath, [path.join(repoRoot, 'dist/test/erase/controller-proc.js')], {
          env: { ...process.env, ERASE_KUBECONFIG: kubeconfigPath(), ERASE_NAMESPACE: env.namespace },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        p.stdout!.once('data', () => resolve(p));
      });
    const name = `resume-${env.tag}`;
    const gen = await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] });
    const max = sampleMax();
    const uids = new Set<string>();
    let kills = 0;
    let job: ImageJob | undefined;
    const deadline = Date.now() + 150_000;
    for (;;) {
      proc = await startProc();
      // Let it get somewhere (a pass or a few), then SIGKILL it wherever it is.
      await sleep(200 + ((kills * 337) % 700));
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
      proc = undefined;
      kills++;
      const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH, {
        query: { labelSelector: `erase.imageinventory.dev/imagelist=${name}` },
      });
      for (const j of jobs.items) uids.add(j.metadata.uid ?? '');
      job = jobs.items[0];
      if (job?.status?.phase === 'Completed' || job?.status?.phase === 'Failed') break;
      assert.ok(Date.now() < deadline, `not finished after ${kills} kills: ${JSON.stringify(job?.status)}`);
    }
    sampling = false;
    assert.equal(uids.size, 1, 'one job, resumed after every restart, never a second one');
    assert.deepEqual(job!.spec.rollout, { maxParallel: 2 }, 'the configuration default, recorded');
    assert.equal(job!.status?.phase, 'Completed', job!.status?.message);
    assert.equal((await requestState(env.rest, name, gen)).list.status?.lastJob, job!.metadata.name);
    const perNode = new Map<string, number>();
    for (const r of kubelet.runs) perNode.set(r.node, (perNode.get(r.node) ?? 0) + 1);
    assert.deepEqual([...perNode.keys()].sort(), [...nodes].sort(), 'no node skipped');
    assert.ok(
      [...perNode.values()].every((v) => v === 1),
      `no node twice: ${JSON.stringify([...perNode])}`,
    );
    assert.ok((await max) <= 2, `at most 2 unfinished workers at once across restarts, saw ${await max}`);
    assert.deepEqual(
      Object.values(results(job!)).map((r) => r.outcome),
      nodes.map(() => 'Succeeded'),
    );
    process.stderr.write(`      (${kills} kills, rollout ${JSON.stringify(job!.status?.rollout)})\n`);
  });
});
