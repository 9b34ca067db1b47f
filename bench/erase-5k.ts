// `npm run bench erase-5k [-- --nodes 5000]`: the erase controllers on 5,000 harness Node objects
// in the real API server (issue 32). Two jobs:
//   1. every node at once (no rollout), the controllers in this process with their requests
//      counted: requests per node (floor 1.00: one worker Pod each), time from the request to every
//      worker created, the ImageJob's size;
//   2. rollout waves (maxParallel 10%), the controllers in a child process
//      (dist/test/erase/controller-proc.js) SIGKILLed once half the nodes have finished and
//      started again: the same job resumes, no node's worker is created twice, none is skipped;
//      time to every worker created with waves, the child's peak RSS (VmHWM from /proc).
// The harness plays the kubelet: each worker Pod is marked Succeeded with node-remove's summary
// as it appears. Prints figures against their targets; never fails on them.
import { KubeConfig } from '@kubernetes/client-node';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EraseControllers } from '../src/core/erase/controllers.js';
import { submitErase, waitForJob } from '../src/core/erase-request/request.js';
import { decodeNodes } from '../src/core/erase/api/node-status.js';
import { IMAGEJOBS_PATH, IMAGELIST_LABEL, JOB_LABEL, type ImageJob } from '../src/core/erase/api/types.js';
import { installCrds } from '../src/core/kube/crd-install.js';
import { KubeRest } from '../src/core/kube/rest.js';
import { forEachConcurrent } from '../src/core/concurrency.js';
import { ensureNamespace } from '../src/core/kube/namespaces.js';
import { hwm } from './support/proc.js';
import { sleep } from './support/wait.js';
import { createReadyNodes, succeedWorker } from './support/harness.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LABEL = 'bench-erase-5k';
const log = (m: string) => process.stderr.write(`bench erase-5k: ${m}\n`);

interface PodLike {
  metadata: { name: string; uid?: string };
  spec: { nodeName?: string; containers: { name: string; image: string }[] };
  status?: { phase?: string };
}

async function setupNamespace(rest: KubeRest, ns: string): Promise<void> {
  await ensureNamespace(rest, ns);
  await rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { metadata: { name: 'inv-erase-config' }, data: { 'config.yaml': 'jobTimeout: 2h\n' } },
  });
}

/** Marks every new worker Pod Succeeded; remembers each Pod's UIDs (a second UID = a second run). */
class Kubelet {
  readonly uids = new Map<string, Set<string>>();
  readonly nodes = new Set<string>();
  finished = 0;
  lastCreatedAt = 0;
  private stopped = false;
  private loop?: Promise<void>;
  constructor(
    private readonly rest: KubeRest,
    private readonly ns: string,
  ) {}
  start(): this {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.tick().catch((e) => log(`kubelet: ${(e as Error).message}`));
        await sleep(500);
      }
    })();
    return this;
  }
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
  private async tick(): Promise<void> {
    const podsPath = `/api/v1/namespaces/${this.ns}/pods`;
    const pods = (await this.rest.list<PodLike>(podsPath, { query: { labelSelector: JOB_LABEL } })).items;
    const todo = pods.filter((p) => p.status?.phase !== 'Succeeded');
    for (const p of pods) {
      const set = this.uids.get(p.metadata.name) ?? new Set<string>();
      if (!set.has(p.metadata.uid ?? '')) this.lastCreatedAt = Date.now();
      set.add(p.metadata.uid ?? '');
      this.uids.set(p.metadata.name, set);
      if (p.spec.nodeName) this.nodes.add(p.spec.nodeName);
    }
    await forEachConcurrent(todo, 32, async (pod) => {
      const message = JSON.stringify({
        node: pod.spec.nodeName,
        counts: { removed: 1 },
        bytes: 12_345_678,
        results: [],
      });
      if (await succeedWorker(this.rest, podsPath, pod, message)) this.finished++;
    });
  }
}

