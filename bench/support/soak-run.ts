// The soak of `inv watch` (issue 32), shared by `npm run bench soak` (an hour by default) and the
// test suite's short version (test/watch/soak.test.ts): the daemon as a child process with the
// erase controllers, Pods created and deleted at `opsPerSecond` across `namespaces` namespaces,
// an erase job on harness Nodes (on a schedule, or once), and the daemon's process read from
// /proc: RSS, open sockets, established connections to the API server (watch streams and pooled
// keep-alive sockets), plus its own count of active timers (prom-client's
// nodejs_active_resources{type="Timeout"}, from process.getActiveResourcesInfo). At the end the
// operations stop and the Images must equal what a fresh dry-run scan computes (zero changes).
import { KubeConfig } from '@kubernetes/client-node';
import fs from 'node:fs';
import { forEachConcurrent, range } from '../../src/core/concurrency.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import { isNotFound, KubeRest } from '../../src/core/kube/rest.js';
import { scanCluster } from '../../src/core/inventory/scan.js';
import { submitErase } from '../../src/core/erase-request/request.js';
import { JOB_LABEL } from '../../src/core/erase/api/types.js';
import { sleep } from './wait.js';
import { startWatchDaemon, type Daemon } from './daemon.js';
import { createReadyNodes, succeedWorker, type HarnessPod } from './harness.js';

export interface SoakOptions {
  kubeconfig: string;
  durationMs: number;
  namespaces: number;
  opsPerSecond: number;
  nodes: number;
  /** Cron schedule of the erase job (e.g. every 5 minutes); without it, one job at the start. */
  schedule?: string;
  /** Process samples are taken this often. */
  sampleMs: number;
  /** Growth is measured after this much time (the first 10 minutes of the hour). */
  warmupMs: number;
  log?: (m: string) => void;
}

export interface ProcSample {
  atMs: number;
  rssMB: number;
  sockets: number;
  apiConnections: number;
  timers: number;
}

export interface SoakResult {
  samples: ProcSample[];
  /** The sample at the end of the warm-up, and the last one (after the operations stopped and converged). */
  warm: ProcSample;
  end: ProcSample;
  peakRssMB: number;
  /** Least-squares slope of RSS after the warm-up, in MB per 10 minutes. */
  rssGrowthPer10MinMB: number;
  ops: number;
  opErrors: number;
  eraseJobs: number;
  /** Changes a fresh dry-run scan would make once the operations stopped (0: converged). */
  drift: { created: number; updated: number; deleted: number };
  convergeMs: number;
}

