// Before `inv erase` writes anything: is there something that will run the request, and can it?
// A few GETs and SelfSubjectAccessReviews, each with the client's deadline, so a request that
// could only wait until --timeout (no controller, no workers' namespace, no configuration, a
// missing permission) fails in seconds with every reason at once.
import * as resources from '../kube/resources.js';
import type { Permission } from '../kube/forbidden.js';
import type { KubeRest } from '../kube/rest.js';
import { isNotFound, KubeApiError } from '../kube/rest.js';
import { CONFIG_KEY, CONFIG_MAP_NAME, parseConfig, type EraseConfig } from '../erase/config/config.js';
import { policyProblem, type PolicyRequest } from '../erase/config/policy.js';
import { limitsOf, requesterLimitProblem, type RequestDurations } from '../erase/config/requester-limits.js';
import { missingConfigMessage, moveCommand } from '../erase/cluster/settings.js';
import { DEFAULT_CONFIG_NAMESPACE, GROUP } from '../erase/api/types.js';
import { HEARTBEAT_LABEL } from '../controller/heartbeat.js';

/** The Lease `inv watch --leader-elect` holds (and the shipped Deployment runs with). */
export const DEFAULT_CONTROLLER_LEASE = 'image-inventory-system/image-inventory-controller';

export interface LeaseLike {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    renewTime?: string | null;
    acquireTime?: string | null;
  };
}

/**
 * Who runs the controllers, judged from the Lease: the holder while its last renewal is younger
 * than the lease duration plus `slackMs` (clocks differ a little; a holder that stopped renewing
 * is given up on by the other candidates after one duration). Undefined holder: nobody.
 */
export function leaseHolder(
  lease: LeaseLike,
  now: number,
  slackMs = 10_000,
): { holder?: string; problem?: string } {
  const s = lease.spec ?? {};
  if (!s.holderIdentity) return { problem: 'no controller holds it (released, or never acquired)' };
  const renewed = Date.parse(s.renewTime ?? s.acquireTime ?? '');
  const duration = (s.leaseDurationSeconds ?? 15) * 1000;
  if (!Number.isFinite(renewed)) return { problem: `its holder ${s.holderIdentity} never renewed it` };
  const age = now - renewed;
  if (age > duration + slackMs)
    return {
      problem: `its holder ${s.holderIdentity} last renewed it ${Math.round(age / 1000)}s ago (it expires after ${duration / 1000}s): the controller is gone or cannot reach the API server`,
    };
  return { holder: s.holderIdentity };
}

const forbidden = (e: unknown): boolean => e instanceof KubeApiError && e.code === 403;

/**
 * A daemon running the controllers without leader election keeps a heartbeat Lease next to the
 * election Lease (controller/heartbeat.ts): its holder when one is fresh, else undefined (also
 * when the caller may not list Leases: the election Lease's own verdict then stands).
 */
export async function heartbeatHolder(
  rest: KubeRest,
  namespace: string,
  lease: string,
  now: number,
): Promise<string | undefined> {
  let list: { items?: LeaseLike[] };
  try {
    list = await rest.get(resources.resourcePath('Lease', namespace), {
      labelSelector: `${HEARTBEAT_LABEL}=${lease}`,
    });
  } catch (e) {
    if (isNotFound(e) || forbidden(e)) return undefined;
    throw e;
  }
  for (const l of list.items ?? []) {
    const v = leaseHolder(l, now);
    if (v.holder) return v.holder;
  }
  return undefined;
}

const erase = (resource: string, verb: string, subresource?: string): Permission => ({
  verb,
  group: GROUP,
  resource,
  ...(subresource ? { subresource } : {}),
});
const core = (resource: string, verb: string, namespace?: string): Permission => ({
  verb,
  group: '',
  resource,
  ...(namespace ? { namespace } : {}),
});

/**
 * What the caller needs, and nothing more: to read its list and write the request (create a new
 * list; `update` only to run an existing one again, since it lets its holder rewrite any list,
 * scheduled ones included), and to follow the job; with --standalone, also what the controllers
 * do (create the job, run its worker Pods and ConfigMaps, list Nodes, read the configuration).
 */
