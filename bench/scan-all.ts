// `npm run bench scan-all [-- --namespaces 10000]`: `inv scan -A` over 10,000 namespaces (issue
// 32) against `kubectl get pods,deployments,statefulsets,daemonsets,jobs,cronjobs -A -o json` on
// the same data, both as child processes measured alike (wall time, wait4's peak RSS:
// bench/_rusage.ts). Each namespace holds what a cluster's does: a Deployment with its current
// and old ReplicaSet and 2 Pods, and by turns a StatefulSet, a DaemonSet, a CronJob with its Job,
// a Job, each with its Pod, or a naked Pod. Measured: the read-only full scan (--dry-run), then,
// unless --write false, the writing scan that creates every namespace's Images. Seeding is
// parallel with bounded concurrency (--seed-concurrency, default 32). kubectl runs --rounds times
// (default 3), alternating with the dry-run scan, which runs once unless --dry-run-rounds all.
// Never fails on timing.
import { KubeConfig } from '@kubernetes/client-node';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forEachConcurrent, range } from '../src/core/concurrency.js';
import { installCrds } from '../src/core/kube/crd-install.js';
import { isAlreadyExists, KubeApiError, KubeRest } from '../src/core/kube/rest.js';
import { deploymentOwner, type OwnerRef, type PodTemplate } from './_replicasets.js';
import { apiServerMetrics, sumOf } from './_apf.js';
import { measure, type Measured } from './_rusage.js';

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
    const made = await seedNamespace(rest, nss[i]!, i);
    objects += made;
    if (i % 1000 === 999) log(`seeded ${i + 1} namespaces (${Math.round((Date.now() - t0) / 1000)} s)`);
  });
  const seedS = Math.round((Date.now() - t0) / 1000);
  out.size = `${NSS} namespaces holding ${objects} objects (and their default ServiceAccounts)`;
  out[`seeding (s; ${SEED} creates at a time)`] =
    `${seedS} (${Math.round((2 * NSS + objects) / seedS)} creates/s)`;
  log(`seeded in ${seedS} s`);

  const env = { ...process.env, NO_COLOR: '1' };
  const inv = (args: string[]) =>
    measure(
      [
        process.execPath,
        path.join(repoRoot, 'bin', 'run.js'),
        'scan',
        '-A',
        '--kubeconfig',
        ctx.kubeconfig,
        ...args,
      ],
      env,
    );
  const requests = async () => sumOf(await apiServerMetrics(kc), 'apiserver_request_total');
  const run = async (what: string, go: () => Promise<Measured>) => {
    const r0 = await requests();
    const m = await go();
    const served = (await requests()) - r0 - 1; // the first metrics GET is counted
    if (m.code !== 0) throw new Error(`${what} exited ${m.code}: ${m.stderrTail}`);
    log(`${what}: ${m.wallMs} ms, peak RSS ${m.peakRssMB} MB, ${mb(m.stdoutBytes)} out, ${served} requests`);
    return { ...m, served };
  };

  const k: Awaited<ReturnType<typeof run>>[] = [];
  const d: Awaited<ReturnType<typeof run>>[] = [];
  // Alternating, so both see the same load on the shared machine.
  for (let i = 0; i < ROUNDS; i++) {
    k.push(
      await run('kubectl get -A -o json', () =>
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
        ),
      ),
    );
    if (i === 0 || f['dry-run-rounds'] === 'all')
      d.push(await run('inv scan -A --dry-run', () => inv(['--dry-run', '-o', 'json'])));
  }
  const km = { wall: median(k.map((x) => x.wallMs)), rss: median(k.map((x) => x.peakRssMB)) };
  const dm = { wall: median(d.map((x) => x.wallMs)), rss: median(d.map((x) => x.peakRssMB)) };
  out[`kubectl get <6 kinds> -A -o json: time / peak RSS (median of ${k.length})`] =
    `${(km.wall / 1000).toFixed(1)} s / ${km.rss} MB (${k[0]!.served} requests, ${mb(k[0]!.stdoutBytes)} of JSON)`;
  out[`inv scan -A --dry-run -o json: time / peak RSS (${d.length} run${d.length > 1 ? 's, median' : ''})`] =
    `${(dm.wall / 1000).toFixed(1)} s / ${dm.rss} MB (${d[0]!.served} requests, ${mb(d[0]!.stdoutBytes)} of JSON)`;
  out['inv / kubectl: time, peak RSS'] =
    `${(dm.wall / km.wall).toFixed(1)}×, ${(dm.rss / km.rss).toFixed(1)}×`;

  if (f.write !== 'false') {
    const w = await run('inv scan -A (writing)', () => inv(['-o', 'json']));
    const images = (await rest.list('/apis/imageinventory.dev/v1alpha1/images')).items.length;
    out['inv scan -A, writing every Image: time / peak RSS'] =
      `${(w.wallMs / 1000).toFixed(1)} s / ${w.peakRssMB} MB (${w.served} requests, ${images} Images created)`;
  }
  rest.close();
  return out;
}
