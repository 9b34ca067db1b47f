// A controller process SIGKILLed at random points of a job and restarted: write-ahead
// inventory plus deterministic names mean no duplicated and no leaked Pods or ConfigMaps.
// The kubelet harness plays the nodes: the test kills the controller, not the nodes, dozens of
// times, and needs workers to finish at a pace it controls.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { kubeconfigPath } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import { EraseEnv, eraseEnvPerTest, results, sleep } from './helpers.js';
import { requestState } from '../../src/core/erase-request/request.js';
import { IMAGEJOBS_PATH } from '../../src/core/erase/api/types.js';
import { ImageListController } from '../../src/core/erase/imagelist-controller.js';

// Small deterministic PRNG so a failing run can be replayed with ERASE_SEED.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

describe('erase: controller killed and restarted', function () {
  this.timeout(180_000);
  let env: EraseEnv;
  let proc: ChildProcess | undefined;
  eraseEnvPerTest((e) => (env = e), {
    beforeTeardown: async () => {
      proc?.kill('SIGKILL');
    },
  });

  const startProc = () =>
    new Promise<ChildProcess>((resolve) => {
      const p = spawn(process.execPath, [path.join(repoRoot, 'dist/test/erase/controller-proc.js')], {
        env: { ...process.env, ERASE_KUBECONFIG: kubeconfigPath(), ERASE_NAMESPACE: env.namespace },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      p.stdout!.once('data', () => resolve(p));
    });
  const kill = async (p: ChildProcess) => {
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };

  it('no duplicated or leaked Pods and ConfigMaps across random kills, through run and cleanup', async () => {
    const seed = Number(process.env.ERASE_SEED ?? Date.now() % 100000);
    const rand = rng(seed);
    const N = 12;
    const nodes = await env.nodes(Array.from({ length: N }, (_, i) => ({ name: `k${i}` })));
    await env.config('delayOnSuccess: 1s\n');
    env.startKubelet();
    const name = `kill-${env.tag}`;
    const gen = await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] });
    let kills = 0;
    let maxPods = 0;
    let jobName = '';
    const deadline = Date.now() + Number(process.env.ERASE_KILL_DEADLINE ?? 150_000);
    for (;;) {
      proc = await startProc();
      // Kill anywhere from almost at once to after a while (some passes run to completion).
      await sleep(Math.floor(rand() * 600));
      await kill(proc);
      proc = undefined;
      kills++;
      maxPods = Math.max(maxPods, (await env.objects('pods')).length);
      const st = await requestState(env.rest, name, gen).catch(() => undefined);
      if (st?.list.status?.lastJob) jobName = st.list.status.lastJob;
      if (jobName && kills > 8) {
        const jobs = await env.rest.list(IMAGEJOBS_PATH, {
          query: { labelSelector: `erase.imageinventory.dev/imagelist=${name}` },
        });
        if (jobs.items.length === 0 && st?.list.status?.phase === 'Completed') break; // finished, cleaned up, deleted
      }
      if (Date.now() > deadline) {
        const pods = await env.rest.list<Record<string, unknown>>(`/api/v1/namespaces/${env.namespace}/pods`);
        process.stderr.write(
          `POD ${JSON.stringify(pods.items[0])}\nRUN ${JSON.stringify(env.kubelet!.runs[0])}\n`,
        );
        const jobs = await env.rest.list<{ metadata: { uid?: string }; status?: unknown }>(IMAGEJOBS_PATH, {
          query: { labelSelector: `erase.imageinventory.dev/imagelist=${name}` },
        });
        throw new Error(
          `seed ${seed}: job did not finish after ${kills} kills: kubelet runs ${env.kubelet!.runs.length}, pods ${JSON.stringify((await env.rest.list<{ status?: { phase?: string } }>(`/api/v1/namespaces/${env.namespace}/pods`)).items.map((p) => p.status?.phase))}: list ${JSON.stringify(st?.list.status)} jobs ${JSON.stringify(jobs.items.map((j) => ({ uid: j.metadata.uid, status: j.status })))}`,
        );
      }
    }
    // The finished generation is never started again once its job is gone: a list reconcile
    // (what a restarted controller does first) creates no second job under the same name.
    await new ImageListController({
      rest: env.rest,
      namespace: env.namespace,
      configNamespace: env.namespace,
    }).reconcile(name);
    const again = await env.rest.list(IMAGEJOBS_PATH, {
      query: { labelSelector: `erase.imageinventory.dev/imagelist=${name}` },
    });
    assert.equal(again.items.length, 0, `seed ${seed}: the finished generation was started again`);
    const list = (await requestState(env.rest, name, gen)).list;
    assert.equal(list.status?.phase, 'Completed', `seed ${seed}`);
    assert.deepEqual([list.status?.desired, list.status?.success], [N, N], `seed ${seed}`);
    assert.equal(list.status?.lastJob, jobName, `seed ${seed}`);
    // Every node's worker ran exactly once: never a second Pod for a node.
    const perNode = new Map<string, number>();
    for (const r of env.kubelet!.runs) perNode.set(r.node, (perNode.get(r.node) ?? 0) + 1);
    assert.deepEqual([...perNode.keys()].sort(), [...nodes].sort(), `seed ${seed}`);
    assert.ok(
      [...perNode.values()].every((v) => v === 1),
      `seed ${seed}: ${JSON.stringify([...perNode])}`,
    );
    assert.ok(maxPods <= N, `seed ${seed}: at most one Pod per node (${maxPods})`);
    // Nothing leaked.
    assert.equal((await env.objects('pods')).length, 0, `seed ${seed}: pods leaked`);
    assert.equal((await env.objects('configmaps')).length, 0, `seed ${seed}: configmaps leaked`);
    assert.equal((await env.objects('podtemplates')).length, 0, `seed ${seed}: podtemplates leaked`);
    process.stderr.write(`      (seed ${seed}: ${kills} kills)\n`);
    void results;
  });
});
