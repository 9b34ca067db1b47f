// Server-side apply of the objects `inv install` ships, and the REST paths of their kinds.
//
// Server-side apply (PATCH, application/apply-patch+yaml) with our own field manager "inv"
// makes install idempotent and lets an upgrade drop fields a newer release no longer sets.
// We apply with force=true: every object applied here is ours by name (our CRDs, our
// namespaces, the daemon's RBAC and Deployment), and a cluster set up before `inv install`
// existed (`kubectl apply -k deploy/`) has those fields owned by kubectl's manager; without
// force, every changed field would be a conflict and an upgrade would be impossible. Fields we
// do not set (e.g. replicas scaled by someone) are left to their owners.
import { kindInfo, splitApiVersion, type KindInfo } from './kinds.js';
import { isNotFound, type KubeRest } from './rest.js';

export const FIELD_MANAGER = 'inv';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    uid?: string;
    resourceVersion?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

// Exactly the kinds of the install bundle; anything else is a packaging mistake.
const BUNDLE_KINDS = new Set([
  'v1/Namespace',
  'v1/ServiceAccount',
  'v1/ConfigMap',
  'v1/Service',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
  'rbac.authorization.k8s.io/v1/ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/RoleBinding',
  'apps/v1/Deployment',
  'networking.k8s.io/v1/NetworkPolicy',
]);

function bundleKind(o: Pick<KubeObject, 'apiVersion' | 'kind'>): KindInfo {
  if (!BUNDLE_KINDS.has(`${o.apiVersion}/${o.kind}`))
    throw new Error(`cannot apply ${o.apiVersion} ${o.kind}: not a kind of the install bundle`);
  return kindInfo(splitApiVersion(o.apiVersion).group, o.kind);
}

export function objectPath(o: KubeObject): string {
  const k = bundleKind(o);
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  if (k.namespaced && !o.metadata.namespace)
    throw new Error(`${o.kind}/${o.metadata.name}: a namespaced object without metadata.namespace`);
  const ns = k.namespaced ? `/namespaces/${o.metadata.namespace}` : '';
  return `${base}${ns}/${k.plural}/${o.metadata.name}`;
}

/** kubectl's short form: `deployment.apps/name`, `namespace/name`. */
export function displayName(o: KubeObject): string {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  return `${o.kind.toLowerCase()}${group ? `.${group}` : ''}/${o.metadata.name}`;
}

export type ApplyAction = 'created' | 'configured' | 'unchanged';

/** Applies one object; says whether it was created, changed, or already as wanted. */
export async function applyObject(
  rest: KubeRest,
  o: KubeObject,
  timeoutMs = 30_000,
): Promise<{ action: ApplyAction; object: KubeObject }> {
  const p = objectPath(o);
  let before: string | undefined;
  try {
    before = (await rest.request<KubeObject>('GET', p, { timeoutMs })).metadata.resourceVersion;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  const object = await rest.request<KubeObject>('PATCH', p, {
    query: { fieldManager: FIELD_MANAGER, force: true },
    body: o,
    contentType: 'application/apply-patch+yaml',
    timeoutMs,
  });
  const action: ApplyAction =
    before === undefined
      ? 'created'
      : before === object.metadata.resourceVersion
        ? 'unchanged'
        : 'configured';
  return { action, object };
}
