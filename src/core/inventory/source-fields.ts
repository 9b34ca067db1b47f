// The few fields of the source kinds that the source-to-kinds rules read. Structural and
// minimal on purpose: objects stripped on arrival (./strip.ts) and @kubernetes/client-node V1
// objects that carry metadata.name both fit, so the rules never depend on a client library.
import { BUILTIN_SOURCE_KINDS, OWNER_KINDS } from './source-kinds.js';

/**
 * A kind credited with an image: a source kind (./source-kinds.ts, built in or declared) or the
 * kind of the top owner of a Pod that no source kind controls (`ReplicaSet`, `Workflow`).
 */
export type Kind = string;

export interface OwnerReference {
  kind: string;
  name: string;
  uid?: string;
  apiVersion?: string;
  controller?: boolean | null;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  /** Any value (Date from the client, string from JSON) means "being deleted". */
  deletionTimestamp?: Date | string | null;
  ownerReferences?: OwnerReference[] | null;
}

export interface Container {
  name: string;
  image?: string | null;
}

export interface PodSpec {
  containers?: Container[] | null;
  initContainers?: Container[] | null;
  ephemeralContainers?: Container[] | null;
}

export interface PodTemplate {
  spec?: PodSpec | null;
}

/** Deployment, StatefulSet, DaemonSet and Job: all carry spec.template. */
export interface TemplatedObject {
  metadata: ObjectMeta;
  spec?: { template?: PodTemplate | null } | null;
}

export interface CronJobObject {
  metadata: ObjectMeta;
  spec?: { jobTemplate?: { spec?: { template?: PodTemplate | null } | null } | null } | null;
}

export interface PodObject {
  metadata: ObjectMeta;
  spec?: PodSpec | null;
}

/** Any source object: metadata, and the PodSpecs at the paths its kind names. */
export interface SourceObject {
  metadata: ObjectMeta;
  spec?: unknown;
}

/**
 * One namespace's worth of sources, as listed from the API or read from manifests: each kind's
 * objects under its registry key (`deployments`, `pods`, a declared kind's `Rollout.argoproj.io`),
 * and the owner kinds' metadata (`replicaSets`). A missing key is an empty list.
 */
export type NamespaceObjects = Partial<Record<string, SourceObject[]>>;

/** A namespace with none of the built-in kinds yet (collectors fill it in). */
export const emptyNamespaceObjects = (): NamespaceObjects =>
  Object.fromEntries([...BUILTIN_SOURCE_KINDS, ...OWNER_KINDS].map((k) => [k.key, []]));
