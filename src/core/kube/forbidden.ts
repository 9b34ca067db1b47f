// A 403 from the API server, said as the permission that is missing: the verb, the resource
// (with its API group) and the namespace, which is what an administrator writes in a Role.
// Pure: the request's method and path in, words out.
import { KubeApiError } from './rest.js';

/** A permission as a Role grants it, and as a SelfSubjectAccessReview asks for it. */
export interface Permission {
  verb: string;
  /** "deployments", "images", ...; permissionFor puts a subresource here ("pods/log"). */
  resource: string;
  /** "" for the core group. */
  group: string;
  /** undefined for cluster-scoped resources. */
  namespace?: string;
  subresource?: string;
}

/** What permission a request needs, from its method and REST path; undefined for odd paths. */
export function permissionFor(method: string, path: string): Permission | undefined {
  const p = path.split('?')[0]!.split('/').filter(Boolean);
  let group: string;
  let rest: string[];
  if (p[0] === 'api' && p.length >= 2) {
    group = '';
    rest = p.slice(2);
  } else if (p[0] === 'apis' && p.length >= 3) {
    group = p[1]!;
    rest = p.slice(3);
  } else return undefined;
  let namespace: string | undefined;
  // /namespaces/NS/RES... is namespaced; /namespaces and /namespaces/NS are the Namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const resource = rest[0];
  if (!resource) return undefined;
  const named = rest.length >= 2;
  const sub = rest.length >= 3 ? `/${rest[2]}` : '';
  const verbs: Record<string, string> = {
    GET: named ? 'get' : 'list',
    POST: 'create',
    PUT: 'update',
    PATCH: 'patch',
    DELETE: named ? 'delete' : 'deletecollection',
  };
  const verb = verbs[method.toUpperCase()];
  if (!verb) return undefined;
  return { verb, resource: resource + sub, group, namespace };
}

/** "list deployments.apps in namespace "shop"", or "list namespaces (cluster-wide)". */
export function describePermission(p: Permission): string {
  const what = p.group ? `${p.resource}.${p.group}` : p.resource;
  return `${p.verb} ${what} ${p.namespace ? `in namespace "${p.namespace}"` : '(cluster-wide)'}`;
}

/** The message for a 403, or undefined when `e` is not one. */
export function forbiddenMessage(e: unknown): string | undefined {
  if (!(e instanceof KubeApiError) || e.code !== 403 || e.causes.includes('NamespaceTerminating'))
    return undefined;
  const p = permissionFor(e.method, e.path);
  if (!p) return `forbidden: ${e.message}`;
  return `forbidden: you may not ${describePermission(p)}; ask for a Role (or ClusterRole) that grants verb "${p.verb}" on resource "${p.resource}" in API group "${p.group}"`;
}

export const isForbidden = (e: unknown): boolean => forbiddenMessage(e) !== undefined;
