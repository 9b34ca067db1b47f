// `npm run bench scale [-- --pods 150000 --namespaces 3000]`: `inv watch` (a child process, at
// its default --kube-api-qps/--kube-api-burst) over Pods owned as a cluster's are (Deployments,
// each with its current and one old ReplicaSet, bench/support/replicasets.ts; every 10th Pod naked):
//   - start-up: the fresh daemon lists, caches and settles its first build; time, requests the
//     API server served (its apiserver_request_total), Image writes, peak RSS;
//   - the API server's priority and fairness during that build, from its own metrics: the daemon
//     runs as the ServiceAccount `inv install` makes, with its RBAC (bench/support/apf.ts), so its
//     requests are classified as a cluster's would be (workload-low), not `exempt` (--identity
//     admin runs it with the bench's admin credentials instead);
//   - a no-op resync of every namespace (--resync-period): writes;
//   - a Deployment change → its Image, p50/p99 over 50 changes, while 100 Pods per second are
//     created and deleted in other namespaces.
// Full size takes longer than one session's bench slot on 2 shared cores: pass smaller --pods and
// --namespaces (same density) and say so; --phases startup stops after the first build. With
// INV_BENCH_BASELINE=<dir> (a built checkout), the first build is followed by daemon restarts of
// this checkout and the baseline side by side, and nothing else. Prints figures against
// targets; never fails on them.
import { KubeConfig } from '@kubernetes/client-node';
import path from 'node:path';
import { imagesPath, type ImageResource } from '../src/core/inventory/image-resource.js';
import { installCrds } from '../src/core/kube/crd-install.js';
import { KubeRest } from '../src/core/kube/rest.js';
import { Informer } from '../src/core/controller/informer.js';
import { forEachConcurrent, range } from '../src/core/concurrency.js';
import { ensureNamespace } from '../src/core/kube/namespaces.js';
import { deploymentOwner, type OwnerRef, type PodTemplate } from './support/replicasets.js';
import { deployedNodeOptions, hwm } from './support/proc.js';
import { sleep, until } from './support/wait.js';
import { daemonMetrics, startWatchDaemon, type Daemon } from './support/daemon.js';
import * as apf from './support/apf.js';

const log = (m: string) => process.stderr.write(`bench scale: ${m}\n`);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

const metricSum = apf.sumOf;
/** Per value of `label`, the sum of `name`. */
function metricBy(text: string, name: string, label: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of apf.samples(text, name)) {
    const v = x.labels[label] ?? '';
    out.set(v, (out.get(v) ?? 0) + x.value);
  }
  return out;
}
const rebuilds = async (d: Daemon) => metricSum(await daemonMetrics(d), 'inv_rebuilds_total');
const cachedPods = async (d: Daemon) =>
  metricSum(await daemonMetrics(d), 'inv_cache_objects', { kind: 'Pod' });
/** V8's view of the daemon's memory (prom-client's default metrics): what of the RSS is live heap. */
const heapFigures = (t: string) =>
  ['nodejs_heap_size_used_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_external_memory_bytes']
    .map((n) => Math.round(metricSum(t, n) / 1048576))
    .join(' / ');
/**
 * Waits until at least `atLeast` rebuilds finished, then until none finished for `quietMs`; returns
 * the rebuild count then. (Quiet alone is not enough: with 16 workers sharing 50 writes per second,
 * one first-build rebuild of 18 writes takes ~6 s, so 5 s without a finished rebuild happen mid-build.)
 */
async function settle(d: Daemon, atLeast: number, quietMs = 5000): Promise<number> {
  await until(`${atLeast} rebuilds`, async () => (await rebuilds(d)) >= atLeast, 3_600_000, 1000);
  let last = await rebuilds(d);
  for (;;) {
    await sleep(quietMs);
    const n = await rebuilds(d);
    if (n === last) return n;
    last = n;
  }
}

