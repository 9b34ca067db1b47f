// Settling a Pod's ReplicaSet owner without reading the ReplicaSet (issue 28): a Deployment names
// each ReplicaSet it creates `<deployment>-<pod-template-hash>`, and the hash has no dash. So a
// Pod whose controller is ReplicaSet `web-7d9f8c6b5` most likely belongs to Deployment `web`.
// The name alone proves nothing (anyone may name a bare ReplicaSet so), so the shortcut is taken
// only when it cannot lose an image: Deployment `web` is live in the namespace and its template
// holds every image the Pod runs (containers and init containers). Those images are then credited
// by the Deployment whoever really owns the ReplicaSet, so crediting nothing more for the Pod is
// safe. Otherwise (a rollout's older Pods, a bare ReplicaSet, another controller's) the
// ReplicaSet's metadata decides, as rules.ts's topOwner reads it; an unreadable one credits the
// Pod (fail closed). A one-shot rebuild lists ReplicaSets only when some Pod needs them
// (needsOwnerMetadata), which a steady cluster's Pods do not.
import { atPath, BUILTIN, groupOf, OWNER_KINDS, type SourceKinds } from './source-kinds.js';
import type { NamespaceObjects, OwnerReference, PodSpec, SourceObject } from './source-fields.js';

const REPLICA_SET = OWNER_KINDS.find((k) => k.kind === 'ReplicaSet')!;
const DEPLOYMENT = BUILTIN.byKind('Deployment')!;

/** The object of `key` named `name` (the rules' lookup, which also compares UIDs when known). */
type Lookup = (key: string, ref: { name: string; uid?: string }) => SourceObject | undefined;

export const isReplicaSetRef = (ref: OwnerReference): boolean =>
  ref.kind === REPLICA_SET.kind &&
  (ref.apiVersion === undefined || groupOf(ref.apiVersion) === REPLICA_SET.group);

/** The controller ownerReference (or the first one), as Kubernetes' own helpers pick it. */
export const controllerOf = (
  owners: readonly OwnerReference[] | null | undefined,
): OwnerReference | undefined =>
  owners?.length ? (owners.find((o) => o.controller) ?? owners[0]) : undefined;

/**
 * True when `pod`, controlled by ReplicaSet `ref`, needs nothing more credited: the live
 * Deployment that the ReplicaSet's name points to credits every image the Pod runs.
 */
export function settledByDeploymentName(pod: SourceObject, ref: OwnerReference, lookup: Lookup): boolean {
  const dash = ref.name.lastIndexOf('-');
  if (dash <= 0 || dash === ref.name.length - 1) return false;
  const d = lookup(DEPLOYMENT.key, { name: ref.name.slice(0, dash) });
  if (!d || d.metadata.deletionTimestamp) return false;
  const template = templateImages(d);
  const spec = (pod as { spec?: PodSpec | null }).spec;
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])])
    if (!c.image || !template.has(c.image)) return false;
  return true;
}

// A Deployment's template images, computed once per object (a rebuild asks once per Pod).
const templates = new WeakMap<SourceObject, Set<string>>();
function templateImages(d: SourceObject): Set<string> {
  let set = templates.get(d);
  if (set) return set;
  templates.set(d, (set = new Set()));
  for (const path of DEPLOYMENT.podSpecs) {
    const s = atPath(d, path) as PodSpec | undefined;
    for (const c of [...(s?.containers ?? []), ...(s?.initContainers ?? [])]) if (c.image) set.add(c.image);
  }
  return set;
}

/** A lookup by name over one namespace's objects (no UID: the shortcut has none to compare). */
function byName(objs: NamespaceObjects): Lookup {
  const index = new Map<string, Map<string, SourceObject>>();
  return (key, ref) => {
    let m = index.get(key);
    if (!m) {
      index.set(key, (m = new Map()));
      for (const o of objs[key] ?? []) m.set(o.metadata.name, o);
    }
    return m.get(ref.name);
  };
}

/**
 * True when some live owned Pod of `objs` has a ReplicaSet controller that the name shortcut
 * does not settle: only then must a rebuild read the ReplicaSets' metadata.
 */
export function needsOwnerMetadata(objs: NamespaceObjects, kinds: SourceKinds = BUILTIN): boolean {
  const pods = kinds.byKind('Pod')!;
  const lookup = byName(objs);
  for (const pod of objs[pods.key] ?? []) {
    if (pod.metadata.deletionTimestamp) continue;
    const ref = controllerOf(pod.metadata.ownerReferences);
    if (ref && isReplicaSetRef(ref) && !settledByDeploymentName(pod, ref, lookup)) return true;
  }
  return false;
}
