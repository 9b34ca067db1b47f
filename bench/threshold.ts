// Benchmark: the cost of a scheduled threshold check (spec.imageFs) at 1,000 harness nodes when
// no node is full. The harness Nodes are Node objects in the real API server whose status says
// what a kubelet's would (a few images with their sizes, the ephemeral-storage capacity); the
// controller's screen (src/core/erase/nodes/prescreen.ts) reads them from the cache it
// already keeps. Reports worker Pods created, the controllers' API requests for the run, and
// the same run with the screen off (every node gets a worker; the harness marks them finished,
// as bench/erase.ts does). Prints figures; never fails on timing.
import { KubeConfig } from '@kubernetes/client-node';
import { EraseControllers } from '../src/core/erase/controllers.js';
import { submitErase, waitForJob } from '../src/core/erase-request/request.js';
import { JOB_LABEL, type ImageJob } from '../src/core/erase/api/types.js';
import { installCrds } from '../src/core/kube/crd-install.js';
import { KubeRest } from '../src/core/kube/rest.js';
import { forEachConcurrent } from '../src/core/concurrency.js';
import { ensureNamespace } from '../src/core/kube/namespaces.js';
import { PRUNE_ALL } from '../src/core/erase/spec/images.js';
import { decodeNodes } from '../src/core/erase/api/node-status.js';
import { sleep } from './support/wait.js';
import { createReadyNodes, succeedWorker, type HarnessPod } from './support/harness.js';

const NODES = 1000;
const NS = 'bench-threshold';
const LABEL = 'bench-threshold';

async function harnessNodes(rest: KubeRest): Promise<void> {
  const names = Array.from({ length: NODES }, (_, i) => `bench-node-${String(i).padStart(4, '0')}`);
  await createReadyNodes(rest, names, {
    labels: { [LABEL]: '1' },
    status: {
      // A node nowhere near full: 100 GiB, 20 images of 150 MB listed (3 GB).
      capacity: { 'ephemeral-storage': '100Gi', cpu: '4', memory: '16Gi', pods: '110' },
      images: Array.from({ length: 20 }, (_, i) => ({
        names: [`registry.example/app-${i}:1`],
        sizeBytes: 150_000_000,
      })),
    },
  });
}

async function run(
  kc: KubeConfig,
  rest: KubeRest,
  name: string,
  prescreen: boolean,
): Promise<Record<string, number | string>> {
  await rest.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/inv-erase-config`).catch(() => undefined);
  await rest.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: {
      metadata: { name: 'inv-erase-config' },
      data: { 'config.yaml': `imageFsPrescreen: ${prescreen}\n` },
    },
  });
  const ctrlRest = new KubeRest(kc);
  const byMethod = new Map<string, number>();
  ctrlRest.onRequest = (m) => byMethod.set(m, (byMethod.get(m) ?? 0) + 1);
  const controllers = new EraseControllers({
    kubeConfig: kc,
    namespace: NS,
    configNamespace: NS,
    rest: ctrlRest,
    jobResyncMs: 1000,
  });
  const stop = new AbortController();
  const running = controllers.start(stop.signal);
  // Wait for the caches (the start-up LISTs are not the run's cost).
  while (!controllers.cache.hasSynced() || (await controllers.cache.nodes()).length < NODES) await sleep(100);
  await sleep(500);
  const count = (pred: (m: string) => boolean) =>
    [...byMethod].filter(([m]) => pred(m)).reduce((n, [, v]) => n + v, 0);
  const before = new Map(byMethod);
  const delta = (pred: (m: string) => boolean) =>
    count(pred) - [...before].filter(([m]) => pred(m)).reduce((n, [, v]) => n + v, 0);
  const t0 = Date.now();
  const gen = await submitErase(rest, {
    name,
    images: [PRUNE_ALL],
    nodeSelector: `${LABEL}=1`,
    imageFs: { highPercent: 80, lowPercent: 70 },
  });
  const podsPath = `/api/v1/namespaces/${NS}/pods`;
  let pods = 0;
  if (!prescreen) {
    // Play the kubelet: every worker finds its node below the threshold.
    let list: HarnessPod[] = [];
    while (list.length < NODES) {
      await sleep(200);
      list = (await rest.list<HarnessPod>(podsPath, { query: { labelSelector: `${JOB_LABEL}` } })).items;
      if (Date.now() - t0 > 600_000) throw new Error(`only ${list.length} worker Pods after 10 min`);
    }
    pods = list.length;
    await forEachConcurrent(list, 32, async (pod) => {
      const message = JSON.stringify({
        node: pod.spec.nodeName,
        runtime: 'containerd v1.6.20',
        counts: { 'below-threshold': 20 },
        bytes: 0,
        fs: { u: 9_000_000_000, c: 107_374_182_400, a: 9_000_000_000 },
      });
      await succeedWorker(rest, podsPath, pod, message);
    });
  }
  const { job } = await waitForJob(rest, name, gen, { pollMs: 50, timeoutMs: 600_000 });
  const ms = Date.now() - t0;
  if (prescreen)
    pods = (
      await rest.list<HarnessPod>(podsPath, {
        query: { labelSelector: `${JOB_LABEL}=${job!.metadata.name}` },
      })
    ).items.length;
  const out = {
    'job phase': (job as ImageJob | undefined)?.status?.phase ?? '?',
    'nodes skipped below-threshold': decodeNodes(job?.status?.nodes, true).filter(
      (r) => r.outcome === 'Skipped',
    ).length,
    'worker Pods created': pods,
    'controller API requests (no watches)': delta((m) => m !== 'WATCH'),
    '  of which writes': delta((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m)),
    '  of which reads (GET, LIST pages)': delta((m) => m === 'GET'),
    'request to Completed (ms)': ms,
  };
  stop.abort();
  await running;
  ctrlRest.close();
  return out;
}

export async function main(ctx: { kubeconfig: string }): Promise<Record<string, number | string>> {
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfig);
  const rest = new KubeRest(kc);
  await installCrds(rest);
  await ensureNamespace(rest, NS);
  await harnessNodes(rest);
  const screened = await run(kc, rest, 'by-need', true);
  const unscreened = await run(kc, rest, 'by-need-noscreen', false);
  rest.close();
  const out: Record<string, number | string> = { nodes: NODES };
  for (const [k, v] of Object.entries(screened)) out[`screen on: ${k}`] = v;
  for (const [k, v] of Object.entries(unscreened)) out[`screen off: ${k}`] = v;
  return out;
}
