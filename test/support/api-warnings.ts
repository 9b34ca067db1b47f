// No deprecation warning, on any Kubernetes release the tests run: every API server a run starts
// (test/cluster) records each Warning header it returns, with method, path and user agent, in
// its folder (api-warnings.jsonl); scripts/cluster.mjs's `down` hands those lines on to the
// run's log (INV_API_WARNINGS_LOG) before the folder goes. After the last test, the root hook
// below reads that log and the files of the servers still running, and fails the run on any
// warning not allowed here. A deprecated API inv calls, or a field of a manifest it ships (CRDs,
// RBAC, the Deployment, PodSecurity labels, NetworkPolicy, ServiceMonitor, PrometheusRule) that a
// release warns about, shows up here even when the client that sent it (kubectl, Helm, inv) hides
// warnings from its user.
import fs from 'node:fs';
import path from 'node:path';

export interface ApiWarning {
  cluster?: string;
  method: string;
  path: string;
  query?: string;
  userAgent: string;
  status: number;
  warning: string;
}

/** A warning a run may see, and why it is not inv's to fix. */
interface Allowed {
  userAgent?: RegExp;
  warning?: RegExp;
  path?: RegExp;
  reason: string;
}

export const ALLOWED: Allowed[] = [
  {
    // The upstream components of the whole local cluster are the release's own code: what they
    // call is not inv's choice (kube-controller-manager 1.35-1.37 still watches v1 Endpoints).
    userAgent: /^(kube-controller-manager|kube-scheduler|kubelet)\//,
    reason: "the cluster's own upstream components, not inv",
  },
  {
    // test/erase/list-limits.test.ts stores, on purpose, a list that an older CRD let through and
    // today's CEL rule refuses; the controller's write of its Error status goes through (the API
    // server ratchets unchanged fields) and 1.35 warns that the stored spec breaks the rule.
    path: /\/imagelists\/old-crd-big-[^/]+\/status$/,
    warning: /the targets take more than 1000000 bytes/,
    reason: 'a list kept from an older CRD, made by list-limits.test.ts to be refused',
  },
  {
    // test/erase/status-fit.test.ts installs, on purpose, an ImageJob CRD older than the
    // controller (no status.nodesPacked): the server drops the field it does not know and says
    // so, which is how the test sees the job fail instead of losing its results silently.
    path: /\/imagejobs\/old-crd-[^/]+\/status$/,
    warning: /^unknown field "status\.nodesPacked"$/,
    reason: 'an ImageJob CRD older than the controller, installed by status-fit.test.ts',
  },
  {
    // test/nodes/hazards/trust.test.ts: a user who may only create ImageLists tries to choose the worker
    // and the runtime socket in one; the CRD prunes the fields and the server says so.
    path: /^\/apis\/erase\.imageinventory\.dev\/v1alpha1\/imagelists$/,
    warning: /^unknown field "spec\.(worker|runtimeSocket)"$/,
    reason: "an attacker's ImageList, sent by trust.test.ts to be pruned",
  },
  {
    // test/helm/warnings.test.ts draws two warnings on purpose, with Helm 4 and Helm 3, on its own
    // API server: a privileged Pod in a namespace whose Pod Security `warn` level is restricted,
    // and a ConfigMap with a field its kind does not have. It proves Helm shows them to its user.
    userAgent: /^Helm\//,
    path: /^\/api\/v1\/namespaces\/(three|four)\/(pods|configmaps)(\/|$)/,
    warning: /^(would violate PodSecurity "restricted:latest": privileged |unknown field "notAField"$)/,
    reason: 'the warnings test/helm/warnings.test.ts draws to prove Helm shows them',
  },
];

export const allowed = (w: ApiWarning): Allowed | undefined =>
  ALLOWED.find(
    (a) =>
      (!a.userAgent || a.userAgent.test(w.userAgent)) &&
      (!a.warning || a.warning.test(w.warning)) &&
      (!a.path || a.path.test(w.path)),
  );

function read(file: string, cluster?: string): ApiWarning[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ cluster, ...(JSON.parse(l) as ApiWarning) }));
}

/** Every warning the run's API servers returned so far: stopped ones' and running ones'. */
export function runWarnings(runDir: string): ApiWarning[] {
  const out = process.env.INV_API_WARNINGS_LOG ? read(process.env.INV_API_WARNINGS_LOG) : [];
  // The run's shared server and its whole cluster's control plane are stopped by the global
  // teardown, after this check: their files are read where they are.
  for (const dir of [path.join(runDir, 'cluster'), path.join(runDir, 'nodes', 'control-plane')]) {
    out.push(...read(path.join(dir, 'api-warnings.jsonl'), dir));
  }
  return out;
}

/** Throws, listing them, when the run saw warnings that are not allowed. */
export function checkApiWarnings(runDir: string): void {
  const bad = runWarnings(runDir).filter((w) => !allowed(w));
  if (bad.length === 0) return;
  // One line per distinct warning, caller and path, with how often.
  const counts = new Map<string, number>();
  for (const w of bad) {
    const key = `${w.warning}\n      ${w.method} ${w.path} (${w.userAgent || 'no user agent'}; status ${w.status})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const lines = [...counts].slice(0, 30).map(([k, n]) => `  - ${n}x ${k}`);
  throw new Error(
    `the API server returned ${bad.length} warning(s) no test expects (test/support/api-warnings.ts):\n${lines.join('\n')}`,
  );
}
