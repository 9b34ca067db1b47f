// Server-side apply of the objects `inv install` ships (through resources.ts's one writer), and
// the REST paths of their kinds.
//
// Server-side apply (PATCH, application/apply-patch+yaml) with our own field manager "inv"
// makes install idempotent and lets an upgrade drop fields a newer release no longer sets.
// Whether to force is the caller's decision (src/core/install/install.ts): it forces only on
// objects inv wrote before (a cluster set up with `kubectl apply -k deploy/` has our fields
// owned by kubectl's manager; without force every changed field would be a conflict and an
// upgrade impossible) or that the administrator told it to take over. Fields we do not set
// (e.g. replicas scaled by someone) are left to their owners.
import { apiVersionOf, kindInfo, KINDS, splitApiVersion, type KindInfo, type KindName } from './kinds.js';
import * as resources from './resources.js';
import { objectPath, type ObjectRef } from './resources.js';
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

// Exactly the kinds of the install bundle, at the table's version; anything else is a packaging mistake.
const BUNDLE_KINDS: ReadonlySet<string> = new Set<KindName>([
  'Namespace',
  'ServiceAccount',
  'ConfigMap',
  'Service',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Deployment',
  'NetworkPolicy',
]);

function bundleKind(o: Pick<KubeObject, 'apiVersion' | 'kind'>): KindInfo {
  const k = BUNDLE_KINDS.has(o.kind) ? KINDS[o.kind as KindName] : undefined;
  if (!k || apiVersionOf(k) !== o.apiVersion)
    throw new Error(`cannot apply ${o.apiVersion} ${o.kind}: not a kind of the install bundle`);
  return k;
}

/** An object of the bundle as a reference (its kind checked against the bundle's). */
export function bundleRef(o: KubeObject): ObjectRef {
  const k = bundleKind(o);
  if (k.namespaced && !o.metadata.namespace)
    throw new Error(`${o.kind}/${o.metadata.name}: a namespaced object without metadata.namespace`);
  const { group, version } = splitApiVersion(o.apiVersion);
  return {
    group,
    version,
    kind: o.kind,
    namespace: k.namespaced ? o.metadata.namespace! : '',
    name: o.metadata.name,
  };
}

/** The REST path of an object of the bundle. */
export const bundlePath = (o: KubeObject): string => objectPath(bundleRef(o));

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
  const ref = bundleRef(o);
  const kind = { ...kindInfo(ref.group, ref.kind), version: ref.version };
  return resources.apply<KubeObject>(rest, kind, ref.namespace || undefined, ref.name, body, {
    fieldManager: FIELD_MANAGER,
    force: opts.force,
    dryRun: opts.dryRun,
    timeoutMs: opts.timeoutMs ?? 30_000,
  });
}
