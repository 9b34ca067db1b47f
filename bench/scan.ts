// Benchmark for `inv scan`: seeds one namespace with 5,000 Pods and 1,000 workloads in the
// real API server (the Pods owned by the Deployments' ReplicaSets, as a cluster has them), then
// times a first build, a no-op rebuild, and the bare LIST calls that any rebuild must make, and
// reports the ratio; with INV_BENCH_BASELINE, no-op rebuilds side by side with other checkouts.
// Prints figures; never fails on timing.
import { KubeConfig } from '@kubernetes/client-node';
import path from 'node:path';
import { imagesPath } from '../src/core/inventory/image-resource.js';
import { scanCluster } from '../src/core/inventory/scan.js';
import { apiVersionOf, BUILTIN } from '../src/core/inventory/source-kinds.js';
import { collectionPath, readKinds } from '../src/core/inventory/sources.js';

type SourceKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'CronJob' | 'Job' | 'Pod';
const spec = (kind: string) => BUILTIN.byKind(kind)!;
import { installCrds } from '../src/core/kube/crd-install.js';
import { isWrite, KubeRest } from '../src/core/kube/rest.js';
import { forEachConcurrent, range } from '../src/core/concurrency.js';
import { ensureNamespace } from '../src/core/kube/namespaces.js';
import { deploymentOwner, type OwnerRef, type PodTemplate } from './support/replicasets.js';

export interface BenchContext {
  kubeconfig: string;
  criEndpoint?: string;
  criDir?: string;
}

const NS = 'bench-scan';
const PODS = 5000;
const WORKLOADS = { Deployment: 400, StatefulSet: 200, DaemonSet: 150, CronJob: 150, Job: 100 } as const;
const DISTINCT_IMAGES = 400;

const img = (i: number) => `registry.example.com/team${i % 20}/app${i % DISTINCT_IMAGES}:v${i % 3}`;

const podTemplate = (i: number) => ({
  metadata: { labels: { app: `w${i}` } },
  spec: { containers: [{ name: 'c', image: img(i) }], initContainers: [{ name: 'i', image: img(i + 7) }] },
});
/** The ownerReference of each Deployment's current ReplicaSet (bench/support/replicasets.ts). */
const owners: OwnerRef[] = [];

function object(kind: SourceKind, i: number): unknown {
  const tmpl = podTemplate(i);
  const podSpec = tmpl.spec;
  const meta = { name: `${kind.toLowerCase()}-${i}`, namespace: NS };
  const apiVersion = apiVersionOf(spec(kind));
  switch (kind) {
    case 'Deployment':
    case 'DaemonSet':
      return {
        apiVersion,
        kind,
        metadata: meta,
        spec: { selector: { matchLabels: { app: `w${i}` } }, template: tmpl },
      };
    case 'StatefulSet':
      return {
        apiVersion,
        kind,
        metadata: meta,
        spec: { serviceName: 's', selector: { matchLabels: { app: `w${i}` } }, template: tmpl },
      };
    case 'CronJob':
      return {
        apiVersion,
        kind,
        metadata: meta,
        spec: {
          schedule: '@daily',
          jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
        },
      };
    case 'Job':
      return {
        apiVersion,
        kind,
        metadata: meta,
        spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } },
      };
    case 'Pod':
      // Mostly owned Pods (by the current ReplicaSet of a Deployment, running its template),
      // some naked.
      return i % 10 === 0
        ? { apiVersion, kind, metadata: meta, spec: podSpec }
        : {
            apiVersion,
            kind,
            metadata: {
              ...meta,
              labels: { app: `w${i % WORKLOADS.Deployment}`, 'pod-template-hash': 'cur' },
              ownerReferences: [owners[i % WORKLOADS.Deployment]!],
            },
            spec: podTemplate(i % WORKLOADS.Deployment).spec,
          };
  }
}

const tmpl = (i: number) => podTemplate(i) as unknown as PodTemplate;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const r = await fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, r];
}

