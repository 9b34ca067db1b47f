// Which declared source kinds the API server serves: one discovery GET per group/version
// (argoproj.io/v1alpha1's resource list). A kind whose CRD is not installed, or that is cluster-scoped,
// is skipped with a reason (reported once by the caller), never an error that stops the scan or
// the daemon. A failure other than 404 (a 403, a timeout) is thrown: then nobody knows.
import { groupVersionPath } from '../kube/resources.js';
import { isNotFound, type KubeRest } from '../kube/rest.js';
import { SourceKinds, type SourceKindSpec } from './source-kinds.js';

export interface SkippedKind {
  kind: string;
  group: string;
  version: string;
  reason: string;
}

export interface DiscoveredKinds {
  kinds: SourceKinds;
  /** The declared kinds in force (served, in the scope declared). */
  served: SourceKindSpec[];
  skipped: SkippedKind[];
}

interface ApiResourceList {
  resources?: { name?: string; kind?: string; namespaced?: boolean; verbs?: string[] }[];
}

export async function discoverKinds(
  rest: KubeRest,
  declared: readonly SourceKindSpec[],
): Promise<DiscoveredKinds> {
  const lists = new Map<string, Promise<ApiResourceList | undefined>>();
  const list = (gv: string, path: string) => {
    let p = lists.get(gv);
    if (!p) {
      p = rest.get<ApiResourceList>(path).catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      lists.set(gv, p);
    }
    return p;
  };
  const served: SourceKindSpec[] = [];
  const skipped: SkippedKind[] = [];
  for (const k of declared) {
    const id = { kind: k.kind, group: k.group, version: k.version };
    const gv = `${k.group}/${k.version}`;
    // A declared kind of the core group is never served as one: its discovery path was /apis//v1,
    // which the API server answers 404 (the core group is /api/v1, and its kinds are built in).
    const rl = k.group ? await list(gv, groupVersionPath(k.group, k.version)) : undefined;
    const r = rl?.resources?.find((x) => x.kind === k.kind && x.name && !x.name.includes('/'));
    if (!r) {
      skipped.push({ ...id, reason: `${k.kind}.${gv} is not served (is its CRD installed?)` });
      continue;
    }
    // The entry says its scope (a cluster-scoped kind names the namespace of its Images): a
    // server that disagrees serves another kind than the one declared.
    if (!r.namespaced && !k.namespace) {
      skipped.push({
        ...id,
        reason: `${k.kind}.${gv} is cluster-scoped; declare it with scope: Cluster and a namespace`,
      });
      continue;
    }
    if (r.namespaced && k.namespace) {
      skipped.push({ ...id, reason: `${k.kind}.${gv} is namespaced, not cluster-scoped (scope: Cluster)` });
      continue;
    }
    if (k.plural && k.plural !== r.name) {
      skipped.push({ ...id, reason: `${k.kind}.${gv} is served as ${r.name}, not ${k.plural}` });
      continue;
    }
    served.push({ ...k, plural: r.name! });
  }
  return { kinds: new SourceKinds(served), served, skipped };
}
