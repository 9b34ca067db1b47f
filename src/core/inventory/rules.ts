// The source-to-kinds rules (shared spec seed-inventory-controller.md, "Sources -> status.kinds"):
// which image refs one namespace references, and which kinds get the credit; the same rules
// name the objects that get it (status.users). Pure: objects in,
// a ref -> kinds map and a list of unusable refs out. A bad ref is reported, never thrown, so one
// broken manifest cannot hide the rest of the namespace's inventory.
import { normalizeRef } from '../refs/normalize.js';
import type { Container, CronJobObject, Kind, NamespaceObjects, ObjectMeta, PodSpec } from './types.js';

export interface InvalidRef {
  namespace: string;
  /** "Kind/name", ready for messages. */
  source: string;
  kind: Kind;
  name: string;
  container: string;
  /** The image exactly as written (possibly empty). */
  image: string;
  reason: string;
}

export interface DesiredImages {
  /** normalized ref -> kinds credited with it. */
  images: Map<string, Set<Kind>>;
  /** normalized ref -> the objects credited with it, as "Kind/name" (same rules as kinds). */
  users: Map<string, Set<string>>;
  invalid: InvalidRef[];
}

/** status.users holds at most this many users; status.userCount holds the true count. */
export const USERS_CAP = 20;

/** status.users and status.userCount for a set of "Kind/name" users: sorted, capped. */
export function usersStatus(users: Iterable<string> | undefined): { users: string[]; userCount: number } {
  const all = [...new Set(users ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { users: all.slice(0, USERS_CAP), userCount: all.length };
}

export function desiredImages(namespace: string, objs: NamespaceObjects): DesiredImages {
  const out: DesiredImages = { images: new Map(), users: new Map(), invalid: [] };
  const credit = (kind: Kind, meta: ObjectMeta, containers: Iterable<Container>) => {
    for (const c of containers) addImage(out, namespace, kind, meta.name, c);
  };
  // Objects being deleted contribute nothing; objects of another namespace are not ours to count
  // (callers group by namespace, this only guards against a mixed list).
  const counts = (meta: ObjectMeta) =>
    !meta.deletionTimestamp && (!meta.namespace || meta.namespace === namespace);

  // Workload templates count even at replicas 0: the template still references the image.
  const templated: [Kind, NamespaceObjects['deployments']][] = [
    ['Deployment', objs.deployments],
    ['StatefulSet', objs.statefulSets],
    ['DaemonSet', objs.daemonSets],
  ];
  for (const [kind, list] of templated) {
    for (const o of list)
      if (counts(o.metadata)) credit(kind, o.metadata, allContainers(o.spec?.template?.spec));
  }
  for (const cj of objs.cronJobs) {
    if (counts(cj.metadata))
      credit('CronJob', cj.metadata, allContainers(cj.spec?.jobTemplate?.spec?.template?.spec));
  }
  for (const job of objs.jobs) {
    if (!counts(job.metadata) || ownedByLiveCronJob(job.metadata, objs.cronJobs)) continue;
    credit('Job', job.metadata, allContainers(job.spec?.template?.spec));
  }
  for (const pod of objs.pods) {
    if (!counts(pod.metadata)) continue;
    // A naked Pod is its own source. An owned Pod's containers come from its owner's template,
    // already credited; only ephemeral containers (kubectl debug) are the Pod's own.
    const naked = !pod.metadata.ownerReferences?.length;
    credit('Pod', pod.metadata, naked ? allContainers(pod.spec) : (pod.spec?.ephemeralContainers ?? []));
  }
  return out;
}

/**
 * A Job created by a CronJob is credited to the CronJob instead, but only while that CronJob is
 * live (listed, not being deleted) and is the same object: an empty owner UID is trusted, a
 * different UID means the CronJob was deleted and recreated under the same name, so the old Job's
 * images are still the Job's own (then both kinds may appear).
 */
export function ownedByLiveCronJob(meta: ObjectMeta, cronJobs: CronJobObject[]): boolean {
  for (const ref of meta.ownerReferences ?? []) {
    if (ref.kind !== 'CronJob') continue;
    for (const cj of cronJobs) {
      if (cj.metadata.name !== ref.name || cj.metadata.deletionTimestamp) continue;
      if (!ref.uid || ref.uid === cj.metadata.uid) return true;
    }
  }
  return false;
}

/** Containers, init containers and (if present, e.g. on Pods) ephemeral containers. */
function* allContainers(spec: PodSpec | null | undefined): Generator<Container> {
  yield* spec?.containers ?? [];
  yield* spec?.initContainers ?? [];
  yield* spec?.ephemeralContainers ?? [];
}

function addImage(out: DesiredImages, namespace: string, kind: Kind, name: string, c: Container): void {
  const image = c.image ?? '';
  const r = image.trim() === '' ? { ok: false as const, reason: 'empty image' } : normalizeRef(image);
  if (!r.ok) {
    out.invalid.push({
      namespace,
      source: `${kind}/${name}`,
      kind,
      name,
      container: c.name,
      image,
      reason: r.reason,
    });
    return;
  }
  let kinds = out.images.get(r.ref.normalized);
  if (!kinds) out.images.set(r.ref.normalized, (kinds = new Set()));
  kinds.add(kind);
  let users = out.users.get(r.ref.normalized);
  if (!users) out.users.set(r.ref.normalized, (users = new Set()));
  users.add(`${kind}/${name}`);
}

/** status.kinds: sorted and comma-joined ("Deployment,Pod") so kubectl columns stay stable. */
export function kindsString(kinds: Iterable<Kind>): string {
  return [...new Set(kinds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',');
}
