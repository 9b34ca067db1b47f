// Cancelling an erase job: only a job inv's controllers created (our managed-by label and an
// ImageList as its controller), and only its own worker Pods (our labels and the job's UID as
// their controller reference, deleted with a UID precondition), never anything else in the
// namespace. Order: the job is deleted first (its deletionTimestamp stops the controller from
// starting more workers; its finalizer makes the controller delete the job's ConfigMaps and
// PodTemplate), then its running workers, so removal stops now even when no controller runs.
import * as resources from '../kube/resources.js';
import { rfc3339 } from '../timestamps.js';
import { isNotFound, KubeApiError, type KubeRest } from '../kube/rest.js';
import {
  CANCELLED_ANNOTATION,
  isFinished,
  JOB_LABEL,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  type ImageJob,
} from '../erase/api/types.js';

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
  const job = await resources.get<ImageJob>(rest, 'ImageJob', undefined, name);
  const foreign = foreignJob(job);
  if (foreign)
    throw new CancelRefusedError(
      `imagejob ${name} was not created by inv's erase controllers (${foreign}): not touching it`,
    );
  const out: CancelResult = { job: name, podsDeleted: [], podsLeft: [] };
  const phase = job.status?.phase;
  if (isFinished(phase)) return { ...out, alreadyFinished: phase };
  if (!job.metadata.deletionTimestamp) {
    await markCancelled(rest, job);
    try {
      await resources.delete(rest, 'ImageJob', undefined, name, {
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
  const pods = await resources.list<PodMeta>(rest, 'Pod', ns, {
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
      await resources.delete(rest, 'Pod', ns, p.metadata.name, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: p.metadata.uid } },
      });
      out.podsDeleted.push(p.metadata.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      // Gone already: the garbage collector follows the job's deletion above (its Pods are
      // owned by it), and may get there between the list and this delete.
      out.podsDeleted.push(p.metadata.name);
    }
  }
  return out;
}

/** Who the request is from, by a SelfSubjectReview; undefined when the server cannot say. */
async function whoAmI(rest: KubeRest): Promise<string | undefined> {
  try {
    const r = await resources.create<{ status?: { userInfo?: { username?: string } } }>(
      rest,
      'SelfSubjectReview',
      undefined,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    );
    return r.status?.userInfo?.username || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records on the job's ImageList who cancelled it and when (CANCELLED_ANNOTATION), so its
 * controller reports Cancelled once the job is gone. Best effort: a list that is gone, replaced
 * (UID) or may not be patched leaves the cancel to go on, reported as a job deleted early.
 */
async function markCancelled(rest: KubeRest, job: ImageJob): Promise<void> {
  const ref = job.spec.imageList;
  const value = JSON.stringify({
    job: job.metadata.name,
    by: (await whoAmI(rest)) ?? 'unknown',
    at: rfc3339(new Date()),
  });
  try {
    await resources.patch(
      rest,
      'ImageList',
      undefined,
      ref.name,
      { metadata: { uid: ref.uid, annotations: { [CANCELLED_ANNOTATION]: value } } },
      { contentType: 'application/merge-patch+json' },
    );
  } catch (e) {
    if (!(e instanceof KubeApiError) || ![403, 404, 409, 422].includes(e.code)) throw e;
  }
}

/** Whether the job is gone (its cleanup finalizer done), or still there. */
export async function jobGone(rest: KubeRest, name: string): Promise<boolean> {
  try {
    await resources.get<ImageJob>(rest, 'ImageJob', undefined, name);
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  }
}
