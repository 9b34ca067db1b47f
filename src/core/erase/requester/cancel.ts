// Cancelling an erase job: only a job inv's controllers created (our managed-by label and an
// ImageList as its controller), and only its own worker Pods (our labels and the job's UID as
// their controller reference, deleted with a UID precondition), never anything else in the
// namespace. Order: the job is deleted first (its deletionTimestamp stops the controller from
// starting more workers; its finalizer makes the controller delete the job's ConfigMaps and
// PodTemplate), then its running workers, so removal stops now even when no controller runs.
import { isNotFound, type KubeRest } from '../../kube/rest.js';
import {
  IMAGEJOBS_PATH,
  isFinished,
  JOB_LABEL,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  type ImageJob,
} from '../api/types.js';

export class CancelRefusedError extends Error {}

export interface CancelResult {
  job: string;
  /** The job had already finished: nothing was deleted. */
  alreadyFinished?: 'Completed' | 'Failed';
  podsDeleted: string[];
  /** Pods carrying the job's label that it does not own: left alone. */
  podsLeft: string[];
}

interface PodMeta {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind?: string; uid?: string; controller?: boolean }[];
    deletionTimestamp?: string;
  };
}

/** Why `job` is not one of ours, or undefined when it is. */
export function foreignJob(job: ImageJob): string | undefined {
  if (job.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY)
    return `it lacks the label ${MANAGED_BY_LABEL}=${MANAGED_BY}`;
  if (!job.metadata.ownerReferences?.some((o) => o.kind === 'ImageList' && o.controller))
    return 'no ImageList controls it';
  return undefined;
}

/** Whether a Pod is a worker of `job` by the owner chain (our labels, controller reference to the job's UID). */
export const ownedWorker = (pod: PodMeta, job: ImageJob): boolean =>
  pod.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY &&
  pod.metadata.labels?.[JOB_LABEL] === job.metadata.name &&
  Boolean(job.metadata.uid) &&
  (pod.metadata.ownerReferences ?? []).some(
    (o) => o.kind === 'ImageJob' && o.controller === true && o.uid === job.metadata.uid,
  );

export async function cancelJob(rest: KubeRest, name: string): Promise<CancelResult> {
  const job = await rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${name}`);
  const foreign = foreignJob(job);
  if (foreign)
    throw new CancelRefusedError(
      `imagejob ${name} was not created by inv's erase controllers (${foreign}): not touching it`,
    );
  const out: CancelResult = { job: name, podsDeleted: [], podsLeft: [] };
  const phase = job.status?.phase;
  if (isFinished(phase)) return { ...out, alreadyFinished: phase };
  if (!job.metadata.deletionTimestamp) {
    try {
      await rest.request('DELETE', `${IMAGEJOBS_PATH}/${name}`, {
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          preconditions: { uid: job.metadata.uid },
          propagationPolicy: 'Background',
        },
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  const ns = job.spec.namespace;
  const pods = await rest.list<PodMeta>(`/api/v1/namespaces/${ns}/pods`, {
    query: { labelSelector: `${JOB_LABEL}=${name}` },
  });
  for (const p of pods.items) {
    if (!ownedWorker(p, job)) {
      out.podsLeft.push(p.metadata.name);
      continue;
    }
    if (p.metadata.deletionTimestamp) {
      out.podsDeleted.push(p.metadata.name);
      continue;
    }
    try {
      await rest.request('DELETE', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: p.metadata.uid } },
      });
      out.podsDeleted.push(p.metadata.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  return out;
}

/** Whether the job is gone (its cleanup finalizer done), or still there. */
export async function jobGone(rest: KubeRest, name: string): Promise<boolean> {
  try {
    await rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${name}`);
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  }
}
