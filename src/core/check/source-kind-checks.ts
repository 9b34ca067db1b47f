// `inv check`: the declared source kinds (the file given, or the daemon's ConfigMap): is each
// one served, and may the daemon's ServiceAccount list and watch it? One result per kind.
import * as resources from '../kube/resources.js';
import { discoverKinds } from '../inventory/discover-kinds.js';
import { readSourceKindsConfigMap } from '../inventory/source-kinds-configmap.js';
import type { SourceKindSpec } from '../inventory/source-kinds.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import type { CheckResult } from './result.js';

const GROUP = 'source kinds';
const T = { timeoutMs: 10_000 };
export const DAEMON_SERVICE_ACCOUNT = 'image-inventory-controller';

/** Whether the daemon's ServiceAccount may `verb` the kind's resource (SubjectAccessReview). */
export async function daemonMay(
  rest: KubeRest,
  ns: string,
  k: { group: string; plural: string },
  verb: string,
): Promise<boolean> {
  const r = await resources.create<{ status?: { allowed?: boolean } }>(
    rest,
    'SubjectAccessReview',
    undefined,
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: `system:serviceaccount:${ns}:${DAEMON_SERVICE_ACCOUNT}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        resourceAttributes: { group: k.group, resource: k.plural, verb },
      },
    },
    T,
  );
  return Boolean(r.status?.allowed);
}

export async function sourceKindsChecks(
  rest: KubeRest,
  opts: { daemonNamespace: string; sourceKinds?: SourceKindSpec[] },
): Promise<CheckResult[]> {
  let declared: SourceKindSpec[] | undefined;
  try {
    declared = opts.sourceKinds ?? (await readSourceKindsConfigMap(rest, opts.daemonNamespace));
  } catch (e) {
    return [{ group: GROUP, name: 'declared source kinds', status: 'fail', detail: (e as Error).message }];
  }
  if (!declared?.length) return [];
  try {
    const d = await discoverKinds(rest, declared);
    const out: CheckResult[] = d.skipped.map((s) => ({
      group: GROUP,
      name: `${s.kind}.${s.group}`,
      status: 'warn' as const,
      detail: `${s.reason}; scan and watch skip it`,
      hint: 'install its CRD, or remove it from the SourceKinds file',
    }));
    for (const k of d.served) {
      const name = `${k.kind}.${k.group}`;
      let denied: string[];
      try {
        const verbs = ['list', 'watch'];
        const ok = await Promise.all(verbs.map((v) => daemonMay(rest, opts.daemonNamespace, k, v)));
        denied = verbs.filter((_, i) => !ok[i]);
      } catch (e) {
        const why =
          e instanceof KubeApiError && e.code === 403
            ? 'not allowed to ask (subjectaccessreviews)'
            : (e as Error).message;
        out.push({
          group: GROUP,
          name,
          status: 'warn',
          detail: `served as ${k.plural}; the daemon's access unknown: ${why}`,
        });
        continue;
      }
      out.push(
        denied.length
          ? {
              group: GROUP,
              name,
              status: 'fail',
              detail: `served as ${k.plural}; the daemon may not ${denied.join(', ')} ${k.plural}.${k.group}`,
              hint: 'inv install --daemon --source-kinds FILE grants it (ClusterRole image-inventory-source-kinds)',
            }
          : {
              group: GROUP,
              name,
              status: 'pass',
              detail: `served as ${k.plural}; the daemon may list, watch`,
            },
      );
    }
    return out;
  } catch (e) {
    return [{ group: GROUP, name: 'declared source kinds', status: 'fail', detail: (e as Error).message }];
  }
}
