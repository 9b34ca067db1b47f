// `inv check`: may the daemon's ServiceAccount read what its inventory cache needs? list and
// watch on every built-in source and owner kind and on Images, and `list namespaces`, without
// which a kind whose cluster-wide LIST fails (one tenant's object) cannot be listed one
// namespace at a time (controller/namespace-list.ts) and its inventory freezes everywhere.
// Asked with SubjectAccessReviews for the ServiceAccount, so it checks the daemon's rights, not
// the caller's; skipped when the ServiceAccount does not exist (no daemon installed).
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
