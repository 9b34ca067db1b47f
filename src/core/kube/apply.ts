// Server-side apply of the objects `inv install` ships, and the REST paths of their kinds.
//
// Server-side apply (PATCH, application/apply-patch+yaml) with our own field manager "inv"
// makes install idempotent and lets an upgrade drop fields a newer release no longer sets.
// Whether to force is the caller's decision (src/core/install/install.ts): it forces only on
// objects inv wrote before (a cluster set up with `kubectl apply -k deploy/` has our fields
// owned by kubectl's manager; without force every changed field would be a conflict and an
// upgrade impossible) or that the administrator told it to take over. Fields we do not set
// (e.g. replicas scaled by someone) are left to their owners.
import { kindInfo, splitApiVersion, type KindInfo } from './kinds.js';
import type { KubeRest } from './rest.js';

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

export interface ApplyOptions {
  /**
   * Take the fields we set from other field managers (server-side apply's force). install
   * passes it only for objects inv wrote before or that the administrator told it to take over.
   */
  force: boolean;
  /**
   * Optimistic concurrency: the resourceVersion the caller decided on. The API server refuses
   * the apply (409) when the object changed since, so what was checked is what is changed.
   */
  resourceVersion?: string;
  /** Server-side dry run: validated and computed by the API server, stored nowhere. */
  dryRun?: boolean;
  timeoutMs?: number;
}

/** Server-side applies one object with the field manager "inv"; returns the object as stored. */
export async function applyObject(rest: KubeRest, o: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
  const body = opts.resourceVersion
    ? { ...o, metadata: { ...o.metadata, resourceVersion: opts.resourceVersion } }
    : o;
  return rest.request<KubeObject>('PATCH', objectPath(o), {
    query: { fieldManager: FIELD_MANAGER, force: opts.force, dryRun: opts.dryRun ? 'All' : undefined },
    body,
    contentType: 'application/apply-patch+yaml',
    timeoutMs: opts.timeoutMs ?? 30_000,
  });
}