const SIDECAR = { name: 'sidecar', image: 'registry.example.com/proxy:1.2' };
const template = (ns: number, k: number): PodTemplate => ({
  metadata: { labels: { app: `a${k}` } },
  spec: { containers: [{ name: 'app', image: `registry.example.com/team${ns % 20}/web${k}:v1` }, SIDECAR] },
});

/**
 * Restarts of this checkout's daemon and of each INV_BENCH_BASELINE checkout's (built), in
 * alternating rounds over the same objects, after the first build: each lists and caches every
 * Pod, then settles a build that writes nothing (the Images exist). Medians of --rounds (3), and ratios.
 */
async function sideBySide(
  kubeconfig: string,
  pods: number,
  nss: number,
  pass: string[],
  rounds: number,
): Promise<Record<string, number | string>> {
  const forms = [
    { name: 'this checkout', root: undefined as string | undefined },
    ...process.env
      .INV_BENCH_BASELINE!.split(',')
      .filter(Boolean)
      .map((dir) => ({ name: `baseline ${path.basename(dir)}`, root: path.resolve(dir) })),
  ];
  const figures = new Map(
    forms.map((f) => [f.name, { cached: [] as number[], settled: [] as number[], hwm: [] as number[] }]),
  );
  for (let round = 0; round < rounds; round++)
    for (const form of round % 2 ? [...forms].reverse() : forms) {
      const t0 = Date.now();
      const d = await startWatchDaemon(kubeconfig, ['--resync-period', '30m', ...pass], {
        nodeOptions: deployedNodeOptions(),
        root: form.root,
      });
      try {
        await until('every Pod cached', async () => (await cachedPods(d)) >= pods, 1_800_000, 250);
        const fig = figures.get(form.name)!;
        fig.cached.push(Date.now() - t0);
        await settle(d, nss);
        fig.settled.push(Date.now() - t0 - 5000);
        fig.hwm.push(hwm(d.proc.pid!).hwm);
        log(`side by side, round ${round + 1}: ${form.name} cached every Pod in ${fig.cached.at(-1)} ms`);
      } finally {
        d.proc.kill('SIGTERM');
        await d.exited;
      }
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const out: Record<string, number | string> = {};
  const mine = figures.get('this checkout')!;
  for (const form of forms) {
    const fig = figures.get(form.name)!;
    out[`${form.name}: restart, every Pod cached / no-op build settled (ms, median of ${rounds})`] =
      `${med(fig.cached)} / ${med(fig.settled)}`;
    out[`${form.name}: daemon peak RSS (MB, median of ${rounds})`] = med(fig.hwm);
    if (form.root)
      out[`this checkout / ${form.name}: cached, settled, peak RSS`] = [
        med(mine.cached) / med(fig.cached),
        med(mine.settled) / med(fig.settled),
        med(mine.hwm) / med(fig.hwm),
      ]
        .map((x) => x.toFixed(3))
        .join(', ');
  }
  return out;
}

export async function main(ctx: {
  kubeconfig: string;
  flags?: Record<string, string>;
}): Promise<Record<string, number | string>> {
  const f = ctx.flags ?? {};
  const PODS = Number(f.pods ?? 150_000);
  const NSS = Number(f.namespaces ?? 3000);
  const DEPLOY = Number(f['deployments-per-namespace'] ?? 3);
  const perNs = Math.ceil(PODS / NSS);
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfig);
  const rest = new KubeRest(kc);
  const apiMetrics = () => apf.apiServerMetrics(kc);
  await installCrds(rest);
  const out: Record<string, number | string> = {
    size: `${PODS} Pods in ${NSS} namespaces, ${NSS * DEPLOY} Deployments, ${NSS * DEPLOY * 2} ReplicaSets`,
  };

  // Seed (no daemon yet).
  const tSeed = Date.now();
  const nss = range(NSS).map((i) => `scale-${String(i).padStart(4, '0')}`);
  // Two clients (each keeps at most 32 connections) and 16 namespaces at once: seeding 150,000
  // Pods is bound by the API server's latency, not by this process.
  const seeders = [rest, new KubeRest(kc)];
  await forEachConcurrent(range(NSS), 16, async (n) => {
    const ns = nss[n]!;
    const rest = seeders[n % seeders.length]!;
    await ensureNamespace(rest, ns);
    const owners: OwnerRef[] = [];
    for (let k = 0; k < DEPLOY; k++) owners.push(await deploymentOwner(rest, ns, `web-${k}`, template(n, k)));
    await forEachConcurrent(range(perNs), 4, (i) => {
      const naked = i % 10 === 0;
      const k = i % DEPLOY;
      return rest.request('POST', `/api/v1/namespaces/${ns}/pods`, {
        body: {
          metadata: {
            name: `p-${i}`,
            labels: naked
              ? { app: 'naked' }
              : { ...template(n, k).metadata.labels, 'pod-template-hash': 'cur' },
            ...(naked ? {} : { ownerReferences: [owners[k]!] }),
          },
          spec: {
            containers: naked
              ? [{ name: 'app', image: `registry.example.com/naked/app${i % 7}:v1` }, SIDECAR]
              : template(n, k).spec.containers,
          },
        },
      });
    });
    if (n % 100 === 0) log(`seeded ${n} namespaces (${Math.round((Date.now() - tSeed) / 1000)} s)`);
  });
  seeders[1]!.close();
  out['seeding the API server (s)'] = Math.round((Date.now() - tSeed) / 1000);
  log(`seeded in ${out['seeding the API server (s)']} s`);

  // Start-up and first build at the default write rate.
  const asAdmin = f.identity === 'admin';
  const daemonConfig = asAdmin
    ? ctx.kubeconfig
    : path.join(path.dirname(ctx.kubeconfig), 'daemon.kubeconfig');
  if (!asAdmin) out['daemon identity'] = await apf.daemonKubeconfig(rest, kc, daemonConfig);
  const before = await apiMetrics();
  const level = apf.sampleLevel(kc);
  const t0 = Date.now();
  // --workers, --kube-api-qps and --kube-api-burst pass through to the daemon (a faster first
  // build for a memory-only run: say so when reporting it).
  const pass = ['workers', 'kube-api-qps', 'kube-api-burst'].flatMap((k) => (f[k] ? [`--${k}`, f[k]] : []));
  // The daemon's V8 settings as deploy/deployment.yaml gives them (its heap cap).
  const d = await startWatchDaemon(daemonConfig, ['--resync-period', f.resync ?? '3m', ...pass], {
    nodeOptions: deployedNodeOptions(),
  });
  try {
    await until('every Pod cached', async () => (await cachedPods(d)) >= PODS, 1_800_000, 500);
    out['start-up: every Pod listed and cached (ms)'] = Date.now() - t0;
    const built = await settle(d, NSS);
    const peaks = await level.stop();
    out[`start-up: first build settled (s; at --kube-api-qps ${f['kube-api-qps'] ?? '50 (default)'})`] =
      Math.round((Date.now() - t0 - 5000) / 1000);
    const after = await apiMetrics();
    const req = (t: string) => metricSum(t, 'apiserver_request_total');
    const imgWrites = (t: string) =>
      ['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'CREATE', 'UPDATE'].reduce(
        (n, v) => n + metricSum(t, 'apiserver_request_total', { resource: 'images', verb: v }),
        0,
      );
    out['start-up: requests the API server served'] = req(after) - req(before);
    out['start-up: Image writes'] = imgWrites(after) - imgWrites(before);
    out['start-up: rebuilds'] = built;
    const mem = hwm(d.proc.pid!);
    out['daemon RSS after the first build / peak (MB; target peak < 300)'] = `${mem.rss} / ${mem.hwm}`;
    out['daemon heap used / heap total / external, after the first build (MB)'] = heapFigures(
      await daemonMetrics(d),
    );
    const disp = (t: string) =>
      metricBy(t, 'apiserver_flowcontrol_dispatched_requests_total', 'priority_level');
    const [db, da] = [disp(before), disp(after)];
    out['APF: requests dispatched during start-up, by priority level'] =
      [...da].map(([k, v]) => `${k} ${v - (db.get(k) ?? 0)}`).join(', ') || 'n/a';
    Object.assign(out, apf.apfFigures(before, after, peaks));
    log(JSON.stringify(out));
    if (process.env.INV_BENCH_BASELINE) {
      d.proc.kill('SIGTERM');
      await d.exited;
      Object.assign(out, await sideBySide(daemonConfig, PODS, NSS, [...pass], Number(f.rounds ?? 3)));
      return out;
    }
    if (f.phases === 'startup') return out;

    // A no-op resync of every namespace.
    if (f['skip-resync'] === undefined) {
      const w0 = imgWrites(await apiMetrics());
      const r0 = await rebuilds(d);
      const tr = Date.now();
      await until(
        'a resync of every namespace',
        async () => (await rebuilds(d)) >= r0 + NSS,
        1_800_000,
        1000,
      );
      out[`no-op resync of all ${NSS} namespaces: Image writes (target 0)`] =
        imgWrites(await apiMetrics()) - w0;
      out[
        'no-op resync: from the first rebuild after settling to the last (s, incl. the wait for the period)'
      ] = Math.round((Date.now() - tr) / 1000);
    }

    // Latency under churn: 100 Pods per second created and deleted in other namespaces.
    const NS = nss[0]!;
    let stop = false;
    let churned = 0;
    // The churn has its own clients: one client keeps at most 32 connections, and with the API
    // server answering in ~0.5 s on the loaded machine, 32 connections carry only ~64 operations
    // per second (the 83/s of the earlier run). 4 clients and up to 256 pairs in flight.
    const churners = Array.from({ length: 4 }, () => new KubeRest(kc));
    const churn = (async () => {
      let i = 0;
      const inflight = new Set<Promise<unknown>>();
      let next = Date.now();
      while (!stop) {
        const ns = nss[1 + (i % (nss.length - 1))]!;
        const name = `churn-${i}`;
        const rest = churners[i % churners.length]!;
        const p = rest
          .request('POST', `/api/v1/namespaces/${ns}/pods`, {
            body: {
              metadata: { name },
              spec: { containers: [{ name: 'c', image: 'registry.example.com/churn:1' }] },
            },
          })
          .then(() =>
            rest.request('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`, {
              query: { gracePeriodSeconds: 0 },
            }),
          )
          .then(
            () => void (churned += 2),
            () => undefined,
          );
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
        i++;
        next += 20; // 50 creates + 50 deletes per second
        const wait = next - Date.now();
        if (wait > 0) await sleep(wait);
        else if (inflight.size > 256) await Promise.race(inflight);
      }
      await Promise.all(inflight);
      for (const c of churners) c.close();
    })();
    const seen = new Map<string, number>();
    const imgs = new Informer<ImageResource>({
      name: 'bench-images',
      rest,
      path: imagesPath(NS),
      strip: (o) => o as ImageResource,
    });
    const note = (o: ImageResource) => {
      if (o.spec?.image && !seen.has(o.spec.image)) seen.set(o.spec.image, Date.now());
    };
    imgs.addHandlers({ onAdd: note, onUpdate: (_a, b) => note(b) });
    const ctl = new AbortController();
    void imgs.run(ctl.signal);
    await imgs.waitForSync(ctl.signal);
    const lat: number[] = [];
    const m0 = await daemonMetrics(d);
    let maxDepth = 0;
    const sampler = setInterval(() => {
      void daemonMetrics(d).then(
        (t) => (maxDepth = Math.max(maxDepth, metricSum(t, 'inv_workqueue_depth'))),
        () => undefined,
      );
    }, 250);
    d.watchNamespace = NS;
    const cpu0 = process.cpuUsage();
    const tc = Date.now();
    for (let k = 1; k <= 50; k++) {
      const ref = `docker.io/lat/web:${k}`;
      const t = Date.now();
      await rest.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/web-0`, {
        body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: `lat/web:${k}` }],
        contentType: 'application/json-patch+json',
      });
      await until(`Image ${ref}`, () => seen.has(ref), 60_000, 2);
      lat.push(seen.get(ref)! - t);
    }
    stop = true;
    clearInterval(sampler);
    d.watchNamespace = undefined;
    const m1 = await daemonMetrics(d);
    await churn;
    ctl.abort();
    // Where the time went (the daemon's own metrics over the churn phase, and its log lines of
    // the measured namespace's rebuilds: delay = first event → rebuild start, ms = the rebuild).
    const avg = (name: string) => {
      const n = metricSum(m1, `${name}_count`) - metricSum(m0, `${name}_count`);
      return n
        ? `${Math.round(((metricSum(m1, `${name}_sum`) - metricSum(m0, `${name}_sum`)) / n) * 1000)} ms avg over ${n}`
        : 'none';
    };
    out['under churn: work-queue wait per key'] = avg('inv_workqueue_queue_duration_seconds');
    out['under churn: event → rebuild start per namespace'] = avg('inv_rebuild_delay_seconds');
    out['under churn: rebuild duration'] = avg('inv_rebuild_duration_seconds');
    out['under churn: rate-limit wait per write'] = avg('inv_rest_client_rate_limiter_duration_seconds');
    out['under churn: max work-queue depth (sampled 4/s)'] = maxDepth;
    const secs = (Date.now() - tc) / 1000;
    const cpu1 = process.cpuUsage(cpu0);
    out['under churn: CPU of the daemon / of this bench process (% of one core)'] =
      `${Math.round(((metricSum(m1, 'process_cpu_seconds_total') - metricSum(m0, 'process_cpu_seconds_total')) / secs) * 100)} / ${Math.round(((cpu1.user + cpu1.system) / 1e6 / secs) * 100)}`;
    out['under churn: rebuilds/s, Image creates+updates+deletes/s'] =
      `${Math.round((metricSum(m1, 'inv_rebuilds_total') - metricSum(m0, 'inv_rebuilds_total')) / secs)}, ${Math.round(['inv_images_created_total', 'inv_images_updated_total', 'inv_images_deleted_total'].reduce((n, k) => n + metricSum(m1, k) - metricSum(m0, k), 0) / secs)}`;
    const own = d.rebuilt.filter((r) => r.delayMs !== undefined);
    if (own.length)
      out[
        `measured namespace: event → rebuild start p50 / p99, rebuild p50 / p99 (ms, ${own.length} rebuilds)`
      ] = `${pct(
        own.map((r) => r.delayMs!),
        50,
      )} / ${pct(
        own.map((r) => r.delayMs!),
        99,
      )}, ${pct(
        own.map((r) => r.ms),
        50,
      )} / ${pct(
        own.map((r) => r.ms),
        99,
      )}`;
    out['change → Image, under churn: p50 / p99 (ms; target p99 < 1000)'] =
      `${pct(lat, 50)} / ${pct(lat, 99)}`;
    out['churn meanwhile (Pod operations per second)'] = Math.round(churned / ((Date.now() - tc) / 1000));
    out['daemon peak RSS over the whole run (MB; target < 300)'] = hwm(d.proc.pid!).hwm;
    out['daemon heap used / heap total / external, at the end (MB)'] = heapFigures(await daemonMetrics(d));
  } finally {
    await level.stop();
    d.proc.kill('SIGTERM');
    await d.exited;
    rest.close();
  }
  return out;
}
