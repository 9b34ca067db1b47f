// Reduces API objects to the few fields the source-to-kinds rules read, as soon as they
// arrive from a LIST or a watch. At cluster scale (tens of thousands of Pods) this is what
// keeps memory small: everything else in a Pod (status, volumes, env, managedFields) is dropped.
import { projectImageFields, type ImageFieldPath } from './image-fields.js';

interface RawMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  deletionTimestamp?: string | Date;
  ownerReferences?: {
    kind?: string;
    name?: string;
    uid?: string;
    apiVersion?: string;
    controller?: boolean | null;
  }[];
}
interface RawContainer {
  name?: string;
  image?: string;
}
interface RawPodSpec {
  containers?: RawContainer[];
  initContainers?: RawContainer[];
  ephemeralContainers?: RawContainer[];
}
export interface RawObject {
  metadata?: RawMeta;
  spec?: unknown;
}

export interface StrippedOwnerReference {
  kind: string;
  name: string;
  uid?: string;
  apiVersion?: string;
  controller?: boolean;
}
export interface StrippedMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  deletionTimestamp?: string;
  ownerReferences?: StrippedOwnerReference[];
}
export interface StrippedContainer {
  name: string;
  image?: string;
}
export interface StrippedPodSpec {
  containers?: StrippedContainer[];
  initContainers?: StrippedContainer[];
  ephemeralContainers?: StrippedContainer[];
}
export interface StrippedPod {
  metadata: StrippedMeta;
  spec: StrippedPodSpec;
}
/** Any stripped source object: its PodSpecs (and workload references) kept at their paths. */
export interface StrippedObject {
  metadata: StrippedMeta;
  spec?: Record<string, unknown>;
}

export function meta(m: RawMeta | undefined): StrippedMeta {
  const out: StrippedMeta = { name: m?.name ?? '' };
  if (m?.namespace) out.namespace = m.namespace;
  if (m?.uid) out.uid = m.uid;
  if (m?.generation !== undefined) out.generation = m.generation;
  if (m?.deletionTimestamp) {
    out.deletionTimestamp =
      m.deletionTimestamp instanceof Date ? m.deletionTimestamp.toISOString() : m.deletionTimestamp;
  }
  if (m?.ownerReferences?.length) {
    // apiVersion and controller tell a Deployment's ReplicaSet from a bare one, and a declared
    // kind from a same-named kind of another group.
    out.ownerReferences = m.ownerReferences.map((o) => {
      const r: StrippedOwnerReference = { kind: o.kind ?? '', name: o.name ?? '' };
      if (o.uid) r.uid = o.uid;
      if (o.apiVersion) r.apiVersion = o.apiVersion;
      if (o.controller) r.controller = true;
      return r;
    });
  }
  return out;
}

function containers(list: RawContainer[] | undefined): StrippedContainer[] | undefined {
  // A declared kind's path may lead anywhere: anything but a list of objects holds no container.
  if (!Array.isArray(list) || !list.length) return undefined;
  const out: StrippedContainer[] = [];
  for (const c of list as unknown[]) {
    if (!c || typeof c !== 'object') continue;
    const { name, image } = c as RawContainer;
    const n = typeof name === 'string' ? name : '';
    out.push(image === undefined ? { name: n } : { name: n, image });
  }
  return out.length ? out : undefined;
}

export function podSpec(s: unknown): StrippedPodSpec {
  const r = (s && typeof s === 'object' ? s : {}) as RawPodSpec;
  const out: StrippedPodSpec = {};
  const c = containers(r.containers);
  const i = containers(r.initContainers);
  const e = containers(r.ephemeralContainers);
  if (c) out.containers = c;
  if (i) out.initContainers = i;
  if (e) out.ephemeralContainers = e;
  return out;
}

export function stripPod(o: RawObject): StrippedPod {
  return { metadata: meta(o.metadata), spec: podSpec(o.spec) };
}

/** Sets `v` at a dotted path under `root` (creating the objects on the way). */
function setPath(root: Record<string, unknown>, path: readonly string[], v: unknown): void {
  let o = root;
  for (const p of path.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
  o[path.at(-1)!] = v;
}

/**
 * A stripper for a kind whose PodSpecs sit at `podSpecs` (dotted paths from the object's root,
 * `spec.template.spec`) and workload references at `refs`: the result keeps only those, at the
 * same paths, so the rules read raw and stripped objects alike.
 */
export function stripperFor(
  podSpecs: readonly string[],
  refs: readonly string[] = [],
  imageFields: readonly ImageFieldPath[] = [],
  /** A cluster-scoped kind's: its objects count in this namespace (source-kinds.ts). */
  namespace?: string,
): (o: RawObject) => StrippedObject {
  const specs = podSpecs.map((p) => p.split('.'));
  const refPaths = refs.map((p) => p.split('.'));
  return (o) => {
    const m = meta(o.metadata);
    if (namespace) m.namespace = namespace;
    const out: Record<string, unknown> = { metadata: m };
    for (const path of specs) {
      let v: unknown = o;
      for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
      setPath(out, path, podSpec(v));
    }
    for (const path of refPaths) {
      let v: unknown = o;
      for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
      const r = v as { kind?: unknown; name?: unknown; apiVersion?: unknown } | undefined;
      if (r && typeof r.kind === 'string' && typeof r.name === 'string') {
        const ref: Record<string, string> = { kind: r.kind, name: r.name };
        if (typeof r.apiVersion === 'string') ref.apiVersion = r.apiVersion;
        setPath(out, path, ref);
      }
    }
    if (imageFields.length) projectImageFields(o, imageFields, out);
    return out as unknown as StrippedObject;
  };
}

/** Metadata only: the owner kinds (ReplicaSets), read for their ownerReferences. */
export function stripMetadata(o: RawObject): StrippedObject {
  return { metadata: meta(o.metadata) };
}
