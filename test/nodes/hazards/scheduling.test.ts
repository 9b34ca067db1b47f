// Workers through the real kube-scheduler, on a node whose Pod capacity is full (its kubelet
// restarted with a small maxPods): without a priority class the worker cannot be placed and its
// node fails `unschedulable` after workerStartGrace (the job Failed, its Pod deleted); with the
// administrator's PriorityClass the scheduler preempts a lower-priority Pod and the worker runs.
// And the kubelet's own refusal (OutOfpods, for a Pod bound by name past the scheduler) has the
// shape placement-failure.ts reads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { nodeAffinity } from '../../../src/core/erase/worker/placement.js';
import { rejection } from '../../../src/core/erase/worker/placement-failure.js';
import type { WorkerPod } from '../../../src/core/erase/worker/worker-pod.js';
import { JOB_LABEL } from '../../../src/core/erase/api/types.js';
import { isAlreadyExists } from '../../../src/core/kube/rest.js';
import { nodesScript, until, type WholeCluster } from '../../support/nodes.js';
import { importToNodes, NodeEraseEnv, results } from '../helpers.js';
import { useWholeCluster } from '../../support/suite-hooks.js';

interface NodeObj {
  status?: { allocatable?: Record<string, string>; conditions?: { type: string; status: string }[] };
}
interface PodObj extends WorkerPod {
  metadata: { name: string; namespace: string; deletionTimestamp?: string; creationTimestamp?: string };
  spec: { nodeName?: string };
}

