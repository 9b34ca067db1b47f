// The daemon as a cluster runs it, for the benches' priority-and-fairness figures: the bench's
// own credentials are the API server's admin (system:masters), whose requests APF classifies
// `exempt`, so nothing they do can be queued or rejected. daemonKubeconfig() gives `inv watch`
// the identity `inv install` gives it instead: the ServiceAccount, ClusterRole, Role and their
// bindings read from deploy/ (the same objects, src/core/install/bundle.ts), and a token from
// the TokenRequest API. Its requests then fall in the `service-accounts` FlowSchema, priority
// level `workload-low`, by the API server's default APF configuration.
//
// apfFigures() reads the API server's own metrics (apiserver_flowcontrol_*) before and after.
import type { KubeConfig } from '@kubernetes/client-node';
import fs from 'node:fs';
import https from 'node:https';
import { readBundle } from '../../src/core/install/bundle.js';
import { applyObject } from '../../src/core/kube/apply.js';
import type { KubeRest } from '../../src/core/kube/rest.js';

/** The API server's /metrics (a Prometheus text exposition), with the kubeconfig's credentials. */
export async function apiServerMetrics(kc: KubeConfig): Promise<string> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const url = new URL('/metrics', kc.getCurrentCluster()!.server);
  return new Promise((resolve, reject) => {
    https
      .get(
        url,
        { ca: opts.ca, cert: opts.cert, key: opts.key, headers: opts.headers, timeout: 30_000 },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(body));
        },
      )
      .on('timeout', function (this: import('node:http').ClientRequest) {
        this.destroy(new Error('GET /metrics timed out'));
      })
      .on('error', reject);
  });
}

