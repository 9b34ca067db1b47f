// Where each API kind inv reads or writes lives: group, version, plural and scope (the kube
// layer's table of paths; which kinds the inventory reads is inventory/source-kinds.ts).
// Paths are derived from it, never guessed (`kind.toLowerCase() + 's'` is wrong for
// NetworkPolicy, Ingress, any kind ending in "s" or "y"), and a kind that is not declared here is
// an error at the call site that names it, not a 404 from the API server later.

export interface KindInfo {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

const DECLARED: readonly KindInfo[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false },
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true },
  { group: '', version: 'v1', kind: 'PodTemplate', plural: 'podtemplates', namespaced: true },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', namespaced: true },
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'RoleBinding',
    plural: 'rolebindings',
    namespaced: true,
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'NetworkPolicy',
    plural: 'networkpolicies',
    namespaced: true,
  },
  { group: 'imageinventory.dev', version: 'v1alpha1', kind: 'Image', plural: 'images', namespaced: true },
  {
    group: 'erase.imageinventory.dev',
    version: 'v1alpha1',
    kind: 'ImageList',
    plural: 'imagelists',
    namespaced: false,
  },
  {
    group: 'erase.imageinventory.dev',
    version: 'v1alpha1',
    kind: 'ImageJob',
    plural: 'imagejobs',
    namespaced: false,
  },
];

const BY_GROUP_KIND = new Map(DECLARED.map((k) => [`${k.group}/${k.kind}`, k]));

/** The declared kind; throws naming the kind when it is not in the registry. */
export function kindInfo(group: string, kind: string): KindInfo {
  const k = BY_GROUP_KIND.get(`${group}/${kind}`);
  if (!k)
    throw new Error(
      `kind ${group ? `${kind}.${group}` : kind} is not in the kind registry (src/core/kube/kinds.ts)`,
    );
  return k;
}

/** Splits an apiVersion (`apps/v1`, `v1`) into group and version. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/**
 * The collection path of a kind, e.g. `/apis/apps/v1/namespaces/shop/deployments`. `version`
 * defaults to the registry's; a namespace on a cluster-scoped kind (or none on a namespaced kind,
 * which means "all namespaces") is handled as the API does.
 */
export function kindCollectionPath(
  group: string,
  kind: string,
  namespace?: string,
  version?: string,
): string {
  const k = kindInfo(group, kind);
  const v = version ?? k.version;
  const base = group ? `/apis/${group}/${v}` : `/api/${v}`;
  if (!k.namespaced && namespace)
    throw new Error(`${kind} is cluster-scoped; it has no namespace (got ${JSON.stringify(namespace)})`);
  return namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${k.plural}`
    : `${base}/${k.plural}`;
}