/** Counts from /proc: sockets of the process and its ESTABLISHED connections to `port`. */
export function procCounts(
  pid: number,
  port: number,
): { rssMB: number; sockets: number; apiConnections: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssMB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed while we looked
    }
  }
  let apiConnections = 0;
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const f of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(`/proc/${pid}/net/${f}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      // local_address rem_address st ... inode (field 9)
      if (c.length > 9 && c[2]!.endsWith(`:${hexPort}`) && c[3] === '01' && inodes.has(c[9]!))
        apiConnections++;
    }
  }
  return { rssMB: Math.round(rssMB * 10) / 10, sockets: inodes.size, apiConnections };
}

async function timers(d: Daemon): Promise<number> {
  const text = await (await fetch(`${d.metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('nodejs_active_resources{type="Timeout"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Plays the kubelet of the harness Nodes: workers succeed at once, deleted workers go away. */
async function playKubelet(rest: KubeRest, ns: string, seen: Set<string>): Promise<void> {
  const podsPath = `/api/v1/namespaces/${ns}/pods`;
  const pods = (await rest.list<HarnessPod>(podsPath, { query: { labelSelector: JOB_LABEL } })).items;
  await forEachConcurrent(pods, 8, async (pod) => {
    if (pod.metadata.deletionTimestamp) {
      await rest
        .request('DELETE', `${podsPath}/${pod.metadata.name}`, {
          body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 },
        })
        .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
      return;
    }
    if (pod.status?.phase === 'Succeeded' || seen.has(pod.metadata.name)) return;
    seen.add(pod.metadata.name);
    const message = JSON.stringify({ node: '', counts: { 'not-present': 1 }, bytes: 0, results: [] });
    await succeedWorker(rest, podsPath, pod, message);
  });
}

const IMAGES = Array.from({ length: 40 }, (_, i) => `registry.example.com/soak/app${i % 20}:v${i % 3}`);

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den ? num / den : 0;
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => undefined);
  const kc = new KubeConfig();
  kc.loadFromFile(o.kubeconfig);
  const rest = new KubeRest(kc);
  const port = Number(rest.server.port || 443);
  const tag = Math.random().toString(16).slice(2, 8);
  const eraseNs = `soak-erase-${tag}`;
  await installCrds(rest);
  await ensureNamespace(rest, eraseNs);
  await rest.request('POST', `/api/v1/namespaces/${eraseNs}/configmaps`, {
    body: {
      metadata: { name: 'inv-erase-config' },
      data: { 'config.yaml': 'delayOnSuccess: 20s\ndelayOnFailure: 20s\n' },
    },
  });
  const nodes = range(o.nodes).map((i) => `soak-node-${tag}-${String(i).padStart(4, '0')}`);
  const nss = range(o.namespaces).map((i) => `soak-${tag}-${String(i).padStart(4, '0')}`);
  log(`setting up ${nss.length} namespaces, ${nodes.length} Nodes`);
  await createReadyNodes(rest, nodes, { labels: { 'soak-node': '1' }, concurrency: 16 });
  const live = new Map<string, string[]>();
  let seq = 0;
  const createPod = async (ns: string) => {
    const name = `p${seq++}`;
    await rest.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        metadata: { name },
        spec: { containers: [{ name: 'c', image: IMAGES[Math.floor(Math.random() * IMAGES.length)]! }] },
      },
    });
    live.get(ns)!.push(name);
  };
  await forEachConcurrent(nss, 16, async (ns) => {
    await ensureNamespace(rest, ns);
    live.set(ns, []);
    await createPod(ns);
    await createPod(ns);
  });

  const d = await startWatchDaemon(o.kubeconfig, [
    '--erase-controllers',
    '--erase-namespace',
    eraseNs,
    '--erase-config-namespace',
    eraseNs,
  ]);
  const samples: ProcSample[] = [];
  const t0 = Date.now();
  const sample = async (): Promise<ProcSample> => {
    const s = { atMs: Date.now() - t0, ...procCounts(d.proc.pid!, port), timers: await timers(d) };
    samples.push(s);
    return s;
  };
  log(
    `daemon pid ${d.proc.pid}; soaking for ${Math.round(o.durationMs / 1000)} s at ${o.opsPerSecond} ops/s`,
  );
  await submitErase(rest, {
    name: `soak-${tag}`,
    images: ['docker.io/library/soak-target:1'],
    nodeSelector: 'soak-node=1',
    ...(o.schedule ? { schedule: o.schedule } : {}),
  });

  let ops = 0;
  let opErrors = 0;
  let stop = false;
  const seen = new Set<string>();
  const kubelet = (async () => {
    while (!stop) {
      await playKubelet(rest, eraseNs, seen).catch(() => undefined);
      await sleep(1000);
    }
  })();
  const load = (async () => {
    const every = 1000 / o.opsPerSecond;
    let next = Date.now();
    const inflight = new Set<Promise<void>>();
    while (!stop) {
      const ns = nss[Math.floor(Math.random() * nss.length)]!;
      const pods = live.get(ns)!;
      const op =
        pods.length >= 4 || (pods.length > 0 && Math.random() < 0.5)
          ? (async () => {
              const i = Math.floor(Math.random() * pods.length);
              const [name] = pods.splice(i, 1);
              await rest.request('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`, {
                body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 },
              });
            })()
          : createPod(ns);
      const p = op.then(
        () => void ops++,
        () => void opErrors++,
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
      next += every;
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
      else if (inflight.size > 64) await Promise.race(inflight);
    }
    await Promise.all(inflight);
  })();

  let warm: ProcSample | undefined;
  while (Date.now() - t0 < o.durationMs) {
    await sleep(Math.min(o.sampleMs, Math.max(0, o.durationMs - (Date.now() - t0))));
    const s = await sample();
    if (!warm && s.atMs >= o.warmupMs) warm = s;
    log(
      `${Math.round(s.atMs / 1000)} s: RSS ${s.rssMB} MB, sockets ${s.sockets}, API connections ${s.apiConnections}, timers ${s.timers}, ops ${ops}`,
    );
  }
  stop = true;
  await load;

  // Converged: a dry-run scan of every soak namespace would change nothing.
  const tc = Date.now();
  let drift = { created: -1, updated: -1, deleted: -1 };
  for (;;) {
    const r = await scanCluster(rest, { namespaces: nss, dryRun: true });
    drift = { created: 0, updated: 0, deleted: 0 };
    for (const x of r.results) {
      drift.created += x.counts.created;
      drift.updated += x.counts.updated;
      drift.deleted += x.counts.deleted;
    }
    if (drift.created + drift.updated + drift.deleted === 0 || Date.now() - tc > 120_000) break;
    await sleep(500);
  }
  const convergeMs = Date.now() - tc;
  await kubelet;
  // The erase job's objects are gone after delayOnSuccess: let the kubelet harness finish them.
  const end = await sample();
  const eraseJobs = new Set([...seen].map((p) => p.split('-').slice(0, -1).join('-'))).size;
  d.proc.kill('SIGTERM');
  await d.exited;
  // Growth after the warm-up, from every sample taken while the load ran.
  const after = samples.filter((s) => s.atMs >= o.warmupMs && s !== end);
  const per10 =
    slope(
      after.map((s) => s.atMs),
      after.map((s) => s.rssMB),
    ) * 600_000;
  // Leave the API server as found: the list (and its jobs), the Nodes, the namespaces.
  await rest
    .request('DELETE', `/apis/erase.imageinventory.dev/v1alpha1/imagelists/soak-${tag}`)
    .catch(() => undefined);
  await forEachConcurrent(
    [...nodes.map((n) => `/api/v1/nodes/${n}`), ...[...nss, eraseNs].map((n) => `/api/v1/namespaces/${n}`)],
    16,
    (p) =>
      rest.request('DELETE', p).then(
        () => undefined,
        () => undefined,
      ),
  );
  rest.close();
  return {
    samples,
    warm: warm ?? samples[0]!,
    end,
    peakRssMB: Math.max(...samples.map((s) => s.rssMB)),
    rssGrowthPer10MinMB: Math.round(per10 * 100) / 100,
    ops,
    opErrors,
    eraseJobs,
    drift,
    convergeMs,
  };
}
