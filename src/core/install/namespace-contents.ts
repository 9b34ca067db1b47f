// What lives in a namespace, of every kind the API server serves, read before `inv uninstall`
// deletes a namespace of ours: deleting a namespace deletes everything in it, so one object
// that inv did not create (a Secret, a RoleBinding, the administrator's exclusion list) keeps
// the namespace.
//
// Discovery gives the namespaced resources that can be listed (the preferred version of each
// group); each is listed as metadata only (PartialObjectMetadataList), page by page. A
// resource that cannot be listed (forbidden, an aggregated API that is down) cannot be judged:
// the namespace is kept and the resource named (fail closed).
import { API_GROUPS_PATH, groupVersionPath, resourcePath } from '../kube/resources.js';
import { forEachConcurrent } from '../concurrency.js';
import { METADATA_LIST_ACCEPT, type KubeRest } from '../kube/rest.js';
import type { NamespacedObject } from './namespace-leftovers.js';

// Full objects from a server that cannot answer as metadata (an aggregated API): only their
// metadata is kept.
const METADATA_LIST = `${METADATA_LIST_ACCEPT},application/json`;

/**
 * Groups whose namespaced objects are derived, not stored by anyone: Events record what
 * happened, metrics.k8s.io reports live usage of Pods that are listed themselves.
 */
const DERIVED_GROUPS = new Set(['events.k8s.io', 'metrics.k8s.io']);

/**
 * Core kinds not listed: Events (derived, as above), and v1 Endpoints, deprecated since
 * Kubernetes 1.33 (every request for them returns a warning). Their content is in the
 * EndpointSlices (discovery.k8s.io), which are listed: the control plane writes those for every
 * Service, and mirrors a selector-less Service's hand-made Endpoints into them.
 */
const CORE_SKIPPED = new Set(['Event', 'Endpoints']);

export interface NamespacedResource {
  group: string;
  version: string;
  /** The plural, as in the URL. */
  resource: string;
  kind: string;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

interface GroupList {
  groups?: { name: string; preferredVersion?: { groupVersion: string; version: string } }[];
}

const listable = (r: ApiResource) =>
  r.namespaced && !r.name.includes('/') && (r.verbs ?? []).includes('list');

/** Every namespaced resource that can be listed, at its group's preferred version. */
export async function namespacedResources(
  rest: KubeRest,
): Promise<{ resources: NamespacedResource[]; unreadable: string[] }> {
  const resources: NamespacedResource[] = [];
  const unreadable: string[] = [];
  const core = await rest.request<{ resources?: ApiResource[] }>('GET', groupVersionPath('', 'v1'), {
    timeoutMs: 15_000,
  });
  for (const r of (core.resources ?? []).filter(listable))
    if (!CORE_SKIPPED.has(r.kind))
      resources.push({ group: '', version: 'v1', resource: r.name, kind: r.kind });
  const groups = await rest.request<GroupList>('GET', API_GROUPS_PATH, { timeoutMs: 15_000 });
  const wanted = (groups.groups ?? []).filter((g) => g.preferredVersion && !DERIVED_GROUPS.has(g.name));
  await forEachConcurrent(wanted, 8, async (g) => {
    const gv = g.preferredVersion!.groupVersion;
    try {
      const path = groupVersionPath(g.name, g.preferredVersion!.version);
      const list = await rest.request<{ resources?: ApiResource[] }>('GET', path, { timeoutMs: 15_000 });
      for (const r of (list.resources ?? []).filter(listable))
        resources.push({
          group: g.name,
          version: g.preferredVersion!.version,
          resource: r.name,
          kind: r.kind,
        });
    } catch (e) {
      unreadable.push(`${gv} (discovery: ${(e as Error).message})`);
    }
  });
  return { resources, unreadable };
}

/** Every object in `ns` of the given resources, metadata only; the resources that could not be listed. */
export async function namespaceContents(
  rest: KubeRest,
  ns: string,
  resources: readonly NamespacedResource[],
): Promise<{ objects: NamespacedObject[]; unreadable: string[] }> {
  const objects: NamespacedObject[] = [];
  const unreadable: string[] = [];
  await forEachConcurrent(resources, 8, async (r) => {
    const type = { group: r.group, version: r.version, plural: r.resource, namespaced: true };
    try {
      const { items } = await rest.list<{ metadata?: NamespacedObject['metadata'] }, NamespacedObject>(
        resourcePath(type, ns),
        {
          accept: METADATA_LIST,
          map: (it) => ({ group: r.group, kind: r.kind, metadata: it.metadata ?? { name: '' } }),
        },
      );
      objects.push(...items);
    } catch (e) {
      unreadable.push(`${r.resource}${r.group ? `.${r.group}` : ''} (${(e as Error).message})`);
    }
  });
  return { objects, unreadable };
}
