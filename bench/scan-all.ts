// `npm run bench scan-all [-- --namespaces 10000 --shape deploy3]`: `inv scan -A` across many
// namespaces (issues 32, 56) against `kubectl get pods,deployments,statefulsets,daemonsets,jobs,
// cronjobs -A -o json` on the same data, both as child processes measured alike (wall time,
// wait4's peak RSS: bench/support/rusage.ts), alternating rounds (--rounds, default 3). Shapes
// (--shape): `deploy3` (default), each namespace a Deployment at 0 and 3 Pods; `pods`, each
// namespace --pods-per-namespace (500) Pods; `mixed`, each namespace a Deployment with its
// current and old ReplicaSet and 2 Pods, and by turns a StatefulSet, a DaemonSet, a CronJob with
// its Job, a Job, each with its Pod, or a naked Pod. With INV_BENCH_BASELINE=<a built checkout>,
// that checkout's `inv scan -A --dry-run` runs in the same rounds. Then, unless --write false:
// the API server's create ceiling (bare Image POSTs, bench/support/write-ceiling.ts), the writing scan
// at each --write-concurrency (default 4,16; the Images are removed between them), and unless
// --daemon false, `inv watch`'s first build over the same namespaces (every Pod cached, every
// namespace rebuilt). Seeding is parallel (--seed-concurrency, default 32). inv runs from its
// bundle (INV_BUNDLE=1: what the package and the image run), not the checkout's tsc output with
// node_modules, whose module loading alone costs about a hundred megabytes more. Never fails on
// timing.
import { KubeConfig } from '@kubernetes/client-node';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forEachConcurrent, range } from '../src/core/concurrency.js';
import { installCrds } from '../src/core/kube/crd-install.js';
import { isAlreadyExists, KubeApiError, KubeRest } from '../src/core/kube/rest.js';
import { deploymentOwner, type OwnerRef, type PodTemplate } from './support/replicasets.js';
import { apiServerMetrics, sumOf } from './support/apf.js';
import { measure, type Measured } from './support/rusage.js';
import { seedDeploy3, seedPods } from './support/scan-shapes.js';
import { createCeiling } from './support/write-ceiling.js';
import { daemonMetrics, startWatchDaemon } from './support/daemon.js';
import { deployedNodeOptions, hwm } from './support/proc.js';
import { sleep as wait, until } from './support/wait.js';
import { imagesPath } from '../src/core/inventory/image-resource.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// The same-release kubectl that scripts/cluster.mjs builds (INV_K8S_VERSION picks the release).
const kubectl = (
  (await import(path.join(repoRoot, 'scripts', 'cluster.mjs'))) as { binaries: { kubectl: string } }
).binaries.kubectl;
const log = (m: string) => process.stderr.write(`bench scan-all: ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Created {
  metadata: { name: string; uid: string };
}
const owner = (apiVersion: string, kind: string, o: Created): OwnerRef => ({
  apiVersion,
  kind,
  name: o.metadata.name,
  uid: o.metadata.uid,
  controller: true,
  blockOwnerDeletion: true,
});
const SIDECAR = { name: 'proxy', image: 'registry.example.com/mesh/proxy:1.2' };
const tmpl = (app: string, image: string): PodTemplate => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image }, SIDECAR] },
});

/** The Pods wait for the namespace's default ServiceAccount (made by the API server's controller). */
async function createPod(rest: KubeRest, ns: string, body: object): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await rest.request('POST', `/api/v1/namespaces/${ns}/pods`, { body });
      return;
    } catch (e) {
      if (!(e instanceof KubeApiError && e.code === 403 && /service ?account/i.test(e.message)) || i >= 200)
        throw e;
      await sleep(100);
    }
  }
}

/** Namespace n's workloads; returns the number of objects created. */
async function seedNamespace(rest: KubeRest, ns: string, n: number): Promise<number> {
  const apps = `/apis/apps/v1/namespaces/${ns}`;
  const batch = `/apis/batch/v1/namespaces/${ns}`;
  const podOf = async (name: string, t: PodTemplate, by?: OwnerRef, extra: Record<string, string> = {}) => {
    await createPod(rest, ns, {
      metadata: {
        name,
        labels: { ...t.metadata.labels, ...extra },
        ...(by ? { ownerReferences: [by] } : {}),
      },
      spec: { ...t.spec, restartPolicy: by?.kind === 'Job' ? 'Never' : 'Always' },
    });
  };
  let objects = 0;
  // Every namespace: a Deployment (2 ReplicaSets) and its 2 Pods.
  const web = tmpl('web', `registry.example.com/team${n % 50}/web:v${n % 3}`);
  const rs = await deploymentOwner(rest, ns, 'web', web);
  for (const i of [0, 1]) await podOf(`web-cur-${i}`, web, rs, { 'pod-template-hash': 'cur' });
  objects += 5;
  const turn = n % 10;
  if (turn === 0 || turn === 4 || turn === 8) {
    const db = tmpl('db', 'docker.io/library/postgres:16');
    const s = await rest.request<Created>('POST', `${apps}/statefulsets`, {
      body: {
        metadata: { name: 'db' },
        spec: { serviceName: 'db', selector: { matchLabels: db.metadata.labels }, template: db },
      },
    });
    await podOf('db-0', db, owner('apps/v1', 'StatefulSet', s));
    objects += 2;
  }
  if (turn === 1 || turn === 6) {
    const agent = tmpl('agent', 'registry.example.com/ops/node-agent:2.1');
    const d = await rest.request<Created>('POST', `${apps}/daemonsets`, {
      body: {
        metadata: { name: 'agent' },
        spec: { selector: { matchLabels: agent.metadata.labels }, template: agent },
      },
    });
    await podOf('agent-x', agent, owner('apps/v1', 'DaemonSet', d));
    objects += 2;
  }
  if (turn === 2 || turn === 7) {
    const job = tmpl('report', `registry.example.com/team${n % 50}/report:v1`);
    const jobSpec = { template: { spec: { ...job.spec, restartPolicy: 'Never' } } };
    const c = await rest.request<Created>('POST', `${batch}/cronjobs`, {
      body: { metadata: { name: 'report' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: jobSpec } } },
    });
    const j = await rest.request<Created>('POST', `${batch}/jobs`, {
      body: {
        metadata: { name: 'report-29000000', ownerReferences: [owner('batch/v1', 'CronJob', c)] },
        spec: jobSpec,
      },
    });
    await podOf('report-29000000-x', job, owner('batch/v1', 'Job', j));
    objects += 3;
  }
  if (turn === 3) {
    const mig = tmpl('migrate', `registry.example.com/team${n % 50}/migrate:v${n % 3}`);
    const j = await rest.request<Created>('POST', `${batch}/jobs`, {
      body: {
        metadata: { name: 'migrate' },
        spec: { template: { spec: { ...mig.spec, restartPolicy: 'Never' } } },
      },
    });
    await podOf('migrate-x', mig, owner('batch/v1', 'Job', j));
    objects += 2;
  }
  if (turn === 5) {
    await podOf('debug', tmpl('debug', 'docker.io/library/busybox:1.36'));
    objects += 1;
  }
  return objects;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function main(ctx: {
  kubeconfig: string;
  flags?: Record<string, string>;
}): Promise<Record<string, number | string>> {
  const f = ctx.flags ?? {};
  const NSS = Number(f.namespaces ?? 10_000);
  const SHAPE = f.shape ?? 'deploy3';
  const PER_NS = Number(f['pods-per-namespace'] ?? 500);
  const seed = (ns: string, i: number) =>
    SHAPE === 'mixed'
      ? seedNamespace(rest, ns, i)
      : SHAPE === 'pods'
        ? seedPods(rest, ns, i, PER_NS)
        : seedDeploy3(rest, ns, i);
  const SEED = Number(f['seed-concurrency'] ?? 32);
  const ROUNDS = Number(f.rounds ?? 3);
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfig);
  const rest = new KubeRest(kc);
  await installCrds(rest);
  const out: Record<string, number | string> = {};

  // Seed: each namespace with its default ServiceAccount, made here: the test API server's
  // ServiceAccounts controller makes them at its client's default 5 per second (half an hour for
  // 10,000), and Pods are refused until it exists. Then the workloads.
  const nss = range(NSS).map((i) => `ns-${String(i).padStart(5, '0')}`);
  const t0 = Date.now();
  await forEachConcurrent(range(NSS), SEED, async (i) => {
    await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: nss[i] } } });
    await rest
      .request('POST', `/api/v1/namespaces/${nss[i]}/serviceaccounts`, {
        body: { metadata: { name: 'default' } },
      })
      .catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
  });
  log(`${NSS} namespaces created in ${Math.round((Date.now() - t0) / 1000)} s`);
  let objects = 0;
  await forEachConcurrent(range(NSS), SEED, async (i) => {
    const made = await seed(nss[i]!, i);
    objects += made;
    if (i % 1000 === 999) log(`seeded ${i + 1} namespaces (${Math.round((Date.now() - t0) / 1000)} s)`);
  });
  const seedS = Math.round((Date.now() - t0) / 1000);
  out.size = `${NSS} namespaces (${SHAPE}) holding ${objects} objects (and their default ServiceAccounts)`;
  out[`seeding (s; ${SEED} creates at a time)`] =
    `${seedS} (${Math.round((2 * NSS + objects) / seedS)} creates/s)`;
  log(`seeded in ${seedS} s`);

  const env = { ...process.env, NO_COLOR: '1' };
  const invEnv = { ...env, INV_BUNDLE: '1' };
  const inv = (args: string[], root = repoRoot) =>
    measure(
      [
        process.execPath,
        path.join(root, 'bin', 'run.js'),
        'scan',
        '-A',
        '--kubeconfig',
        ctx.kubeconfig,
        ...args,
      ],
      invEnv,
    );
  const requests = async () => sumOf(await apiServerMetrics(kc), 'apiserver_request_total');
  /** Write requests on Images the API server served: creates, applies, patches, deletes. */
  const imageWrites = async () => {
    const m = await apiServerMetrics(kc);
    return ['POST', 'APPLY', 'PATCH', 'PUT', 'DELETE'].reduce(
      (n, verb) => n + sumOf(m, 'apiserver_request_total', { resource: 'images', verb }),
      0,
    );
  };
  const run = async (what: string, go: () => Promise<Measured>) => {
    const r0 = await requests();
    const m = await go();
    const served = (await requests()) - r0 - 1; // the first metrics GET is counted
    if (m.code !== 0) throw new Error(`${what} exited ${m.code}: ${m.stderrTail}`);
    log(`${what}: ${m.wallMs} ms, peak RSS ${m.peakRssMB} MB, ${mb(m.stdoutBytes)} out, ${served} requests`);
    return { ...m, served };
  };
  type Run = Awaited<ReturnType<typeof run>>;
  const kubectlGet = () =>
    measure(
      [
        kubectl,
        '--kubeconfig',
        ctx.kubeconfig,
        'get',
        'pods,deployments,statefulsets,daemonsets,jobs,cronjobs',
        '-A',
        '-o',
        'json',
      ],
      env,
    );
  const baseline = process.env.INV_BENCH_BASELINE?.split(',').filter(Boolean)[0];
  const forms: { name: string; go: () => Promise<Measured>; runs: Run[] }[] = [
    { name: 'kubectl get <6 kinds> -A -o json', go: kubectlGet, runs: [] },
    { name: 'inv scan -A --dry-run -o json', go: () => inv(['--dry-run', '-o', 'json']), runs: [] },
    ...(baseline
      ? [
          {
            name: `baseline ${path.basename(baseline)}: inv scan -A --dry-run -o json`,
            go: () => inv(['--dry-run', '-o', 'json'], path.resolve(baseline)),
            runs: [] as Run[],
          },
        ]
      : []),
  ];
  // Alternating, in turned order each round, so all see the same load on the shared machine.
  // The baseline (today's per-namespace listing is slow at 10,000 namespaces) runs in the first
  // --baseline-rounds rounds only (default: all).
  const baselineRounds = Number(f['baseline-rounds'] ?? ROUNDS);
  for (let i = 0; i < ROUNDS; i++)
    for (const form of i % 2 ? [...forms].reverse() : forms)
      if (!form.name.startsWith('baseline') || i < baselineRounds)
        form.runs.push(await run(form.name, form.go));
  const med = (r: Run[]) => ({
    wall: median(r.map((x) => x.wallMs)),
    rss: median(r.map((x) => x.peakRssMB)),
  });
  const km = med(forms[0]!.runs);
  for (const form of forms) {
    const m = med(form.runs);
    const r = form.runs[0]!;
    out[`${form.name}: time / peak RSS (median of ${form.runs.length})`] =
      `${(m.wall / 1000).toFixed(1)} s / ${m.rss} MB (${r.served} requests, ${(r.served / NSS).toFixed(2)} per namespace, ${mb(r.stdoutBytes)} of JSON)`;
    if (form !== forms[0])
      out[`${form.name} / kubectl: time, peak RSS`] =
        `${(m.wall / km.wall).toFixed(2)}×, ${(m.rss / km.rss).toFixed(2)}× (rounds: ${form.runs
          .map((x, j) => (x.wallMs / forms[0]!.runs[j]!.wallMs).toFixed(2))
          .join(', ')})`;
  }

  if (f.write !== 'false') {
    // What the API server takes: bare creates, at a few concurrencies (KubeRest's 32 connections at most).
    const levels = await createCeiling(rest, Number(f['ceiling-creates'] ?? 5000), [8, 16, 32]);
    const ceiling = Math.max(...levels.map((l) => l.perSecond));
    out['API server create ceiling: bare Image POSTs per second at 8 / 16 / 32 in flight'] = levels
      .map((l) => l.perSecond)
      .join(' / ');
    const concurrencies = (f['write-concurrency'] ?? '4,16').split(',').map(Number);
    for (const [j, c] of concurrencies.entries()) {
      if (j > 0)
        await forEachConcurrent(nss, 16, async (ns) => {
          await rest.request('DELETE', imagesPath(ns));
        });
      const w0 = await imageWrites();
      const w = await run(`inv scan -A --concurrency ${c} (writing)`, () =>
        inv(['--concurrency', String(c), '-o', 'json']),
      );
      const writes = (await imageWrites()) - w0;
      const images = (await rest.list(imagesPath())).items.length;
      const perS = (images * 1000) / w.wallMs;
      const writesS = (writes * 1000) / w.wallMs;
      out[`inv scan -A --concurrency ${c}, writing every Image: time / peak RSS`] =
        `${(w.wallMs / 1000).toFixed(1)} s / ${w.peakRssMB} MB (${w.served} requests, ${images} Images created with ${writes} write requests)`;
      out[`  --concurrency ${c}: Images/s, write requests/s; / create ceiling, in Images and in writes`] =
        `${Math.round(perS)}, ${Math.round(writesS)}; ${(perS / ceiling).toFixed(2)}×, ${(writesS / ceiling).toFixed(2)}×`;
    }
    if (f.daemon !== 'false') {
      const pods = (await rest.list('/api/v1/pods', { map: () => 0 })).items.length;
      Object.assign(out, await daemonFirstBuild(ctx.kubeconfig, NSS, pods));
    }
  }
  rest.close();
  return out;
}

/**
 * `inv watch` started over the written namespaces: every Pod cached, then every namespace's
 * first rebuild finished (the Images exist, so the build writes nothing), at the deployed V8
 * settings; its requests and peak RSS.
 */
async function daemonFirstBuild(
  kubeconfig: string,
  nss: number,
  pods: number,
): Promise<Record<string, string>> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const sum = async (name: string, labels?: Record<string, string>) =>
    sumOf(await daemonMetrics(d), name, labels);
  const r0 = sumOf(await apiServerMetrics(kc), 'apiserver_request_total');
  const t0 = Date.now();
  const d = await startWatchDaemon(kubeconfig, ['--resync-period', '30m'], {
    nodeOptions: deployedNodeOptions(),
    bundle: true,
  });
  try {
    await until(
      'every Pod cached',
      async () => (await sum('inv_cache_objects', { kind: 'Pod' })) >= pods,
      1_800_000,
      500,
    );
    const cached = Date.now() - t0;
    await until(`${nss} rebuilds`, async () => (await sum('inv_rebuilds_total')) >= nss, 3_600_000, 1000);
    const built = Date.now() - t0;
    // Settled: no rebuild for 5 s.
    for (
      let last = -1, n = await sum('inv_rebuilds_total');
      n !== last;
      last = n, await wait(5000), n = await sum('inv_rebuilds_total')
    );
    const served = sumOf(await apiServerMetrics(kc), 'apiserver_request_total') - r0 - 3;
    return {
      'inv watch first build: every Pod cached / every namespace rebuilt (s)': `${(cached / 1000).toFixed(1)} / ${(built / 1000).toFixed(1)}`,
      'inv watch first build: requests (incl. metrics polls), peak RSS': `${served}, ${hwm(d.proc.pid!).hwm} MB`,
    };
  } finally {
    d.proc.kill('SIGTERM');
    await d.exited;
  }
}
