// Benchmark for the erase controllers: an ImageJob over 1,000 Node objects in the real API
// server. Reports the time until every worker Pod exists, the time from "the harness marked
// every Pod finished" to Completed, the controllers' API requests per node, and the size of the
// finished ImageJob. The harness writes the Pods' terminal status itself (running 1,000 real
// node-remove processes would measure node-remove, which bench/node-remove.ts does). Prints
// figures; never fails on timing.
import { KubeConfig } from '@kubernetes/client-node';
import { EraseControllers } from '../src/core/erase/controllers.js';
import { submitErase, waitForJob } from '../src/core/erase-request/request.js';
import { IMAGEJOBS_PATH, JOB_LABEL, type ImageJob } from '../src/core/erase/api/types.js';
import { installCrds } from '../src/core/kube/crd-install.js';
import { KubeRest } from '../src/core/kube/rest.js';
import { terminationSummary } from '../src/core/noderemove/summary.js';
import { forEachConcurrent } from '../src/core/concurrency.js';
import { ensureNamespace } from '../src/core/kube/namespaces.js';
import { sleep } from './support/wait.js';
import { createReadyNodes, succeedWorker } from './support/harness.js';

const NODES = 1000;
const NS = 'bench-erase';
const LABEL = 'bench-erase';

interface PodLike {
  metadata: { name: string };
  spec: { nodeName?: string; containers: { name: string; image: string }[] };
  status?: { phase?: string };
}

export async function main(ctx: { kubeconfig: string }): Promise<Record<string, number | string>> {
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfig);
  const rest = new KubeRest(kc);
  await installCrds(rest);
  await ensureNamespace(rest, NS);
  // The erase configuration must exist (a job without one is refused): every default.
  await rest
    .request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      body: { metadata: { name: 'inv-erase-config' }, data: { 'config.yaml': '' } },
    })
    .catch(() => undefined);
  const names = Array.from({ length: NODES }, (_, i) => `bench-node-${String(i).padStart(4, '0')}`);
  await createReadyNodes(rest, names, { labels: { [LABEL]: '1' } });

  // The controllers get their own client so their requests can be counted (by method; WATCH is
  // the opening of a watch stream, counted apart, as before).
  const ctrlRest = new KubeRest(kc);
  const byMethod = new Map<string, number>();
  ctrlRest.onRequest = (m) => byMethod.set(m, (byMethod.get(m) ?? 0) + 1);
  const count = (pred: (m: string) => boolean) =>
    [...byMethod].filter(([m]) => pred(m)).reduce((n, [, v]) => n + v, 0);
  const controllers = new EraseControllers({
    kubeConfig: kc,
    namespace: NS,
    configNamespace: NS,
    rest: ctrlRest,
    jobResyncMs: 1000,
  });
  const stop = new AbortController();
  const running = controllers.start(stop.signal);

  const t0 = Date.now();
  const gen = await submitErase(rest, {
    name: 'bench',
    images: ['docker.io/library/bench-target:1'],
    nodeSelector: `${LABEL}=1`,
  });
  const podsPath = `/api/v1/namespaces/${NS}/pods`;
  let pods: PodLike[] = [];
  while (pods.length < NODES) {
    await sleep(100);
    pods = (await rest.list<PodLike>(podsPath, { query: { labelSelector: JOB_LABEL } })).items;
    if (Date.now() - t0 > 600_000) throw new Error(`only ${pods.length} worker Pods after 10 min`);
  }
  const createdMs = Date.now() - t0;

  // A no-op reconcile: every worker created, nothing changed since. Counted once the cache and
  // the queue have settled (the last status write has come back through the watch).
  const jobName = (await rest.list<ImageJob>(IMAGEJOBS_PATH)).items[0]!.metadata.name;
  for (let i = 0; ; i++) {
    const [cached, live] = [
      await controllers.cache.job(jobName),
      await rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${jobName}`),
    ];
    const idle =
      controllers.jobQueue.len() === 0 &&
      controllers.jobQueue.inFlight() === 0 &&
      controllers.cache.pods.size() >= NODES;
    if (idle && cached?.metadata.resourceVersion === live.metadata.resourceVersion) break;
    if (i > 600) throw new Error('the job queue never settled');
    await sleep(100);
  }
  const beforeNoop = count(() => true);
  await controllers.jobs.reconcile(jobName);
  const noopRequests = count(() => true) - beforeNoop;

  // Play the kubelet: every worker succeeded, with node-remove's termination summary.
  const tMark = Date.now();
  await forEachConcurrent(pods, 32, async (pod) => {
    const message = terminationSummary({
      node: pod.spec.nodeName ?? '',
      runtime: { name: 'containerd', version: 'v1.6.20', apiVersion: 'v1' },
      results: [
        {
          target: 'docker.io/library/bench-target:1',
          imageId: 'sha256:' + 'ab'.repeat(32),
          aliases: ['docker.io/library/bench-target:1'],
          size: 12_345_678,
          outcome: 'removed',
          error: '',
          detail: '',
        },
      ],
    });
    await succeedWorker(rest, podsPath, pod, message);
  });
  const markedMs = Date.now() - tMark;
  const { job } = await waitForJob(rest, 'bench', gen, { pollMs: 50, timeoutMs: 600_000 });
  const completedMs = Date.now() - tMark;
  const requestsAtCompletion = count((m) => m !== 'WATCH');
  const writes = count((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m));
  const reads = count((m) => m === 'GET');
  const watches = count((m) => m === 'WATCH');
  const full = await rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${job!.metadata.name}`);
  stop.abort();
  await running;
  ctrlRest.close();
  rest.close();
  return {
    nodes: NODES,
    'job phase': full.status?.phase ?? '?',
    'all worker Pods created (ms, from the request)': createdMs,
    'harness marked all Pods finished (ms)': markedMs,
    'Completed after marking started (ms)': completedMs,
    'controller API requests per node': (requestsAtCompletion / NODES).toFixed(2),
    '  of which writes (POST/PUT/PATCH/DELETE)': writes,
    '  of which reads (GET, LIST pages)': reads,
    'watch streams opened (not counted above)': watches,
    'requests of a no-op reconcile (running job)': noopRequests,
    'ImageJob size (bytes)': Buffer.byteLength(JSON.stringify(full)),
  };
}