export function neededPermissions(opts: {
  workersNamespace: string;
  standalone: boolean;
  /** Whether the request's ImageList exists already (update), or is new (create, the default). */
  listExists?: boolean;
  configNamespace?: string;
}): Permission[] {
  const base = [
    erase('imagelists', 'get'),
    erase('imagelists', opts.listExists ? 'update' : 'create'),
    erase('imagejobs', 'get'),
  ];
  if (!opts.standalone) return base;
  const ns = opts.workersNamespace;
  const cfgNs = opts.configNamespace ?? DEFAULT_CONFIG_NAMESPACE;
  return [
    ...base,
    core('configmaps', 'get', cfgNs),
    core('configmaps', 'list', cfgNs),
    erase('imagelists', 'list'),
    erase('imagelists', 'update', 'status'),
    erase('imagejobs', 'list'),
    erase('imagejobs', 'create'),
    erase('imagejobs', 'delete'),
    erase('imagejobs', 'patch'),
    erase('imagejobs', 'update', 'status'),
    core('nodes', 'list'),
    core('pods', 'create', ns),
    core('pods', 'delete', ns),
    core('pods', 'list', ns),
    core('configmaps', 'create', ns),
    core('configmaps', 'delete', ns),
    core('configmaps', 'list', ns),
    core('podtemplates', 'create', ns),
    core('podtemplates', 'delete', ns),
  ];
}

export const describePermission = (p: Permission): string =>
  `${p.verb} ${p.resource}${p.subresource ? `/${p.subresource}` : ''}${p.group ? `.${p.group}` : ''}${
    p.namespace ? ` in namespace ${p.namespace}` : ' (cluster-wide)'
  }`;

/** The permissions in `wanted` the caller lacks, by SelfSubjectAccessReview (all at once). */
export async function missingPermissions(rest: KubeRest, wanted: Permission[]): Promise<Permission[]> {
  const answers = await Promise.all(
    wanted.map(async (p) => {
      const r = await resources.create<{ status?: { allowed?: boolean } }>(
        rest,
        'SelfSubjectAccessReview',
        undefined,
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { ...p } },
        },
      );
      return r.status?.allowed === true;
    }),
  );
  return wanted.filter((_, i) => !answers[i]);
}

export interface PreflightOptions {
  workersNamespace: string;
  /** Where the configuration and exclusion lists live (default: image-inventory-system). */
  configNamespace?: string;
  standalone: boolean;
  /** The request's ImageList, and what it asks (checked against the administrator's policy). */
  listName?: string;
  request?: PolicyRequest & RequestDurations;
  /** `namespace/name` of the controllers' Lease; checked unless standalone. */
  lease: string;
  now?: number;
}

export interface PreflightResult {
  /** Each a full sentence with what to do; empty: go ahead. */
  problems: string[];
  /** What could not be checked, and why that need not stop the request. */
  warnings: string[];
  /** The configuration in force (for the confirmation prompt's node counts), when readable. */
  config?: EraseConfig;
  /** The controller holding the Lease. */
  holder?: string;
}

