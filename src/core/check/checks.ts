// `inv check`: a preflight and health report, one result per check, in the manner of
// `linkerd check`. Each check makes its own calls with a deadline and turns every failure into
// a result (never an exception), so one broken part cannot hide the state of the others.
import * as resources from '../kube/resources.js';
import { daemonAccessCheck, daemonRecordCheck } from './daemon-access.js';
import { CONFIG_MAP_NAME, ConfigError } from '../erase/config/config.js';
import { loadConfig, missingConfigMessage, strayExclusionLists } from '../erase/cluster/settings.js';
import { heartbeatHolder, neededPermissions } from '../erase-request/preflight.js';
import { DEFAULT_CONFIG_NAMESPACE, DEFAULT_NAMESPACE as WORKERS_NAMESPACE } from '../erase/api/types.js';
import { OUR_CRDS, CrdMissingError, type OurCrd } from '../kube/crds.js';
import { KubeApiError, isNotFound, type KubeRest } from '../kube/rest.js';
import { readKinds } from '../inventory/sources.js';
import type { SourceKindSpec } from '../inventory/source-kinds.js';
import { sourceKindsChecks } from './source-kind-checks.js';
import { serverVersionCheck } from './server-version.js';
import type { VersionInfo } from '../kube/kube-version.js';

export type { CheckResult, CheckStatus } from './result.js';
import type { CheckResult } from './result.js';

export interface CheckOptions {
  /** Namespace of the daemon and its Lease. */
  daemonNamespace: string;
  leaseName: string;
  workersNamespace?: string;
  /** Declared source kinds to check (default: the daemon's ConfigMap, when there is one). */
  sourceKinds?: SourceKindSpec[];
  /** Namespace of inv-erase-config and the exclusion lists (default: image-inventory-system). */
  configNamespace?: string;
}

export const DEFAULT_DAEMON_NAMESPACE = 'image-inventory-system';
export const DEFAULT_LEASE = 'image-inventory-controller';

const T = { timeoutMs: 10_000 };
const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e));

