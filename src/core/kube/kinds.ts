// Where each API kind inv reads or writes lives: group, version, plural and scope, written once
// (inventory/source-kinds.ts takes its kinds' facts from here and adds what the inventory reads
// in them; a new built-in source kind is a row here too). Paths are derived from it (resources.ts), never guessed (`kind.toLowerCase() + 's'`
// is wrong for NetworkPolicy, Ingress, any kind ending in "s" or "y"), and a kind that is not
// declared here is an error at the call site that names it, not a 404 from the API server later.

/** Where a resource lives in the API: a kind of the table, or one found by discovery. */
export interface ResourceType {
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}

export interface KindInfo extends ResourceType {
  kind: string;
}

const core = (plural: string, namespaced: boolean) => ({ group: '', version: 'v1', plural, namespaced });
const v1 = (group: string, plural: string, namespaced: boolean) => ({
  group,
  version: 'v1',
  plural,
  namespaced,
});
const ours = (group: string, plural: string, namespaced: boolean) => ({
  group,
  version: 'v1alpha1',
  plural,
  namespaced,
});

/** Every kind inv touches, by kind name (unique across the groups inv uses). */
const TABLE = {
  Namespace: core('namespaces', false),
  Node: core('nodes', false),
  Pod: core('pods', true),
  PodTemplate: core('podtemplates', true),
  ReplicationController: core('replicationcontrollers', true),
  ConfigMap: core('configmaps', true),
  ServiceAccount: core('serviceaccounts', true),
  Service: core('services', true),
  Event: core('events', true),
  Deployment: v1('apps', 'deployments', true),
  StatefulSet: v1('apps', 'statefulsets', true),
  DaemonSet: v1('apps', 'daemonsets', true),
  ReplicaSet: v1('apps', 'replicasets', true),
  Job: v1('batch', 'jobs', true),
  CronJob: v1('batch', 'cronjobs', true),
  Lease: v1('coordination.k8s.io', 'leases', true),
  CustomResourceDefinition: v1('apiextensions.k8s.io', 'customresourcedefinitions', false),
  ClusterRole: v1('rbac.authorization.k8s.io', 'clusterroles', false),
  ClusterRoleBinding: v1('rbac.authorization.k8s.io', 'clusterrolebindings', false),
  Role: v1('rbac.authorization.k8s.io', 'roles', true),
  RoleBinding: v1('rbac.authorization.k8s.io', 'rolebindings', true),
  NetworkPolicy: v1('networking.k8s.io', 'networkpolicies', true),
  // Create-only reviews: the API server answers them and stores nothing.
  SelfSubjectAccessReview: v1('authorization.k8s.io', 'selfsubjectaccessreviews', false),
  SubjectAccessReview: v1('authorization.k8s.io', 'subjectaccessreviews', false),
  SelfSubjectReview: v1('authentication.k8s.io', 'selfsubjectreviews', false),
  TokenReview: v1('authentication.k8s.io', 'tokenreviews', false),
  Image: ours('imageinventory.dev', 'images', true),
  ImageList: ours('erase.imageinventory.dev', 'imagelists', false),
  ImageJob: ours('erase.imageinventory.dev', 'imagejobs', false),
  ImageJobRecord: ours('erase.imageinventory.dev', 'imagejobrecords', false),
} satisfies Record<string, ResourceType>;

export type KindName = keyof typeof TABLE;

/** The table's kinds, by name: `KINDS.Pod.plural`. */
export const KINDS: { readonly [K in KindName]: KindInfo } = Object.fromEntries(
  Object.entries(TABLE).map(([kind, t]) => [kind, Object.freeze({ kind, ...t })]),
) as { [K in KindName]: KindInfo };

const BY_GROUP_KIND = new Map(Object.values(KINDS).map((k) => [`${k.group}/${k.kind}`, k]));

/** The declared kind; throws naming the kind when it is not in the registry. */
export function kindInfo(group: string, kind: string): KindInfo {
  const k = BY_GROUP_KIND.get(`${group}/${kind}`);
  if (!k)
    throw new Error(
      `kind ${group ? `${kind}.${group}` : kind} is not in the kind registry (src/core/kube/kinds.ts)`,
    );
  return k;
}

/** `apps/v1`, or `v1` for the core group. */
export const apiVersionOf = (k: { group: string; version: string }): string =>
  k.group ? `${k.group}/${k.version}` : k.version;

/** Splits an apiVersion (`apps/v1`, `v1`) into group and version. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}
