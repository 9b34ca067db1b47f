// The source-to-kinds rules (shared spec seed-inventory-controller.md, "Sources -> status.kinds"):
// which image refs one namespace references, and which kinds get the credit; the same rules
// name the objects that get it (status.users). Pure: objects in,
// a ref -> kinds map and a list of unusable refs out. A bad ref is reported, never thrown, so one
// broken manifest cannot hide the rest of the namespace's inventory.
import { normalizeRef } from '../refs/normalize.js';
import { LiveRevisions, templateImages, type LiveSource } from './live-revisions.js';
import { controllerOf, isReplicaSetRef, settledByDeploymentName } from './owner-by-name.js';
import { atPath, BUILTIN, groupOf, OWNER_KINDS, type SourceKinds } from './source-kinds.js';
import { imagesAt } from './image-fields.js';
import type {
  Container,
  CronJobObject,
  Kind,
  NamespaceObjects,
  ObjectMeta,
  OwnerReference,
  PodObject,
  PodSpec,
  SourceObject,
} from './source-fields.js';

export interface InvalidRef {
  namespace: string;
  /** "Kind/name", ready for messages. */
  source: string;
  kind: Kind;
  name: string;
  /** The container's name; for an image field (`field` set), the field's place. */
  container: string;
  /** Set when the ref is an image field's (`spec.steps[2].image`), not a container's. */
  field?: true;
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

export function desiredImages(
  namespace: string,
  objs: NamespaceObjects,
  kinds: SourceKinds = BUILTIN,
): DesiredImages {
  const out: DesiredImages = { images: new Map(), users: new Map(), invalid: [] };
  const credit = (kind: Kind, name: string, containers: Iterable<Container>, carrier?: Carrier) => {
    for (const c of containers) addImage(out, namespace, kind, name, c, carrier);
  };
  // Objects being deleted contribute nothing; objects of another namespace are not ours to count
  // (callers group by namespace, this only guards against a mixed list).
  const counts = (meta: ObjectMeta) =>
    !meta.deletionTimestamp && (!meta.namespace || meta.namespace === namespace);
  const lookup = lookupIn(objs);
  const revisions = new LiveRevisions(templateImages(kinds, lookup));
  const ctx: RuleContext = { objs, kinds, credit, lookup, revision: (pod, src) => revisions.add(pod, src) };

  // Every source kind's PodSpecs count, even at replicas 0: the template still references the
  // image. A kind with a special rule (below) decides for itself.
  for (const k of kinds.all) {
    const special = SPECIAL_RULES[k.kind];
    for (const o of objs[k.key] ?? []) {
      if (!counts(o.metadata)) continue;
      if (special && !k.declared) {
        special(o, ctx);
        continue;
      }
      for (const path of k.podSpecs)
        credit(k.kind, o.metadata.name, allContainers(atPath(o, path) as PodSpec));
      for (const path of k.workloadRefs ?? []) creditWorkloadRef(k.kind, o, path, ctx, counts);
      for (const path of k.imageFields ?? [])
        for (const f of imagesAt(o, path)) {
          if (f.image !== undefined)
            addImage(
              out,
              namespace,
              k.kind,
              o.metadata.name,
              { name: f.at, image: f.image },
              undefined,
              undefined,
              true,
            );
          else
            out.invalid.push({
              namespace,
              source: `${k.kind}/${o.metadata.name}`,
              kind: k.kind,
              name: o.metadata.name,
              container: f.at,
              field: true,
              image: '',
              reason: f.problem!,
            });
        }
    }
  }
  // Images live Pods run that their workloads' current templates lack (./live-revisions.ts).
  for (const r of revisions.credits())
    for (const c of r.containers)
      addImage(out, namespace, r.kind, r.name, c, { kind: 'Pod', name: r.pod }, r.user);
  return out;
}

const KIND_NAME = /^[A-Za-z][A-Za-z0-9]{0,62}$/;

interface RuleContext {
  objs: NamespaceObjects;
  kinds: SourceKinds;
  credit(kind: Kind, name: string, containers: Iterable<Container>, carrier?: Carrier): void;
  /** The object of `key` that `ref` names (same name, same UID when both are known). */
  lookup(key: string, ref: { name: string; uid?: string }): SourceObject | undefined;
  /** An owned Pod whose chain ends at a live source: what its template lacks is credited too. */
  revision(pod: PodObject, src: LiveSource): void;
}
/** The object that carries a container, when it is not the one credited (an owned Pod's). */
type Carrier = { kind: Kind; name: string };

/** The kinds whose rule is not "credit the PodSpecs": keyed by kind, built-in kinds only. */
const SPECIAL_RULES: Record<string, (o: SourceObject, ctx: RuleContext) => void> = {
  // A Job created by a live CronJob is the CronJob's (credited through its jobTemplate).
  Job: (job, { objs, credit }) => {
    if (ownedByLiveCronJob(job.metadata, (objs.cronJobs ?? []) as CronJobObject[])) return;
    credit('Job', job.metadata.name, allContainers(atPath(job, 'spec.template.spec') as PodSpec));
  },
  Pod: (pod, ctx) => {
    const spec = (pod as PodObject).spec;
    const owners = pod.metadata.ownerReferences;
    // A naked Pod is its own source.
    if (!owners?.length) return ctx.credit('Pod', pod.metadata.name, allContainers(spec));
    // An owned Pod's ephemeral containers (kubectl debug) are its own.
    ctx.credit('Pod', pod.metadata.name, spec?.ephemeralContainers ?? []);
    // Its other containers come from its controller's template, already credited when the
    // controlling owner chain ends at a live source kind, as far as the template describes the
    // Pod (not during a rollout, below a StatefulSet partition, while a rollout is paused: then
    // the Pod's own images count for that source too, ./live-revisions.ts); otherwise they are
    // credited to the top owner.
    const chain = ownerChain(owners, ctx, pod);
    if ('source' in chain)
      return ctx.revision(pod as PodObject, cronJobOf(chain.source, ctx) ?? chain.source);
    if (!('top' in chain)) return;
    const top = chain.top;
    // Anyone who creates Pods writes their ownerReferences: a kind that is not a kind name
    // (status.kinds is a comma-separated list) is credited as the Pod itself.
    if (!KIND_NAME.test(top.kind))
      ctx.credit('Pod', pod.metadata.name, allContainers({ ...spec, ephemeralContainers: undefined }));
    else
      ctx.credit(top.kind, top.name, allContainers({ ...spec, ephemeralContainers: undefined }), {
        kind: 'Pod',
        name: pod.metadata.name,
      });
  },
};

const SETTLED = { settled: true } as const;

/**
 * Where an owned Pod's controlling owner chain ends: at a live source object (its template
 * credits the Pod, as far as it describes it), settled by a Deployment's name (its template
 * holds every image of the Pod: ./owner-by-name.ts), or at a `top` owner that no live source
 * object covers. Followed one step through the owner kinds (ReplicaSets, by metadata): a bare
 * ReplicaSet is the top itself. An owner that is not there (deleted, being deleted, another
 * object of the same name, or a ReplicaSet we cannot see) does not cover the Pod: its images
 * count (fail closed).
 */
export function ownerChain(
  owners: readonly OwnerReference[],
  ctx: Pick<RuleContext, 'objs' | 'kinds' | 'lookup'>,
  pod?: SourceObject,
): { top: OwnerReference } | { source: LiveSource } | { settled: true } {
  const ref = controllerOf(owners)!;
  const source = sourceKindOf(ref, ctx.kinds);
  if (source) {
    const o = ctx.lookup(source.key, ref);
    return live(o) ? { source: { spec: source, obj: o, via: ref } } : { top: ref };
  }
  const owner = OWNER_KINDS.find((k) => matches(ref, k));
  if (!owner) return { top: ref };
  if (pod && isReplicaSetRef(ref) && settledByDeploymentName(pod, ref, ctx.lookup)) return SETTLED;
  const o = ctx.lookup(owner.key, ref);
  const next = o && live(o) ? controllerOf(o.metadata.ownerReferences) : undefined;
  if (!next) return { top: ref };
  const nextSource = sourceKindOf(next, ctx.kinds);
  const n = nextSource && ctx.lookup(nextSource.key, next);
  if (nextSource && live(n)) return { source: { spec: nextSource, obj: n, via: ref } };
  return { top: next };
}

/** A Job's Pod when the Job is a live CronJob's: the CronJob's template is what is credited. */
function cronJobOf(src: LiveSource, ctx: RuleContext): LiveSource | undefined {
  if (src.spec.kind !== 'Job' || src.spec.declared) return undefined;
  const cronJobs = (ctx.objs.cronJobs ?? []) as CronJobObject[];
  if (!ownedByLiveCronJob(src.obj.metadata, cronJobs)) return undefined;
  const ref = src.obj.metadata.ownerReferences?.find((r) => r.kind === 'CronJob');
  const spec = ctx.kinds.byKind('CronJob');
  const cj = ref && spec ? ctx.lookup(spec.key, ref) : undefined;
  return cj && spec ? { spec, obj: cj, via: { kind: 'Job', name: src.obj.metadata.name } } : undefined;
}

/** The owner that gets an owned Pod's images, or undefined when a live source's template does. */
export function topOwner(
  owners: readonly OwnerReference[],
  ctx: Pick<RuleContext, 'objs' | 'kinds' | 'lookup'>,
  pod?: SourceObject,
): OwnerReference | undefined {
  const chain = ownerChain(owners, ctx, pod);
  return 'top' in chain ? chain.top : undefined;
}

const matches = (ref: OwnerReference, k: { kind: string; group: string }) =>
  ref.kind === k.kind && (ref.apiVersion === undefined || groupOf(ref.apiVersion) === k.group);
const sourceKindOf = (ref: OwnerReference, kinds: SourceKinds) =>
  ref.apiVersion === undefined ? kinds.byKind(ref.kind) : kinds.find(groupOf(ref.apiVersion), ref.kind);
const live = (o: SourceObject | undefined): o is SourceObject => Boolean(o && !o.metadata.deletionTimestamp);

/** Objects by key and name, indexed on first use (a rebuild looks up one owner per owned Pod). */
function lookupIn(objs: NamespaceObjects): RuleContext['lookup'] {
  const index = new Map<string, Map<string, SourceObject>>();
  return (key, ref) => {
    let m = index.get(key);
    if (!m) {
      index.set(key, (m = new Map()));
      for (const o of objs[key] ?? []) m.set(o.metadata.name, o);
    }
    const o = m.get(ref.name);
    // The same name with another UID is another object (deleted and recreated).
    return o && (!ref.uid || !o.metadata.uid || ref.uid === o.metadata.uid) ? o : undefined;
  };
}

/** A declared kind's reference to another source object (spec.workloadRef → a Deployment). */
function creditWorkloadRef(
  kind: Kind,
  o: SourceObject,
  path: string,
  ctx: RuleContext,
  counts: (m: ObjectMeta) => boolean,
): void {
  const ref = atPath(o, path) as { kind?: string; name?: string; apiVersion?: string } | undefined;
  if (!ref?.kind || !ref.name) return;
  const target = ctx.kinds.all.find(
    (k) => k.kind === ref.kind && (ref.apiVersion === undefined || groupOf(ref.apiVersion) === k.group),
  );
  const t = target && ctx.lookup(target.key, { name: ref.name });
  if (!target || !t || !counts(t.metadata)) return;
  for (const p of target.podSpecs) ctx.credit(kind, o.metadata.name, allContainers(atPath(t, p) as PodSpec));
}

/**
 * A Job created by a CronJob is credited to the CronJob instead, but only while that CronJob is
 * live (listed, not being deleted) and is the same object: an empty owner UID is trusted, a
 * different UID means the CronJob was deleted and recreated under the same name, so the old Job's
 * images are still the Job's own (then both kinds may appear).
 */
export function ownedByLiveCronJob(meta: ObjectMeta, cronJobs: readonly CronJobObject[]): boolean {
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

function addImage(
  out: DesiredImages,
  namespace: string,
  kind: Kind,
  name: string,
  c: Container,
  carrier: Carrier = { kind, name },
  user = `${kind}/${name}`,
  field = false,
): void {
  const image = c.image ?? '';
  const r = image.trim() === '' ? { ok: false as const, reason: 'empty image' } : normalizeRef(image);
  if (!r.ok) {
    out.invalid.push({
      namespace,
      // Reported on the object that carries the container (an owned Pod), not its owner.
      source: `${carrier.kind}/${carrier.name}`,
      kind: carrier.kind,
      name: carrier.name,
      container: c.name,
      ...(field ? { field: true as const } : {}),
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
  users.add(user);
}

/** status.kinds: sorted and comma-joined ("Deployment,Pod") so kubectl columns stay stable. */
export function kindsString(kinds: Iterable<Kind>): string {
  // At most KINDS_MAX characters (the CRD's limit): owner kinds are open-ended. The image stays
  // referenced either way; only the list of kinds is cut.
  let out = '';
  for (const k of [...new Set(kinds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const next = out ? `${out},${k}` : k;
    if (next.length > KINDS_MAX) break;
    out = next;
  }
  return out;
}

/** status.kinds' maximum length (crds/imageinventory.dev_images.yaml). */
export const KINDS_MAX = 1024;