interface Sample {
  labels: Record<string, string>;
  value: number;
}
/** The samples of metric `name` (exact name: `_bucket` etc. are separate names). */
export function samples(text: string, name: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    const labels: Record<string, string> = {};
    const brace = line.indexOf('}');
    if (line[name.length] === '{')
      for (const m of line.slice(name.length + 1, brace).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
        labels[m[1]!] = m[2]!;
    out.push({ labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return out;
}
/** Sum of `name` over the samples whose labels include every `want`. */
export function sumOf(text: string, name: string, want: Record<string, string> = {}): number {
  return samples(text, name)
    .filter((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

export const DAEMON_FLOW = { flow_schema: 'service-accounts', priority_level: 'workload-low' };

/**
 * Applies the daemon's RBAC from deploy/ (as `inv install` does) and writes a kubeconfig with a
 * TokenRequest token of its ServiceAccount to `file`. Returns the ServiceAccount's user name.
 */
export async function daemonKubeconfig(admin: KubeRest, kc: KubeConfig, file: string): Promise<string> {
  const kinds = new Set([
    'Namespace',
    'ServiceAccount',
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
  ]);
  const objs = readBundle().filter((o) => kinds.has(o.kind));
  for (const kind of kinds)
    for (const o of objs.filter((x) => x.kind === kind)) await applyObject(admin, o, { force: true });
  const sa = objs.find((o) => o.kind === 'ServiceAccount')!;
  const ns = sa.metadata.namespace!;
  const { status } = await admin.request<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${ns}/serviceaccounts/${sa.metadata.name}/token`,
    {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 24 * 3600 },
      },
    },
  );
  const cluster = kc.getCurrentCluster()!;
  const ca =
    cluster.caData ?? (cluster.caFile ? fs.readFileSync(cluster.caFile).toString('base64') : undefined);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'c', cluster: { server: cluster.server, ...(ca ? { 'certificate-authority-data': ca } : {}) } },
    ],
    users: [{ name: 'daemon', user: { token: status.token } }],
    contexts: [{ name: 'daemon', context: { cluster: 'c', user: 'daemon', namespace: ns } }],
    'current-context': 'daemon',
  };
  fs.writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return `system:serviceaccount:${ns}:${sa.metadata.name}`;
}

/** The q-quantile of a cumulative histogram's bucket deltas (upper bound of the bucket it falls in). */
function quantile(
  before: string,
  after: string,
  name: string,
  want: Record<string, string>,
  q: number,
): string {
  const counts = new Map<string, number>();
  for (const [text, sign] of [
    [after, 1],
    [before, -1],
  ] as const)
    for (const s of samples(text, `${name}_bucket`))
      if (Object.entries(want).every(([k, v]) => s.labels[k] === v))
        counts.set(s.labels.le!, (counts.get(s.labels.le!) ?? 0) + sign * s.value);
  const buckets = [...counts]
    .map(([le, n]) => ({ le: le === '+Inf' ? Infinity : Number(le), n }))
    .sort((a, b) => a.le - b.le);
  const total = buckets.at(-1)?.n ?? 0;
  if (!total) return 'no requests';
  const b = buckets.find((x) => x.n >= q * total)!;
  return b.le === Infinity ? `> ${buckets.at(-2)?.le} s` : `≤ ${b.le * 1000} ms`;
}

/** Priority-and-fairness figures for the daemon's flow between two scrapes of /metrics. */
export function apfFigures(
  before: string,
  after: string,
  peaks: LevelPeaks,
): Record<string, string | number> {
  const delta = (name: string, want: Record<string, string>) =>
    sumOf(after, name, want) - sumOf(before, name, want);
  const seats = samples(after, 'apiserver_flowcontrol_nominal_limit_seats');
  const total = seats.reduce((n, s) => n + s.value, 0);
  const mine = seats.find((s) => s.labels.priority_level === DAEMON_FLOW.priority_level)?.value ?? 0;
  const dispatchedAll = delta('apiserver_flowcontrol_dispatched_requests_total', {});
  const exempt = delta('apiserver_flowcontrol_dispatched_requests_total', { priority_level: 'exempt' });
  return {
    [`APF: the daemon's requests dispatched (flow schema ${DAEMON_FLOW.flow_schema}, level ${DAEMON_FLOW.priority_level})`]:
      delta('apiserver_flowcontrol_dispatched_requests_total', DAEMON_FLOW),
    "APF: the daemon's requests rejected (target 0)": delta(
      'apiserver_flowcontrol_rejected_requests_total',
      DAEMON_FLOW,
    ),
    'APF: rejected at any non-exempt level': delta('apiserver_flowcontrol_rejected_requests_total', {}),
    "APF: queue wait of the daemon's requests, p50 / p99": `${quantile(before, after, 'apiserver_flowcontrol_request_wait_duration_seconds', { ...DAEMON_FLOW, execute: 'true' }, 0.5)} / ${quantile(before, after, 'apiserver_flowcontrol_request_wait_duration_seconds', { ...DAEMON_FLOW, execute: 'true' }, 0.99)}`,
    [`APF: ${DAEMON_FLOW.priority_level}'s nominal share`]: `${mine} of ${total} seats (${((100 * mine) / (total || 1)).toFixed(0)}%)`,
    'APF: peak seats in use at the level / requests queued (sampled every second)': `${peaks.seats} / ${peaks.inqueue}`,
    "APF: all dispatched meanwhile (exempt: the bench's own admin requests)": `${dispatchedAll} (exempt ${exempt})`,
  };
}

export interface LevelPeaks {
  /** Requests waiting in the level's queues. */
  inqueue: number;
  /** Seats the level's executing requests occupy (its nominal limit bounds them). */
  seats: number;
}

/** Samples the daemon's priority level every second until stopped; resolves with the peaks. */
export function sampleLevel(kc: KubeConfig): { stop: () => Promise<LevelPeaks> } {
  const peak: LevelPeaks = { inqueue: 0, seats: 0 };
  const level = { priority_level: DAEMON_FLOW.priority_level };
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const t = await apiServerMetrics(kc);
        peak.inqueue = Math.max(
          peak.inqueue,
          sumOf(t, 'apiserver_flowcontrol_current_inqueue_requests', level),
        );
        peak.seats = Math.max(peak.seats, sumOf(t, 'apiserver_flowcontrol_current_executing_seats', level));
      } catch {
        // a missed sample is only a missed sample
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return peak;
    },
  };
}
