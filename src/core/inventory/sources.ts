// Where each source kind lives in the API, and how to read one namespace's worth of them.
// ReplicaSets are deliberately absent: workload templates already name every image.
import { kindCollectionPath } from '../kube/kinds.js';
import type { KubeRest } from '../kube/rest.js';
import { stripCronJob, stripPod, stripWorkload, type RawObject } from './strip.js';
import type { NamespaceObjects } from './types.js';

export const SOURCE_KINDS = {
  Deployment: { group: 'apps', apiVersion: 'apps/v1', key: 'deployments' },
  StatefulSet: { group: 'apps', apiVersion: 'apps/v1', key: 'statefulSets' },
  DaemonSet: { group: 'apps', apiVersion: 'apps/v1', key: 'daemonSets' },
  CronJob: { group: 'batch', apiVersion: 'batch/v1', key: 'cronJobs' },
  Job: { group: 'batch', apiVersion: 'batch/v1', key: 'jobs' },
  Pod: { group: '', apiVersion: 'v1', key: 'pods' },
} as const;

export type SourceKind = keyof typeof SOURCE_KINDS;

export function collectionPath(kind: SourceKind, namespace?: string): string {
  return kindCollectionPath(SOURCE_KINDS[kind].group, kind, namespace);
}

export function stripFor(kind: SourceKind): (o: RawObject) => unknown {
  if (kind === 'Pod') return stripPod;
  if (kind === 'CronJob') return stripCronJob;
  return stripWorkload;
}

/**
 * Lists the six source kinds of one namespace (paginated, in parallel), stripped on arrival;
 * only the objects matching `labelSelector` when one is given.
 */
export async function listNamespaceObjects(
  rest: KubeRest,
  namespace: string,
  labelSelector?: string,
): Promise<NamespaceObjects> {
  const kinds = Object.keys(SOURCE_KINDS) as SourceKind[];
  const query = labelSelector ? { labelSelector } : undefined;
  const lists = await Promise.all(
    kinds.map((k) =>
      rest.list<RawObject, unknown>(collectionPath(k, namespace), { map: stripFor(k), query }),
    ),
  );
  const out: Record<string, unknown[]> = {};
  kinds.forEach((k, i) => (out[SOURCE_KINDS[k].key] = lists[i]!.items));
  return out as unknown as NamespaceObjects;
}