describe('erase: workers placed by the scheduler on a full node (real kubelets)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let n1: string;
  let n2: string;
  let fillerRef = '';
  let kubeletYaml = '';
  let original = '';
  const tag = randomBytes(3).toString('hex');
  const priorityClass = `inv-test-workers-${tag}`;
  useWholeCluster((x) => (c = x));

  /** Node 2's kubelet restarted with `maxPods` (undefined: as the cluster made it). */
  async function restartNode2(maxPods?: number): Promise<void> {
    const cfg = JSON.parse(original) as Record<string, unknown>;
    fs.writeFileSync(kubeletYaml, JSON.stringify(maxPods ? { ...cfg, maxPods } : cfg, null, 2));
    const nodes = await nodesScript();
    await nodes.startKubelet(c.dir, 2);
    const want = String(maxPods ?? 110);
    await until(
      `${n2} Ready with ${want} Pods allocatable`,
      async () => {
        const n = await env.rest.get<NodeObj>(`/api/v1/nodes/${n2}`);
        return (
          n.status?.allocatable?.pods === want &&
          n.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')
        );
      },
      90_000,
      250,
    );
  }

  /** Pods on node 2 that hold a place (not Succeeded or Failed), in every namespace. */
  async function activeOnNode2(): Promise<PodObj[]> {
    const l = await env.rest.list<PodObj>('/api/v1/pods', {
      query: { fieldSelector: `spec.nodeName=${n2}` },
    });
    return l.items.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  }

  /** A Pod that only sleeps on node 2 (placed by the scheduler, or bound by name), priority 0. */
  async function filler(bound = false): Promise<string> {
    const name = `filler-${randomBytes(3).toString('hex')}`;
    await env.rest.request('POST', `/api/v1/namespaces/${env.namespace}/pods`, {
      body: {
        metadata: { name },
        spec: {
          ...(bound ? { nodeName: n2 } : { affinity: nodeAffinity(n2) }),
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 0,
          containers: [
            { name: 'main', image: fillerRef, imagePullPolicy: 'Never', command: ['/bin/sleep', '3600'] },
          ],
        },
      },
    });
    return name;
  }

  const podPath = (name: string) => `/api/v1/namespaces/${env.namespace}/pods/${name}`;

  before(async function () {
    this.timeout(600_000);
    [n1, n2] = c.nodes.map((n) => n.name) as [string, string];
    kubeletYaml = path.join(c.dir, 'node-2', 'kubelet.yaml');
    original = fs.readFileSync(kubeletYaml, 'utf8');
    fillerRef = `docker.io/library/filler-${tag}:1`;
    await importToNodes(c, [1], [{ refs: [fillerRef], distinct: `filler-${tag}` }]);
  });

  beforeEach(async () => {
    env = await new NodeEraseEnv(c).setup();
    // Node 2 full: its places are the Pods it runs now (none of them on the way out) and one
    // filler the scheduler puts there.
    await until(
      'no Pod leaving node 2',
      async () => (await activeOnNode2()).every((p) => !p.metadata.deletionTimestamp),
      120_000,
      500,
    );
    await restartNode2((await activeOnNode2()).length + 1);
    const f = await filler();
    await until(
      `${f} Running on ${n2}`,
      async () => (await env.rest.get<PodObj>(podPath(f))).status?.phase === 'Running',
    );
    env.startControllers();
  });

  afterEach(async () => {
    await env.teardown();
    await restartNode2();
  });

  after(async () => {
    if (original) fs.writeFileSync(kubeletYaml, original);
    await env?.rest
      .request('DELETE', `/apis/scheduling.k8s.io/v1/priorityclasses/${priorityClass}`)
      .catch(() => undefined);
  });

  it("no priority class: the worker is unschedulable, its node fails with the scheduler's words, the job fails", async () => {
    const started = Date.now();
    const job = await env.wait(await env.erase({ images: [`nothing-${tag}:1`], jobTimeout: '10m' }), 120_000);
    assert.equal(job.status?.phase, 'Failed', job.status?.message);
    const r = results(job);
    assert.equal(r[n1]?.outcome, 'Succeeded', r[n1]?.reason);
    assert.equal(r[n2]?.outcome, 'Failed');
    assert.match(r[n2]!.reason, /^unschedulable: Unschedulable: .*Too many pods/, r[n2]!.reason);
    assert.equal(job.status?.failed, 1);
    assert.ok(Date.now() - started < 90_000, 'after workerStartGrace, long before the 10 minute deadline');
    // Its Pod is deleted: it must not run later, after its node was reported.
    await until('the unschedulable worker deleted', async () => {
      const workers = await env.rest.list<PodObj>(`/api/v1/namespaces/${env.namespace}/pods`, {
        query: { labelSelector: `${JOB_LABEL}=${job.metadata.name}` },
      });
      return workers.items.every((p) => p.spec.nodeName === n1);
    });
  });

  it("the administrator's PriorityClass: the scheduler preempts a lower-priority Pod and the worker runs", async () => {
    await env.rest
      .request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
        body: {
          apiVersion: 'scheduling.k8s.io/v1',
          kind: 'PriorityClass',
          metadata: { name: priorityClass },
          value: 1_000_000,
          preemptionPolicy: 'PreemptLowerPriority',
          description: 'inv test: workers may preempt',
        },
      })
      .catch((e) => (isAlreadyExists(e) ? undefined : Promise.reject(e)));
    await env.config(`  priorityClassName: ${priorityClass}`);
    const job = await env.wait(await env.erase({ images: [`nothing-${tag}:1`], jobTimeout: '10m' }), 120_000);
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const r = results(job);
    assert.equal(r[n2]?.outcome, 'Succeeded', r[n2]?.reason);
    const workers = await env.workers(job.metadata.name);
    const w2 = workers.get(n2) as
      (PodObj & { spec: { priorityClassName?: string; priority?: number } }) | undefined;
    assert.equal(w2?.spec.priorityClassName, priorityClass);
    assert.equal(w2?.spec.priority, 1_000_000);
    // The filler made room: preempted (deleted) by the scheduler.
    const fillers = (await activeOnNode2()).filter((p) => p.metadata.name.startsWith('filler-'));
    assert.deepEqual(
      fillers.filter((p) => !p.metadata.deletionTimestamp),
      [],
    );
  });

  it("a Pod bound by name past the scheduler is refused by the full node's kubelet (OutOfpods), as rejection() reads it", async () => {
    const name = await filler(true);
    const pod = await until(`${name} refused`, async () => {
      const p = await env.rest.get<PodObj>(podPath(name));
      return p.status?.phase === 'Failed' ? p : undefined;
    });
    assert.match(rejection(pod) ?? '', /^rejected: OutOfpods: .*pods/, JSON.stringify(pod.status));
  });
});
