// Benchmark for `inv watch`: runs the daemon as a child process (`node bin/run.js watch`, so its
// memory is its own) against the real API server and reports
//   - rebuilds caused by a 1,000-Pod burst (create, 32 concurrent; and one deletecollection);
//   - latency from a Deployment image change to the updated Image, p50/p99 over 100 changes,
//     with 10,000 Pods in the same namespace;
//   - the daemon's RSS with 50,000 Pods cached (steady state, and the peak of a daemon started
//     with the 50,000 Pods already present).
// The Pods are owned as a cluster's are: by ReplicaSets that Deployments control, 50
// Deployments per namespace (bench/support/replicasets.ts), every 10th Pod naked.
// Prints figures; never fails on timing.
import { KubeConfig } from '@kubernetes/client-node';
import { imagesPath, type ImageResource } from '../src/core/inventory/image-resource.js';
import { installCrds } from '../src/core/kube/crd-install.js';
import { KubeRest } from '../src/core/kube/rest.js';
import { Informer } from '../src/core/controller/informer.js';
import { forEachConcurrent, range } from '../src/core/concurrency.js';
import { ensureNamespace } from '../src/core/kube/namespaces.js';
import { hwm } from './support/proc.js';
import { sleep, until as untilEvery } from './support/wait.js';
import { daemonMetrics, startWatchDaemon, type Daemon } from './support/daemon.js';
import { deploymentOwner, type OwnerRef, type PodTemplate } from './support/replicasets.js';

// This bench polls every 100 ms by default.
const until = (what: string, cond: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 100) =>
  untilEvery(what, cond, timeoutMs, everyMs);

export interface BenchContext {
  kubeconfig: string;
}

const log = (m: string) => process.stderr.write(`bench watch: ${m}\n`);

