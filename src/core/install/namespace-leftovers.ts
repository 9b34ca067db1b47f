// Which objects in a namespace of ours were not created by inv, nor derived from what inv
// created: those keep the namespace at `inv uninstall`. Pure: the namespace's objects (metadata
// only, namespace-contents.ts) in, their names out.
//
// Not someone else's:
// - what inv wrote, unless uninstall keeps it (the erase configuration the administrator
//   edited: its settings are theirs). Written by inv means the field manager "inv", or, for an
//   object of the bundle (kubectl apply -k deploy/), our part-of label (ownership.ts). On any
//   other object the label is the administrator's own tagging (a pull Secret they labelled as
//   part of image-inventory), not ours: it keeps the namespace;
// - the erase controllers' worker objects (managed-by inv-erase), the daemon's heartbeat Leases,
//   and objects of inv's own kinds (the Images of the namespace's own workloads);
// - what Kubernetes makes in every namespace (the `default` ServiceAccount, kube-root-ca.crt)
//   or for an object listed here: dependents whose owner is in the namespace (a Deployment's
//   ReplicaSets and Pods; the owner is judged itself) or whose owner is gone (the garbage
//   collector deletes them), a Service's Endpoints, a ServiceAccount's token Secrets.
import { HEARTBEAT_LABEL } from '../controller/heartbeat.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../erase/api/types.js';
import { OUR_CRDS } from '../kube/crds.js';
import { FIELD_MANAGER, type KubeObject } from '../kube/apply.js';
import { fieldManagers, writtenByInv } from './ownership.js';

export interface NamespacedObject {
  /** The API group ('' for the core group). */
  group: string;
  kind: string;
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: unknown[];
    ownerReferences?: { apiVersion?: string; kind?: string; uid?: string }[];
  };
}

/** What uninstall knows of a namespace's objects when it judges the namespace. */
export interface Uninstalled {
  /** The bundle's objects in the namespace (objectName form). */
  bundle: ReadonlySet<string>;
  /** Those of them uninstall keeps although inv wrote them. */
  kept: ReadonlySet<string>;
  /** The UIDs of the objects uninstall deleted. */
  deleted: ReadonlySet<string>;
}

/** kubectl's short form: configmap/x, rolebinding.rbac.authorization.k8s.io/x. */
export const objectName = (o: Pick<NamespacedObject, 'group' | 'kind' | 'metadata'>): string =>
  `${o.kind.toLowerCase()}${o.group ? `.${o.group}` : ''}/${o.metadata.name}`;

const KUBERNETES_DEFAULTS = new Set(['serviceaccount/default', 'configmap/kube-root-ca.crt']);
/** Images, ImageLists, ImageJobs: inv's by definition, whoever wrote them (the daemon POSTs Images). */
const OUR_GROUPS = new Set(OUR_CRDS.map((c) => c.group));
const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';

/**
 * The objects of `objects` that keep their namespace, by name, sorted. `bundle` names the
 * bundle's objects in the namespace and `kept` those of them uninstall keeps although inv wrote
 * them (objectName form); `deleted` holds the UIDs of those it deleted: their dependents, still
 * there until the garbage collector gets to them, go too.
 */
export function foreignObjects(
  objects: readonly NamespacedObject[],
  uninstalled: Uninstalled,
  /** The namespaced kinds, as `group/Kind`: an owner of such a kind not listed here is gone. */
  namespacedKinds: ReadonlySet<string> = new Set(),
): string[] {
  const { bundle, kept, deleted } = uninstalled;
  const written = (o: NamespacedObject): boolean =>
    bundle.has(objectName(o))
      ? writtenByInv(o as unknown as KubeObject)
      : fieldManagers(o as unknown as KubeObject).includes(FIELD_MANAGER);
  const ours = (o: NamespacedObject): boolean =>
    !kept.has(objectName(o)) &&
    (written(o) ||
      OUR_GROUPS.has(o.group) ||
      o.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY ||
      (o.kind === 'Lease' && o.metadata.labels?.[HEARTBEAT_LABEL] !== undefined));
  const foreign = new Set<NamespacedObject>();
  for (const o of objects) if (!ours(o) && !KUBERNETES_DEFAULTS.has(objectName(o))) foreign.add(o);
  // Dependents follow their owners: an object owned by a foreign one is foreign, and one owned
  // only by ours (or by Kubernetes' defaults) is not. Repeated until nothing changes, so chains
  // (Deployment → ReplicaSet → Pod) settle in either direction; an ownership cycle, which the
  // API server does not prevent, is cut off after as many passes as there are objects.
  const byUid = new Map(objects.filter((o) => o.metadata.uid).map((o) => [o.metadata.uid!, o]));
  const byName = new Map(objects.map((o) => [objectName(o), o]));
  // An owner that is gone: deleted by this uninstall, or of a namespaced kind and not in the
  // namespace (deleted earlier; the garbage collector deletes its dependents). An owner of a
  // cluster-scoped kind is not judged here, so its dependents stay foreign.
  const gone = (r: { apiVersion?: string; kind?: string; uid?: string }) =>
    !!r.uid &&
    (deleted.has(r.uid) ||
      (!byUid.has(r.uid) &&
        namespacedKinds.has(`${r.apiVersion?.includes('/') ? r.apiVersion.split('/')[0] : ''}/${r.kind}`)));
  const derivedFrom = (o: NamespacedObject): NamespacedObject[] | undefined => {
    const refs = (o.metadata.ownerReferences ?? []).filter((r) => !gone(r));
    if (o.metadata.ownerReferences?.length && !refs.length) return [];
    const owners = refs.map((r) => (r.uid ? byUid.get(r.uid) : undefined));
    if (owners.length) return owners.every((x) => x) ? (owners as NamespacedObject[]) : undefined;
    const svc =
      o.kind === 'Endpoints' && o.group === '' ? byName.get(`service/${o.metadata.name}`) : undefined;
    if (svc) return [svc];
    const sa = o.kind === 'Secret' ? o.metadata.annotations?.[SA_NAME_ANNOTATION] : undefined;
    const account = sa ? byName.get(`serviceaccount/${sa}`) : undefined;
    return account ? [account] : undefined;
  };
  for (let changed = true, passes = 0; changed && passes <= objects.length; passes++) {
    changed = false;
    for (const o of objects) {
      if (ours(o) || kept.has(objectName(o))) continue;
      const owners = derivedFrom(o);
      if (!owners) continue;
      const isForeign = owners.some((x) => foreign.has(x));
      if (isForeign !== foreign.has(o)) {
        if (isForeign) foreign.add(o);
        else foreign.delete(o);
        changed = true;
      }
    }
  }
  return [...foreign].map(objectName).sort();
}
