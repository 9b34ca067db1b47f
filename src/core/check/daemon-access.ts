// `inv check`: may the daemon's ServiceAccount read what its inventory cache needs? list and
// watch on every built-in source and owner kind and on Images, and `list namespaces`, without
// which a kind whose cluster-wide LIST fails (one tenant's object) cannot be listed one
// namespace at a time (controller/namespace-list.ts) and its inventory freezes everywhere.
// Asked with SubjectAccessReviews for the ServiceAccount, so it checks the daemon's rights, not
// the caller's; skipped when the ServiceAccount does not exist (no daemon installed). And may it
// keep the removal record (read finished workers' logs, write and prune ImageJobRecords)?
import * as resources from '../kube/resources.js';
import { KINDS } from '../kube/kinds.js';
import { readKinds } from '../inventory/sources.js';
import { isNotFound, type KubeRest } from '../kube/rest.js';
import type { CheckResult } from './result.js';
import { DAEMON_SERVICE_ACCOUNT, daemonMay } from './source-kind-checks.js';

const NAME = "the daemon's ServiceAccount may read the inventory's sources";

/** Every read right of the daemon's cache: [group, resource, verb]. */
export function daemonReadRights(): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const k of [...readKinds(), KINDS.Image])
    for (const verb of ['list', 'watch']) out.push([k.group, k.plural, verb]);
  out.push(['', 'namespaces', 'list']);
  return out;
}

export async function daemonAccessCheck(rest: KubeRest, daemonNamespace: string): Promise<CheckResult[]> {
  try {
    await resources.get(rest, 'ServiceAccount', daemonNamespace, DAEMON_SERVICE_ACCOUNT, {
      timeoutMs: 10_000,
    });
  } catch (e) {
    if (isNotFound(e)) return [];
    return [{ group: 'daemon', name: NAME, status: 'warn', detail: `cannot tell: ${(e as Error).message}` }];
  }
  try {
    const rights = daemonReadRights();
    const ok = await Promise.all(
      rights.map(([group, plural, verb]) => daemonMay(rest, daemonNamespace, { group, plural }, verb)),
    );
    const denied = rights.filter((_, i) => !ok[i]).map(([g, r, v]) => `${v} ${r}${g ? `.${g}` : ''}`);
    if (!denied.length)
      return [
        {
          group: 'daemon',
          name: NAME,
          status: 'pass',
          detail: `${rights.length} rights, namespaces list included`,
        },
      ];
    return [
      {
        group: 'daemon',
        name: NAME,
        status: 'fail',
        detail: `${DAEMON_SERVICE_ACCOUNT} may not ${denied.join(', ')}`,
        hint: 'apply the ClusterRole image-inventory-controller of this version (inv install --daemon, or deploy/)',
      },
    ];
  } catch (e) {
    return [{ group: 'daemon', name: NAME, status: 'warn', detail: `cannot tell: ${(e as Error).message}` }];
  }
}

const RECORD_NAME = "the daemon's ServiceAccount may keep the removal record";

/**
 * The rights of the removal record (docs/erase-history.md): get the finished workers' logs in the
 * workers' namespace, and create, list and delete ImageJobRecords. Skipped without a daemon.
 */
export async function daemonRecordCheck(
  rest: KubeRest,
  daemonNamespace: string,
  workersNamespace: string,
): Promise<CheckResult[]> {
  const ask = async (attrs: Record<string, string>) =>
    Boolean(
      (
        await resources.create<{ status?: { allowed?: boolean } }>(rest, 'SubjectAccessReview', undefined, {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: `system:serviceaccount:${daemonNamespace}:${DAEMON_SERVICE_ACCOUNT}`,
            groups: [
              'system:serviceaccounts',
              `system:serviceaccounts:${daemonNamespace}`,
              'system:authenticated',
            ],
            resourceAttributes: attrs,
          },
        })
      ).status?.allowed,
    );
  const rights: [string, Record<string, string>][] = [
    [
      `get pods/log in ${workersNamespace}`,
      { resource: 'pods', subresource: 'log', verb: 'get', namespace: workersNamespace },
    ],
    ...['create', 'list', 'delete'].map((verb): [string, Record<string, string>] => [
      `${verb} imagejobrecords.${KINDS.ImageJobRecord.group}`,
      { group: KINDS.ImageJobRecord.group, resource: KINDS.ImageJobRecord.plural, verb },
    ]),
  ];
  try {
    await resources.get(rest, 'ServiceAccount', daemonNamespace, DAEMON_SERVICE_ACCOUNT, {
      timeoutMs: 10_000,
    });
  } catch (e) {
    if (isNotFound(e)) return [];
    return [
      { group: 'daemon', name: RECORD_NAME, status: 'warn', detail: `cannot tell: ${(e as Error).message}` },
    ];
  }
  try {
    const ok = await Promise.all(rights.map(([, a]) => ask(a)));
    const denied = rights.filter((_, i) => !ok[i]).map(([what]) => what);
    if (!denied.length)
      return [
        { group: 'daemon', name: RECORD_NAME, status: 'pass', detail: rights.map(([w]) => w).join(', ') },
      ];
    return [
      {
        group: 'daemon',
        name: RECORD_NAME,
        status: 'fail',
        detail: `${DAEMON_SERVICE_ACCOUNT} may not ${denied.join(', ')}`,
        hint: 'apply the ClusterRole image-inventory-controller and the Role image-inventory-controller-erase of this version (inv install --daemon, or deploy/)',
      },
    ];
  } catch (e) {
    return [
      { group: 'daemon', name: RECORD_NAME, status: 'warn', detail: `cannot tell: ${(e as Error).message}` },
    ];
  }
}