interface Crd {
  spec?: { versions?: { name: string; served?: boolean; storage?: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * Is the API server reachable, and is its Kubernetes version supported (server-version.ts)? One
 * GET /version answers both; when it fails there is only the first result.
 */
export async function apiServerChecks(rest: KubeRest): Promise<CheckResult[]> {
  const name = 'can reach the API server';
  try {
    const v = await rest.request<VersionInfo>('GET', '/version', T);
    return [
      { group: 'kubernetes-api', name, status: 'pass', detail: `${rest.server.host}, ${v.gitVersion}` },
      serverVersionCheck(v),
    ];
  } catch (e) {
    return [
      {
        group: 'kubernetes-api',
        name,
        status: 'fail',
        detail: msg(e),
        hint: 'check --kubeconfig/--context, and that the cluster is up',
      },
    ];
  }
}

export async function crdCheck(rest: KubeRest, crd: OurCrd): Promise<CheckResult> {
  const name = `CRD ${crd.name} is installed at ${crd.version}`;
  const fail = (detail: string, hint = 'run `inv install`'): CheckResult => ({
    group: 'crds',
    name,
    status: 'fail',
    detail,
    hint,
  });
  let cur: Crd;
  try {
    cur = await resources.get<Crd>(rest, 'CustomResourceDefinition', undefined, crd.name, T);
  } catch (e) {
    if (isNotFound(e)) return fail(new CrdMissingError(crd).message, '');
    if (e instanceof KubeApiError && e.code === 403) {
      // Reading CRDs is an admin right; discovery tells an ordinary user whether the type is served.
      try {
        const list = await rest.request<{ resources?: { name: string }[] }>(
          'GET',
          resources.groupVersionPath(crd.group, crd.version),
          T,
        );
        if ((list.resources ?? []).some((r) => r.name === crd.plural))
          return { group: 'crds', name, status: 'pass', detail: 'served (the CRD itself is not readable)' };
      } catch (e2) {
        if (!(e2 instanceof KubeApiError && e2.code === 404)) return fail(msg(e2), '');
      }
      return fail(new CrdMissingError(crd).message, '');
    }
    return fail(msg(e), '');
  }
  const versions = cur.spec?.versions ?? [];
  const v = versions.find((x) => x.name === crd.version);
  if (!v?.served)
    return fail(
      `serves ${
        versions
          .filter((x) => x.served)
          .map((x) => x.name)
          .join(', ') || 'no version'
      }, this inv needs ${crd.version}`,
      'run `inv install` with this version of inv',
    );
  if (!cur.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
    return fail('not Established yet', 'wait a moment, or look at `kubectl describe crd ' + crd.name + '`');
  return { group: 'crds', name, status: 'pass', detail: versions.map((x) => x.name).join(', ') };
}

interface Access {
  group?: string;
  resource: string;
  subresource?: string;
  verb: string;
}

// What each command needs, cluster-wide (scan -A, erase): kept next to the commands' calls.
export const SCAN_ACCESS: Access[] = [
  // The source and owner kinds of the registry (inventory/source-kinds.ts).
  ...readKinds().map((k) => ({ ...(k.group ? { group: k.group } : {}), resource: k.plural, verb: 'list' })),
  // Creates are POSTs; updates are server-side apply, which is a PATCH (src/core/inventory/image-store.ts).
  ...['list', 'create', 'patch', 'delete'].map((verb) => ({
    group: 'imageinventory.dev',
    resource: 'images',
    verb,
  })),
  // An Image CRD from before it dropped its status subresource takes the status through /status.
  { group: 'imageinventory.dev', resource: 'images', subresource: 'status', verb: 'patch' },
  { resource: 'events', verb: 'create' },
];
/** What `inv erase` needs against the daemon: the erase preflight's own list, so the two agree. */
export const ERASE_ACCESS: Access[] = neededPermissions({ workersNamespace: '', standalone: false }).map(
  ({ group, resource, subresource, verb }) => ({
    group,
    resource,
    verb,
    ...(subresource ? { subresource } : {}),
  }),
);

const describeAccess = (a: Access) =>
  `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.group ? `.${a.group}` : ''}`;

export async function accessCheck(rest: KubeRest, command: string, needs: Access[]): Promise<CheckResult> {
  const name = `may run \`inv ${command}\``;
  try {
    const answers = await Promise.all(
      needs.map((a) =>
        resources
          .create<{ status?: { allowed?: boolean } }>(
            rest,
            'SelfSubjectAccessReview',
            undefined,
            {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SelfSubjectAccessReview',
              spec: { resourceAttributes: { ...a, group: a.group ?? '' } },
            },
            T,
          )
          .then((r) => (r.status?.allowed ? undefined : describeAccess(a))),
      ),
    );
    const denied = answers.filter((x): x is string => Boolean(x));
    if (denied.length)
      return {
        group: 'permissions',
        name,
        status: 'fail',
        detail: `not allowed: ${denied.join(', ')}`,
        hint: 'ask an administrator for these verbs (see docs/security.md)',
      };
    return { group: 'permissions', name, status: 'pass', detail: `${needs.length} permissions` };
  } catch (e) {
    return { group: 'permissions', name, status: 'fail', detail: msg(e) };
  }
}

interface Lease {
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

export async function daemonCheck(
  rest: KubeRest,
  opts: CheckOptions,
  now = Date.now(),
): Promise<CheckResult> {
  const name = 'the daemon runs and holds its Lease';
  const where = `${opts.daemonNamespace}/${opts.leaseName}`;
  const hint = 'run `inv install --daemon`, or `inv watch` somewhere with a kubeconfig';
  // A daemon without leader election keeps a heartbeat Lease instead (controller/heartbeat.ts).
  const beating = async (): Promise<CheckResult | undefined> => {
    const holder = await heartbeatHolder(rest, opts.daemonNamespace, opts.leaseName, now).catch(
      () => undefined,
    );
    return holder
      ? {
          group: 'daemon',
          name,
          status: 'pass',
          detail: `heartbeat of ${holder} (no leader election) for Lease ${where}`,
        }
      : undefined;
  };
  let lease: Lease;
  try {
    lease = await resources.get<Lease>(rest, 'Lease', opts.daemonNamespace, opts.leaseName, T);
  } catch (e) {
    if (isNotFound(e))
      return (
        (await beating()) ?? { group: 'daemon', name, status: 'fail', detail: `no Lease ${where}`, hint }
      );
    return { group: 'daemon', name, status: 'fail', detail: msg(e) };
  }
  const holder = lease.spec?.holderIdentity;
  const renewed = lease.spec?.renewTime ? Date.parse(lease.spec.renewTime) : NaN;
  const duration = (lease.spec?.leaseDurationSeconds ?? 15) * 1000;
  if (!holder || Number.isNaN(renewed))
    return (
      (await beating()) ?? {
        group: 'daemon',
        name,
        status: 'fail',
        detail: `Lease ${where} has no holder`,
        hint,
      }
    );
  const age = Math.max(0, Math.round((now - renewed) / 1000));
  const detail = `Lease ${where} held by ${holder}, renewed ${age}s ago`;
  if (now - renewed > duration)
    return (
      (await beating()) ?? {
        group: 'daemon',
        name,
        status: 'fail',
        detail: `${detail}, past its ${duration / 1000}s duration`,
        hint: 'the holder stopped renewing: look at the daemon’s logs',
      }
    );
  return { group: 'daemon', name, status: 'pass', detail };
}

export async function workersNamespaceCheck(rest: KubeRest, ns: string): Promise<CheckResult> {
  const name = `namespace ${ns} exists at the privileged Pod Security level`;
  try {
    const cur = await resources.get<{ metadata: { labels?: Record<string, string> } }>(
      rest,
      'Namespace',
      undefined,
      ns,
      T,
    );
    const level = cur.metadata.labels?.['pod-security.kubernetes.io/enforce'];
    if (level !== 'privileged')
      return {
        group: 'erase',
        name,
        status: 'fail',
        detail: `pod-security.kubernetes.io/enforce is ${level ?? 'not set'}`,
        hint: `workers mount the CRI socket: label it privileged (\`inv install --daemon\` does)`,
      };
    return { group: 'erase', name, status: 'pass' };
  } catch (e) {
    // Only `inv install --daemon` (or the Helm chart) makes it: after a plain `inv install`
    // the erase workers were not asked for, so their absence is no failure of what was.
    if (isNotFound(e))
      return {
        group: 'erase',
        name,
        status: 'skip',
        detail: 'not installed',
        hint: 'erase runs its workers there; `inv install --daemon` creates it',
      };
    return { group: 'erase', name, status: 'fail', detail: msg(e) };
  }
}

export async function eraseConfigCheck(rest: KubeRest, ns: string, workersNs?: string): Promise<CheckResult> {
  const name = `ConfigMap ${ns}/${CONFIG_MAP_NAME} parses`;
  // A copy where earlier versions read it: ignored, worth a warning (loadConfig refuses it when
  // it is the only one, and says how to move it).
  let legacy = false;
  if (workersNs && workersNs !== ns)
    legacy = await resources.get(rest, 'ConfigMap', workersNs, CONFIG_MAP_NAME, T).then(
      () => true,
      () => false,
    );
  let cfg;
  try {
    cfg = await loadConfig(rest, ns, workersNs);
  } catch (e) {
    const text = msg(e);
    return {
      group: 'erase',
      name,
      status: 'fail',
      detail: text,
      hint:
        text === missingConfigMessage(ns)
          ? 'run `inv install` (it creates the configuration with every default)'
          : e instanceof ConfigError && text.startsWith(`ConfigMap ${ns}/`)
            ? 'fix the key named above (docs/erase-config.md)'
            : undefined,
    };
  }
  const policy = `allowPruneAll ${cfg.allowPruneAll}, allowUnprotected ${cfg.allowUnprotected}`;
  const stray =
    workersNs && workersNs !== ns ? await strayExclusionLists(rest, workersNs, cfg).catch(() => []) : [];
  if (stray.length)
    return {
      group: 'erase',
      name,
      status: 'warn',
      detail: `runtimeSocket ${cfg.runtimeSocket}, ${policy}; exclusion list(s) in the workers' namespace are ignored: ${stray.map((n) => `${workersNs}/${n}`).join(', ')} (exclusions are read from ${ns} only)`,
      hint: `move what you need to ${ns} (same label), then delete them from ${workersNs}`,
    };
  if (legacy)
    return {
      group: 'erase',
      name,
      status: 'warn',
      detail: `runtimeSocket ${cfg.runtimeSocket}, ${policy}; ${workersNs}/${CONFIG_MAP_NAME} is ignored (the configuration is read from ${ns} only)`,
      hint: `compare the two, keep what you need in ${ns}/${CONFIG_MAP_NAME}, then delete the old one: kubectl delete configmap ${CONFIG_MAP_NAME} -n ${workersNs}`,
    };
  return { group: 'erase', name, status: 'pass', detail: `runtimeSocket ${cfg.runtimeSocket}, ${policy}` };
}

/** Every check but --nodes, in report order. */
export async function runChecks(rest: KubeRest, opts: CheckOptions): Promise<CheckResult[]> {
  const api = await apiServerChecks(rest);
  if (api.some((r) => r.status === 'fail')) return api;
  const workers = opts.workersNamespace ?? WORKERS_NAMESPACE;
  const rest2 = await Promise.all([
    ...OUR_CRDS.map((c) => crdCheck(rest, c)),
    accessCheck(rest, 'scan', SCAN_ACCESS),
    accessCheck(rest, 'erase', ERASE_ACCESS),
    daemonCheck(rest, opts),
    workersNamespaceCheck(rest, workers),
    eraseConfigCheck(rest, opts.configNamespace ?? DEFAULT_CONFIG_NAMESPACE, workers),
  ]);
  const access = [
    ...(await daemonAccessCheck(rest, opts.daemonNamespace)),
    ...(await daemonRecordCheck(rest, opts.daemonNamespace, workers)),
  ];
  return [...api, ...rest2, ...access, ...(await sourceKindsChecks(rest, opts))];
}

export const passed = (results: CheckResult[]): boolean => results.every((r) => r.status !== 'fail');
