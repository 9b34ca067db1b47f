// Reduces API objects to the few fields the source-to-kinds rules read, as soon as they
// arrive from a LIST or a watch. At cluster scale (tens of thousands of Pods) this is what
// keeps memory small: everything else in a Pod (status, volumes, env, managedFields) is dropped.

interface RawMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  deletionTimestamp?: string | Date;
  ownerReferences?: { kind?: string; name?: string; uid?: string; apiVersion?: string }[];
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
  spec?: {
    containers?: RawContainer[];
    initContainers?: RawContainer[];
    ephemeralContainers?: RawContainer[];
    template?: { spec?: RawPodSpec };
    jobTemplate?: { spec?: { template?: { spec?: RawPodSpec } } };
  };
}

export interface StrippedMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  deletionTimestamp?: string;
  ownerReferences?: { kind: string; name: string; uid?: string }[];
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
export interface StrippedWorkload {
  metadata: StrippedMeta;
  spec: { template: { spec: StrippedPodSpec } };
}
export interface StrippedCronJob {
  metadata: StrippedMeta;
  spec: { jobTemplate: { spec: { template: { spec: StrippedPodSpec } } } };
}

function meta(m: RawMeta | undefined): StrippedMeta {
  const out: StrippedMeta = { name: m?.name ?? '' };
  if (m?.namespace) out.namespace = m.namespace;
  if (m?.uid) out.uid = m.uid;
  if (m?.generation !== undefined) out.generation = m.generation;
  if (m?.deletionTimestamp) {
    out.deletionTimestamp =
      m.deletionTimestamp instanceof Date ? m.deletionTimestamp.toISOString() : m.deletionTimestamp;
  }
  if (m?.ownerReferences?.length) {
    out.ownerReferences = m.ownerReferences.map((o) => {
      const r: { kind: string; name: string; uid?: string } = { kind: o.kind ?? '', name: o.name ?? '' };
      if (o.uid) r.uid = o.uid;
      return r;
    });
  }
  return out;
}

function containers(list: RawContainer[] | undefined): StrippedContainer[] | undefined {
  if (!list?.length) return undefined;
  return list.map((c) =>
    c.image === undefined ? { name: c.name ?? '' } : { name: c.name ?? '', image: c.image },
  );
}

function podSpec(s: RawPodSpec | undefined): StrippedPodSpec {
  const out: StrippedPodSpec = {};
  const c = containers(s?.containers);
  const i = containers(s?.initContainers);
  const e = containers(s?.ephemeralContainers);
  if (c) out.containers = c;
  if (i) out.initContainers = i;
  if (e) out.ephemeralContainers = e;
  return out;
}

export function stripPod(o: RawObject): StrippedPod {
  return { metadata: meta(o.metadata), spec: podSpec(o.spec) };
}

/** Deployment, StatefulSet, DaemonSet and Job all carry a pod template at spec.template. */
export function stripWorkload(o: RawObject): StrippedWorkload {
  return { metadata: meta(o.metadata), spec: { template: { spec: podSpec(o.spec?.template?.spec) } } };
}

export function stripCronJob(o: RawObject): StrippedCronJob {
  return {
    metadata: meta(o.metadata),
    spec: {
      jobTemplate: { spec: { template: { spec: podSpec(o.spec?.jobTemplate?.spec?.template?.spec) } } },
    },
  };
}