export async function main(ctx: {
  kubeconfig: string;
  flags?: Record<string, string>;
}): Promise<Record<string, number | string>> {
  const NODES = Number(ctx.flags?.nodes ?? 5000);
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfig);
  const rest = new KubeRest(kc);
  await installCrds(rest);
  const names = Array.from({ length: NODES }, (_, i) => `bench-node-${String(i).padStart(5, '0')}`);
  const tNodes = Date.now();
  await createReadyNodes(rest, names, { labels: { [LABEL]: '1' } });
  log(`${NODES} Nodes in ${Date.now() - tNodes} ms`);

  // 1. Every node at once, controllers in-process, requests counted.
  const nsA = 'bench-erase-all';
  await setupNamespace(rest, nsA);
  const ctrlRest = new KubeRest(kc);
  const byMethod = new Map<string, number>();
  ctrlRest.onRequest = (m) => byMethod.set(m, (byMethod.get(m) ?? 0) + 1);
  const count = (pred: (m: string) => boolean) =>
    [...byMethod].filter(([m]) => pred(m)).reduce((n, [, v]) => n + v, 0);
  const controllers = new EraseControllers({
    kubeConfig: kc,
    namespace: nsA,
    configNamespace: nsA,
    rest: ctrlRest,
    jobResyncMs: 1000,
  });
  const stopA = new AbortController();
  const runningA = controllers.start(stopA.signal);
  const kubeletA = new Kubelet(rest, nsA).start();
  const t0 = Date.now();
  const genA = await submitErase(rest, {
    name: 'bench-all',
    images: ['docker.io/library/bench-target:1'],
    nodeSelector: `${LABEL}=1`,
  });
  while (kubeletA.uids.size < NODES) {
    await sleep(100);
    if (Date.now() - t0 > 900_000) throw new Error(`only ${kubeletA.uids.size} workers after 15 min`);
  }
  const allCreatedMs = kubeletA.lastCreatedAt - t0;
  const { job: jobA } = await waitForJob(rest, 'bench-all', genA, { pollMs: 200, timeoutMs: 900_000 });
  const completedAMs = Date.now() - t0;
  const requests = count((m) => m !== 'WATCH');
  const writes = count((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m));
  const fullA = await rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${jobA!.metadata.name}`);
  await kubeletA.stop();
  stopA.abort();
  await runningA;
  ctrlRest.close();
  const inProcessPeak = Math.round(process.resourceUsage().maxRSS / 1024);
  log(`all at once: workers ${allCreatedMs} ms, Completed ${completedAMs} ms, ${requests} requests`);

  // 2. Waves of 10%, the controllers in a child process, killed once half the nodes finished.
  const nsB = 'bench-erase-waves';
  await setupNamespace(rest, nsB);
  const start = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const p = spawn(process.execPath, [path.join(repoRoot, 'dist/test/erase/controller-proc.js')], {
        env: { ...process.env, ERASE_KUBECONFIG: ctx.kubeconfig, ERASE_NAMESPACE: nsB },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      p.stdout!.once('data', () => resolve(p));
      p.once('exit', (code) => reject(new Error(`controller exited (${code})`)));
    });
  const kubeletB = new Kubelet(rest, nsB).start();
  let proc = await start();
  const t1 = Date.now();
  const genB = await submitErase(rest, {
    name: 'bench-waves',
    images: ['docker.io/library/bench-target:1'],
    nodeSelector: `${LABEL}=1`,
    rollout: { maxParallel: '10%' },
  });
  while (kubeletB.finished < NODES / 2) await sleep(100);
  const peak1 = hwm(proc.pid!).hwm;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
  const killedAt = kubeletB.finished;
  log(`controller SIGKILLed after ${killedAt} finished nodes; restarting`);
  proc = await start();
  await waitForJob(rest, 'bench-waves', genB, { pollMs: 200, timeoutMs: 900_000 });
  const completedBMs = Date.now() - t1;
  const allCreatedBMs = kubeletB.lastCreatedAt - t1;
  const peak2 = hwm(proc.pid!).hwm;
  const exited2 = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited2;
  await kubeletB.stop();
  const jobs = await rest.list<ImageJob>(IMAGEJOBS_PATH, {
    query: { labelSelector: `${IMAGELIST_LABEL}=bench-waves` },
  });
  const fullB = jobs.items[0]!;
  const twice = [...kubeletB.uids.values()].filter((s) => s.size > 1).length;
  const outcomes = decodeNodes(fullB.status?.nodes);
  const succeeded = outcomes.filter((r) => r.outcome === 'Succeeded').length;
  rest.close();
  return {
    nodes: NODES,
    '1. all at once: job phase': fullA.status?.phase ?? '?',
    '   request → every worker created (ms)': allCreatedMs,
    '   request → Completed (ms)': completedAMs,
    '   controller API requests per node (floor 1.00)': (requests / NODES).toFixed(2),
    '     of which writes': writes,
    '   ImageJob size (bytes; target < 1 MiB)': Buffer.byteLength(JSON.stringify(fullA)),
    '   bench process peak RSS, controllers + harness (MB)': inProcessPeak,
    '2. waves of 10%: job phase': fullB.status?.phase ?? '?',
    '   request → every worker created, with waves (ms)': allCreatedBMs,
    '   request → Completed, with waves (ms)': completedBMs,
    '   waves (status.rollout)': JSON.stringify(fullB.status?.rollout ?? {}),
    '   controller SIGKILLed after finished nodes': killedAt,
    '   jobs for the list (target 1)': jobs.items.length,
    '   nodes whose worker was created twice (target 0)': twice,
    '   nodes with a worker / Succeeded (target all)': `${kubeletB.nodes.size} / ${succeeded}`,
    '   controller process peak RSS, before / after the kill (MB)': `${peak1} / ${peak2}`,
    '   ImageJob size, with waves (bytes)': Buffer.byteLength(JSON.stringify(fullB)),
  };
}