const metrics = daemonMetrics;
function sample(text: string, name: string, labels = ''): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}${labels} `) || (!labels && l.startsWith(`${name} `)));
  return line ? Number(line.split(' ').pop()) : 0;
}
async function rebuilds(d: Daemon): Promise<number> {
  const t = await metrics(d);
  return (
    sample(t, 'inv_rebuilds_total', '{result="success"}') +
    sample(t, 'inv_rebuilds_total', '{result="error"}')
  );
}
async function cachedPods(d: Daemon): Promise<number> {
  return sample(await metrics(d), 'inv_cache_objects', '{kind="Pod"}');
}
/** Waits until no rebuild happened for `quietMs`; returns the rebuild count then. */
async function settle(d: Daemon, quietMs = 2000): Promise<number> {
  let last = await rebuilds(d);
  for (;;) {
    await sleep(quietMs);
    const n = await rebuilds(d);
    if (n === last) return n;
    last = n;
  }
}
// 50 Deployments per namespace, each with its ReplicaSets (bench/support/replicasets.ts): 9 Pods in 10
// are owned by one of the current ReplicaSets and run its images, every 10th is naked.
const DEPLOYMENTS = 50;
const SIDECAR = { name: 'sidecar', image: 'registry.example.com/proxy:1.2' };
const template = (k: number): PodTemplate => ({
  metadata: { labels: { app: `a${k}` } },
  spec: { containers: [{ name: 'app', image: `registry.example.com/team${k % 20}/web${k}:v1` }, SIDECAR] },
});
const owners = new Map<string, OwnerRef[]>();
async function ownersIn(rest: KubeRest, ns: string): Promise<OwnerRef[]> {
  let o = owners.get(ns);
  if (!o) {
    o = new Array<OwnerRef>(DEPLOYMENTS);
    await forEachConcurrent(range(DEPLOYMENTS), 8, async (k) => {
      o![k] = await deploymentOwner(rest, ns, `web-${k}`, template(k));
    });
    owners.set(ns, o);
  }
  return o;
}

function pod(ns: string, name: string, i: number, image: string, owned: OwnerRef[]): unknown {
  const k = i % DEPLOYMENTS;
  const naked = i % 10 === 0;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels: naked
        ? { app: `naked${i % 50}` }
        : { ...template(k).metadata.labels, 'pod-template-hash': 'cur' },
      ...(naked ? {} : { ownerReferences: [owned[k]!] }),
    },
    spec: { containers: naked ? [{ name: 'app', image }, SIDECAR] : template(k).spec.containers },
  };
}

async function createPods(rest: KubeRest, ns: string, count: number, offset = 0): Promise<number> {
  const owned = await ownersIn(rest, ns);
  const t0 = Date.now();
  await forEachConcurrent(range(count), 32, (i) =>
    rest.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: pod(
        ns,
        `p-${offset + i}`,
        offset + i,
        `registry.example.com/team${(offset + i) % 20}/app${(offset + i) % 200}:v1`,
        owned,
      ),
    }),
  );
  return Date.now() - t0;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

export async function main(ctx: BenchContext): Promise<Record<string, number | string>> {
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfig);
  const rest = new KubeRest(kc);
  await installCrds(rest);
  const out: Record<string, number | string> = {};
  let d = await startWatchDaemon(ctx.kubeconfig, []);
  try {
    // 1. Burst.
    await ensureNamespace(rest, 'bench-burst');
    await ownersIn(rest, 'bench-burst');
    await settle(d);
    let before = await rebuilds(d);
    const burstMs = await createPods(rest, 'bench-burst', 1000);
    await until('burst cached', async () => (await cachedPods(d)) >= 1000, 60_000);
    out['1,000-Pod burst: creation time (ms, 32 concurrent)'] = burstMs;
    out['1,000-Pod burst: rebuilds'] = (await settle(d)) - before;
    before = await rebuilds(d);
    await rest.request('DELETE', '/api/v1/namespaces/bench-burst/pods', { query: { gracePeriodSeconds: 0 } });
    await until('burst deleted', async () => (await cachedPods(d)) === 0, 60_000);
    out['1,000-Pod deletecollection: rebuilds'] = (await settle(d)) - before;
    log(`burst: ${JSON.stringify(out)}`);

    // 2. Latency with 10,000 Pods in the namespace.
    const NS = 'bench-latency';
    await ensureNamespace(rest, NS);
    const seedMs = await createPods(rest, NS, 10_000);
    log(`seeded 10,000 Pods in ${seedMs} ms`);
    for (let i = 0; i < 20; i++) {
      await rest.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
        body: {
          metadata: { name: `d${i}` },
          spec: {
            selector: { matchLabels: { app: `d${i}` } },
            template: {
              metadata: { labels: { app: `d${i}` } },
              spec: { containers: [{ name: 'c', image: `lat/d${i}:0` }] },
            },
          },
        },
      });
    }
    await until('10,000 Pods cached', async () => (await cachedPods(d)) >= 10_000, 120_000);
    await settle(d);
    // Watch the Images from here, to timestamp the update precisely.
    const seen = new Map<string, number>();
    const imgs = new Informer<ImageResource>({
      name: 'bench-images',
      rest,
      path: imagesPath(NS),
      strip: (o) => o as ImageResource,
    });
    const note = (o: ImageResource) => {
      if (o.status?.kinds === 'Deployment' && o.spec?.image && !seen.has(o.spec.image))
        seen.set(o.spec.image, Date.now());
    };
    imgs.addHandlers({ onAdd: note, onUpdate: (_a, b) => note(b) });
    const stop = new AbortController();
    void imgs.run(stop.signal);
    await imgs.waitForSync(stop.signal);
    const lat: number[] = [];
    for (let k = 1; k <= 100; k++) {
      const i = k % 20;
      const ref = `docker.io/lat/d${i}:${k}`;
      const t0 = Date.now();
      await rest.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/d${i}`, {
        body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: `lat/d${i}:${k}` }],
        contentType: 'application/json-patch+json',
      });
      await until(`Image ${ref}`, () => seen.has(ref), 30_000, 2);
      lat.push(seen.get(ref)! - t0);
      await sleep(50);
    }
    stop.abort();
    out['change -> Image updated, 10k Pods in ns: p50 (ms)'] = pct(lat, 50);
    out['change -> Image updated, 10k Pods in ns: p99 (ms)'] = pct(lat, 99);
    out['change -> Image updated: max (ms)'] = Math.max(...lat);
    log(`latency: p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms`);

    // 3. Memory with 50,000 Pods cached: 40,000 more over 20 namespaces.
    const t0 = Date.now();
    for (let n = 0; n < 20; n++) {
      await ensureNamespace(rest, `bench-mem-${n}`);
      await createPods(rest, `bench-mem-${n}`, 2000, n * 2000);
    }
    log(`seeded 40,000 more Pods in ${Date.now() - t0} ms`);
    await until('50,000 Pods cached', async () => (await cachedPods(d)) >= 50_000, 300_000, 500);
    await settle(d);
    global.gc?.();
    const steady = hwm(d.proc.pid!);
    out['50k Pods cached: RSS (MB)'] = steady.rss;
    out['50k Pods cached: peak RSS during the run (MB)'] = steady.hwm;

    // A fresh daemon started with the 50,000 Pods present: initial LIST + first rebuild of all.
    d.proc.kill('SIGTERM');
    await d.exited;
    const t1 = Date.now();
    d = await startWatchDaemon(ctx.kubeconfig, []);
    await until('restarted daemon synced', async () => (await cachedPods(d)) >= 50_000, 300_000, 100);
    out['fresh daemon: 50k Pods listed and cached (ms)'] = Date.now() - t1;
    await settle(d);
    const fresh = hwm(d.proc.pid!);
    out['fresh daemon, 50k Pods: RSS after sync (MB)'] = fresh.rss;
    out['fresh daemon, 50k Pods: peak RSS (MB)'] = fresh.hwm;
  } finally {
    d.proc.kill('SIGTERM');
    await d.exited;
    rest.close();
  }
  return out;
}
