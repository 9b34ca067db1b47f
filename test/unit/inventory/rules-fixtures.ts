// The shared builders of the source-to-kinds rule tests (rules.test.ts, rules-owners.test.ts):
// containers, Pod specs and source objects in one namespace, the object lists desiredImages reads
// (with the ReplicaSet of a Deployment, so Pods it owns are covered), and the result as plain data.
import { desiredImages, kindsString } from '../../../src/core/inventory/rules.js';
import type {
  Container,
  CronJobObject,
  NamespaceObjects,
  ObjectMeta,
  PodObject,
  PodSpec,
  TemplatedObject,
} from '../../../src/core/inventory/source-fields.js';

export const NS = 'team-a';

export const c = (image: string | undefined, name = 'main'): Container =>
  image === undefined ? { name } : { name, image };
export const spec = (containers: string[], init: string[] = [], ephemeral?: string[]): PodSpec => {
  const s: PodSpec = {
    containers: containers.map((i, n) => c(i, `c${n}`)),
    initContainers: init.map((i, n) => c(i, `i${n}`)),
  };
  if (ephemeral) s.ephemeralContainers = ephemeral.map((i, n) => c(i, `e${n}`));
  return s;
};
export const meta = (name: string, extra: Partial<ObjectMeta> = {}): ObjectMeta => ({
  name,
  namespace: NS,
  ...extra,
});
export const workload = (name: string, s: PodSpec, extra: Partial<ObjectMeta> = {}): TemplatedObject => ({
  metadata: meta(name, extra),
  spec: { template: { spec: s } },
});
export const cronJob = (name: string, s: PodSpec, extra: Partial<ObjectMeta> = {}): CronJobObject => ({
  metadata: meta(name, extra),
  spec: { jobTemplate: { spec: { template: { spec: s } } } },
});
export const pod = (name: string, s: PodSpec, extra: Partial<ObjectMeta> = {}): PodObject => ({
  metadata: meta(name, extra),
  spec: s,
});
export const rsOwned = {
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-123', uid: 'rs-uid' }],
};

// The ReplicaSet of rsOwned's Pods, as its metadata is read: controlled by Deployment web.
export const deploymentRs = {
  metadata: meta('web-123', {
    uid: 'rs-uid',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd', controller: true }],
  }),
};

export function objs(partial: Partial<NamespaceObjects>): NamespaceObjects {
  return {
    deployments: [],
    statefulSets: [],
    daemonSets: [],
    cronJobs: [],
    jobs: [],
    pods: [],
    replicaSets: [deploymentRs],
    ...partial,
  };
}

/** The result as plain data: normalized ref -> "Kind,Kind". */
export function kinds(o: Partial<NamespaceObjects>): Record<string, string> {
  const { images } = desiredImages(NS, objs(o));
  return Object.fromEntries([...images].map(([ref, ks]) => [ref, kindsString(ks)]));
}

export const lib = (s: string) => `docker.io/library/${s}`;