export async function main(ctx: BenchContext): Promise<Record<string, number | string>> {
  const kc = new KubeConfig();
  kc.loadFromFile(ctx.kubeconfig);
  const rest = new KubeRest(kc);
  await installCrds(rest);
  await ensureNamespace(rest, NS);
  const seed: [SourceKind, number][] = [
    ...(Object.entries(WORKLOADS) as [SourceKind, number][]),
    ['Pod', PODS],
  ];
  const [seedMs] = await timed(async () => {
    for (const [kind, count] of seed) {
      await forEachConcurrent(range(count), 16, async (i) => {
        const o = await rest.request<{ metadata: { name: string; uid: string } }>(
          'POST',
          collectionPath(spec(kind), NS),
          { body: object(kind, i) },
        );
        // A Deployment's ReplicaSets, before the Pods that they own.
        if (kind === 'Deployment') owners[i] = await deploymentOwner(rest, NS, o.metadata.name, tmpl(i), o);
      });
    }
  });
  process.stderr.write(
    `bench scan: seeded ${PODS} Pods + 1,000 workloads + 800 ReplicaSets in ${(seedMs / 1000).toFixed(1)} s\n`,
  );

  const scanOnce = async (ownerLists: 'when-needed' | 'always' = 'when-needed') => {
    const r = new KubeRest(kc);
    let writes = 0;
    r.onRequest = (m) => (writes += isWrite(m) ? 1 : 0);
    const [ms, report] = await timed(() => scanCluster(r, { namespaces: [NS], ownerLists }));
    r.close();
    if (report.failures.length) throw new Error(`scan failed: ${JSON.stringify(report.failures)}`);
    return { ms, writes, images: report.results[0]!.images.length };
  };
  const first = await scanOnce();
  // No-op rebuilds, alternating: as shipped (the Pods' ReplicaSets settled by name, so no
  // ReplicaSet LIST here), and always listing the ReplicaSets' metadata (issue 28 as it landed).
  const noops: { ms: number; writes: number }[] = [];
  const always: number[] = [];
  for (let i = 0; i < 7; i++) {
    noops.push(await scanOnce());
    always.push((await scanOnce('always')).ms);
  }

  // The bare LIST calls a rebuild needs (same collections, same page size), parse only; and the
  // same without the ReplicaSets (what a rebuild listed before issue 28). Alternating.
  const bare: number[] = [];
  const bareNoOwners: number[] = [];
  const bareOnce = async (withOwners: boolean) => {
    const r = new KubeRest(kc);
    const ks = withOwners ? readKinds() : BUILTIN.all;
    const [ms] = await timed(() =>
      Promise.all([...ks.map((k) => r.list(collectionPath(k, NS))), r.list(imagesPath(NS))]),
    );
    r.close();
    return ms;
  };
  for (let i = 0; i < 7; i++) {
    bare.push(await bareOnce(true));
    bareNoOwners.push(await bareOnce(false));
  }
  // Side by side with other checkouts (INV_BENCH_BASELINE=<dir>[,<dir>...], each built): their
  // own scanCluster over their own KubeRest (paging, limits), no-op rebuilds in alternating
  // rounds with this checkout's, in this process against the same objects.
  const sideBySide: Record<string, number | string> = {};
  type ScanModule = { scanCluster: typeof scanCluster };
  type RestModule = { KubeRest: typeof KubeRest };
  const forms: { name: string; scan: ScanModule['scanCluster']; Rest: typeof KubeRest }[] = [];
  for (const dir of (process.env.INV_BENCH_BASELINE ?? '').split(',').filter(Boolean)) {
    const root = path.join(path.resolve(dir), 'dist', 'src', 'core');
    const m = (await import(path.join(root, 'inventory', 'scan.js'))) as ScanModule;
    const r = (await import(path.join(root, 'kube', 'rest.js'))) as RestModule;
    forms.push({ name: `baseline ${path.basename(dir)}`, scan: m.scanCluster, Rest: r.KubeRest });
  }
  if (forms.length) {
    forms.unshift({ name: 'this checkout', scan: scanCluster, Rest: KubeRest });
    const times = new Map(forms.map((f) => [f.name, [] as number[]]));
    for (let round = 0; round < 9; round++)
      for (const f of round % 2 ? [...forms].reverse() : forms) {
        const r = new f.Rest(kc);
        const [ms, report] = await timed(() => f.scan(r, { namespaces: [NS] }));
        r.close();
        if (report.failures.length) throw new Error(`${f.name}: scan failed`);
        times.get(f.name)!.push(ms);
      }
    const base = median(times.get('this checkout')!);
    for (const f of forms) {
      sideBySide[`${f.name}: no-op rebuild, median of 9 (ms)`] = Math.round(median(times.get(f.name)!));
      if (f.name !== 'this checkout')
        sideBySide[`this checkout / ${f.name} (no-op rebuild)`] = Number(
          (base / median(times.get(f.name)!)).toFixed(3),
        );
    }
  }
  rest.close();
  const noopMs = median(noops.map((n) => n.ms));
  const alwaysMs = median(always);
  const bareMs = median(bare);
  const bareNoOwnersMs = median(bareNoOwners);
  return {
    'objects seeded': `${PODS} Pods + 1,000 workloads + 800 ReplicaSets`,
    'distinct images': first.images,
    'first build (ms)': Math.round(first.ms),
    'first build writes': first.writes,
    'no-op rebuild, median of 7 (ms)': Math.round(noopMs),
    'no-op rebuild writes (max of 7)': Math.max(...noops.map((n) => n.writes)),
    'no-op rebuild listing ReplicaSets always (ms)': Math.round(alwaysMs),
    'bare LIST calls, median of 7 (ms)': Math.round(bareMs),
    'bare LIST calls without ReplicaSets (ms)': Math.round(bareNoOwnersMs),
    'no-op / bare LIST ratio': (noopMs / bareMs).toFixed(2),
    'no-op / bare LIST without ReplicaSets': (noopMs / bareNoOwnersMs).toFixed(2),
    'always-listing no-op / bare LIST without RS': (alwaysMs / bareNoOwnersMs).toFixed(2),
    'peak RSS (MB)': Math.round(process.resourceUsage().maxRSS / 1024),
    ...sideBySide,
  };
}
