// The few fields of the six source kinds that the source-to-kinds rules read. Structural and
// minimal on purpose: objects stripped on arrival (./strip.ts) and @kubernetes/client-node V1
// objects that carry metadata.name both fit, so the rules never depend on a client library.

export type Kind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'CronJob' | 'Job' | 'Pod';

export interface OwnerReference {
  kind: string;
  name: string;
  uid?: string;
  apiVersion?: string;
  controller?: boolean;
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

/** One namespace's worth of sources, as listed from the API or read from manifests. */
export interface NamespaceObjects {
  deployments: TemplatedObject[];
  statefulSets: TemplatedObject[];
  daemonSets: TemplatedObject[];
  cronJobs: CronJobObject[];
  jobs: TemplatedObject[];
  pods: PodObject[];
}

/** A namespace with none of the six source kinds yet (collectors fill it in). */
export const emptyNamespaceObjects = (): NamespaceObjects => ({
  deployments: [],
  statefulSets: [],
  daemonSets: [],
  cronJobs: [],
  jobs: [],
  pods: [],
});