/** Runs every check; transport errors (no answer) propagate, as the request could not go anywhere either. */
export async function preflight(rest: KubeRest, opts: PreflightOptions): Promise<PreflightResult> {
  const out: PreflightResult = { problems: [], warnings: [] };
  const ns = opts.workersNamespace;
  const cfgNs = opts.configNamespace ?? DEFAULT_CONFIG_NAMESPACE;
  const [leaseNs, leaseName] = opts.lease.split('/');
  const checks: Promise<void>[] = [];
  if (!opts.standalone)
    checks.push(
      (async () => {
        const where = `Lease ${leaseNs}/${leaseName}`;
        const hint =
          'start the daemon (`inv install --daemon`, or `inv watch`), or run the job in this process with --standalone';
        const now = opts.now ?? Date.now();
        // Without leader election, a daemon's heartbeat Lease says it runs.
        const beating = () => heartbeatHolder(rest, leaseNs!, leaseName!, now);
        try {
          // A --controller-lease without a slash names Lease "undefined", absent: reported as missing.
          const lease = await resources.get<LeaseLike>(rest, 'Lease', leaseNs, String(leaseName));
          const v = leaseHolder(lease, now);
          if (!v.problem) out.holder = v.holder;
          else if (!(out.holder = await beating()))
            out.problems.push(`no erase controller is running: ${where}: ${v.problem}; ${hint}`);
        } catch (e) {
          if (isNotFound(e)) {
            if (!(out.holder = await beating()))
              out.problems.push(`no erase controller is running: ${where} does not exist; ${hint}`);
          }
          // Not something the request needs: without it, a missing controller shows as a wait.
          else if (forbidden(e))
            out.warnings.push(
              `cannot tell whether an erase controller runs (get leases.coordination.k8s.io in namespace ${leaseNs} is not granted to you); the request is written anyway`,
            );
          else throw e;
        }
      })(),
    );
  checks.push(
    (async () => {
      try {
        await resources.get(rest, 'Namespace', undefined, ns);
      } catch (e) {
        if (isNotFound(e))
          out.problems.push(
            `the workers' namespace ${ns} does not exist: worker Pods could not start; create it with \`inv install --daemon\` (or \`kubectl apply -k deploy/\`), or pass the namespace your controller uses with --workers-namespace`,
          );
        // Reading Namespaces is not something erase needs: when forbidden, the ConfigMap tells.
        else if (!forbidden(e)) throw e;
      }
    })(),
  );
  checks.push(
    (async () => {
      try {
        const cm = await resources.get<{ data?: Record<string, string> }>(
          rest,
          'ConfigMap',
          cfgNs,
          CONFIG_MAP_NAME,
        );
        try {
          out.config = parseConfig(cm.data?.[CONFIG_KEY]);
        } catch (e) {
          out.problems.push(
            `the erase configuration ConfigMap ${cfgNs}/${CONFIG_MAP_NAME} is invalid: ${(e as Error).message}`,
          );
        }
      } catch (e) {
        // No configuration: the controllers refuse every job (settings.ts loadConfig), so say it now.
        if (isNotFound(e)) out.problems.push(await missingConfigProblem(rest, cfgNs, ns));
        // A caller who may not read it: the controllers check it, and the policy, themselves.
        else if (forbidden(e))
          out.warnings.push(
            `cannot check the request against the erase configuration (get configmaps in namespace ${cfgNs} is not granted to you); the request is written anyway, and the controllers refuse it if the configuration does not allow it`,
          );
        else throw e;
      }
      const refused = out.config && opts.request ? policyProblem(opts.request, out.config) : undefined;
      if (refused) out.problems.push(refused);
      const over =
        out.config && opts.request && opts.listName
          ? requesterLimitProblem(opts.listName, opts.request, limitsOf(out.config))
          : undefined;
      if (over) out.problems.push(over);
    })(),
  );
  checks.push(
    (async () => {
      const listExists = opts.listName
        ? await exists(rest, resources.resourcePath('ImageList', undefined, opts.listName))
        : false;
      const missing = await missingPermissions(
        rest,
        neededPermissions({
          workersNamespace: ns,
          configNamespace: cfgNs,
          standalone: opts.standalone,
          listExists,
        }),
      );
      const rerun = (p: Permission) => listExists && p.resource === 'imagelists' && p.verb === 'update';
      if (missing.some(rerun))
        out.problems.push(
          `imagelist/${opts.listName} exists, and running it again means updating it, which you may not do (update on imagelists lets its holder rewrite any list): pass --name with a new name to create your own`,
        );
      const others = missing.filter((p) => !rerun(p));
      if (others.length)
        out.problems.push(
          `you lack permissions erase needs${opts.standalone ? ' with --standalone' : ''}: ${others.map(describePermission).join('; ')}`,
        );
    })(),
  );
  await Promise.all(checks);
  return out;
}

/** Whether `path` exists; undefined (treated as new) when the caller may not read it. */
async function exists(rest: KubeRest, path: string): Promise<boolean> {
  try {
    await rest.get(path);
    return true;
  } catch (e) {
    if (isNotFound(e) || forbidden(e)) return false;
    throw e;
  }
}

/** A missing configuration, or one left in the workers' namespace (with the command that moves it). */
async function missingConfigProblem(rest: KubeRest, cfgNs: string, workersNs: string): Promise<string> {
  if (
    workersNs !== cfgNs &&
    (await exists(rest, resources.resourcePath('ConfigMap', workersNs, CONFIG_MAP_NAME)))
  )
    return `the erase configuration is read from ConfigMap ${cfgNs}/${CONFIG_MAP_NAME} now, not from the workers' namespace ${workersNs}, where anyone allowed to create ConfigMaps could have written it; check its content, then move it: ${moveCommand(workersNs, cfgNs)}`;
  return missingConfigMessage(cfgNs);
}
