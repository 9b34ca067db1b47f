// Every image a live Pod of a workload runs is the workload's, even when its current template
// names another: during a rollout the old ReplicaSet's Pods still run `app:v1`, below a
// StatefulSet partition the lower ordinals still run `db:v1`, a paused rollout keeps its old
// Pods, a DaemonSet updates node by node, Argo Rollouts keep a stable and a canary ReplicaSet.
// The template alone would leave those images to no one, and a `*` prune would remove them from
// every node where no such Pod runs at that moment.
//
// Cheapest exact source: the Pod's own containers, compared with the workload's current template
// (a Set lookup per container; the owner is already looked up to credit the template). ReplicaSets
// with replicas or ControllerRevisions would say the same with more reads, and miss images a
// mutating webhook wrote into the Pods. A Pod whose images are all in the template credits
// nothing more (the seed's rule holds); one that differs credits the images the template lacks
// to the workload, as the user `Deployment/web (ReplicaSet web-5d4f8c, 3 Pods)` or
// `StatefulSet/db (earlier revision, 1 Pod)`. Pure.
import { atPath, type SourceKindSpec, type SourceKinds } from './source-kinds.js';
import { imagesAt } from './image-fields.js';
import type { Container, OwnerReference, PodObject, PodSpec, SourceObject } from './source-fields.js';

/** The live source object an owned Pod's chain ends at, and its controller on the way. */
export interface LiveSource {
  spec: SourceKindSpec;
  obj: SourceObject;
  /** The Pod's controller: the source itself, or the ReplicaSet between. */
  via: OwnerReference;
}

/** One workload revision's images that its template lacks, and the Pods that run them. */
interface Revision {
  kind: string;
  name: string;
  /** "ReplicaSet web-5d4f8c", "Job nightly-28991" or "earlier revision". */
  what: string;
  pods: Set<string>;
  containers: Map<string, Container>;
}

/** status.users' longest entry (crds/imageinventory.dev_images.yaml). */
const USER_MAX = 320;
/** The longest owner name shown in a user (a ReplicaSet's is its Deployment's plus a hash). */
const VIA_MAX = 80;

/** The images of every PodSpec of `o` (and of the objects its workload references point to). */
type TemplateOf = (o: SourceObject, spec: SourceKindSpec) => Set<string>;

export function templateImages(
  kinds: SourceKinds,
  lookup: (key: string, ref: { name: string }) => SourceObject | undefined,
): TemplateOf {
  const cache = new WeakMap<SourceObject, Set<string>>();
  return (o, spec) => {
    let set = cache.get(o);
    if (set) return set;
    cache.set(o, (set = new Set()));
    const add = (s: PodSpec | undefined) => {
      for (const c of [...(s?.containers ?? []), ...(s?.initContainers ?? [])])
        if (c.image) set!.add(c.image);
    };
    for (const p of spec.podSpecs) add(atPath(o, p) as PodSpec | undefined);
    for (const p of spec.imageFields ?? []) for (const f of imagesAt(o, p)) if (f.image) set.add(f.image);
    for (const p of spec.workloadRefs ?? []) {
      const ref = atPath(o, p) as { kind?: string; name?: string } | undefined;
      const target = ref?.kind ? kinds.byKind(ref.kind) : undefined;
      const t = target && ref?.name ? lookup(target.key, { name: ref.name }) : undefined;
      if (target && t) for (const tp of target.podSpecs) add(atPath(t, tp) as PodSpec | undefined);
    }
    return set;
  };
}

/** Collects, Pod by Pod, the images live Pods run that their workloads' templates lack. */
export class LiveRevisions {
  private readonly revisions = new Map<string, Revision>();

  constructor(private readonly template: TemplateOf) {}

  /** `pod`, whose chain ends at `src`: its images the template lacks, if any, are noted. */
  add(pod: PodObject, src: LiveSource): void {
    const template = this.template(src.obj, src.spec);
    const spec = pod.spec;
    let missing: Container[] | undefined;
    // No array is built per Pod: a rebuild passes every Pod of the namespace through here.
    for (const list of [spec?.containers, spec?.initContainers])
      if (list) for (const c of list) if (!c.image || !template.has(c.image)) (missing ??= []).push(c);
    if (!missing) return;
    const name = src.obj.metadata.name;
    const what = revisionOf(src, name, template.size > 0);
    const key = `${src.spec.kind}/${name}\0${what}`;
    let r = this.revisions.get(key);
    if (!r)
      this.revisions.set(
        key,
        (r = { kind: src.spec.kind, name, what, pods: new Set(), containers: new Map() }),
      );
    r.pods.add(pod.metadata.name);
    for (const c of missing) if (!r.containers.has(c.image ?? '')) r.containers.set(c.image ?? '', c);
  }

  /** Each revision's images, with its user label; a Pod name carries a bad ref's report. */
  *credits(): Generator<{ kind: string; name: string; user: string; pod: string; containers: Container[] }> {
    for (const r of this.revisions.values()) {
      const n = r.pods.size;
      const user = `${r.kind}/${r.name} (${r.what}, ${n} Pod${n === 1 ? '' : 's'})`;
      yield {
        kind: r.kind,
        name: r.name,
        user: user.length > USER_MAX ? `${user.slice(0, USER_MAX - 1)}…` : user,
        pod: [...r.pods].sort()[0]!,
        containers: [...r.containers.values()],
      };
    }
  }
}

/**
 * "ReplicaSet web-5d4f8c" (a Deployment's or a Rollout's), "Job nightly-28991" (a CronJob's),
 * "earlier revision" (a StatefulSet's or a DaemonSet's Pods: the daemon keeps no Pod labels, so
 * the revision hash is not at hand), or "not in its template" (a declared kind whose template
 * holds no image, such as a workflow's steps).
 */
function revisionOf(src: LiveSource, name: string, hasTemplate: boolean): string {
  if (src.via.kind === src.spec.kind && src.via.name === name)
    return hasTemplate ? 'earlier revision' : 'not in its template';
  return `${src.via.kind} ${src.via.name.slice(0, VIA_MAX)}`;
}
