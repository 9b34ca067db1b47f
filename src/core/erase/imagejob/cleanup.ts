// Clean up, and the cleanup finalizer.
//
// After deleteAfter every item is scheduled for deletion (persisted before the first DELETE),
// deleted wave by wave in canonical order (Pods, then PodTemplate, then ConfigMaps) and dropped
// when gone; then the ImageJob itself, once its ImageList has recorded the result.
// A job being deleted (by someone, by the garbage collector after its ImageList, or by itself)
// first deletes every object of its inventory the same way, and lets go of the job (removes the
// finalizer) only when all of them are gone.
import * as resources from '../../kube/resources.js';
import { isConflict, isNotFound } from '../../kube/rest.js';
import { itemKey, ApplyInventory } from '../../apply-inventory/apply-inventory.js';
import { CLEANUP_FINALIZER, isFinished, SCHEDULE_TIME_ANNOTATION, type ImageJob } from '../api/types.js';
import type { JobContext } from './context.js';
import { pruneRecords } from './finish.js';
import { liveObjects, livePods } from './live.js';
import { iso, putStatus, recordStatus, type Pass } from './pass.js';
import { jobOwner } from './worker-objects.js';

/** Returns 'deleted' once the job itself was deleted. */
export async function cleanUp(ctx: JobContext, p: Pass): Promise<'deleted' | undefined> {
  const { job, name, st, now } = p;
  if (!isFinished(st.phase)) return undefined;
  ctx.inputs.forget(job);
  // A deleteAfter that is not a time (written by hand) means now: never a job left for ever.
  const stored = Date.parse(st.deleteAfter ?? iso(now));
  const deleteAt = Number.isNaN(stored) ? now.getTime() : stored;
  if (now.getTime() >= deleteAt && p.inv.hasUndeleted) {
    p.inv.scheduleDeletion();
    recordStatus(p);
    await p.save(); // deletion is recorded before the first DELETE
  }
  if (p.inv.deleting) {
    const allLive = await liveObjects(ctx, name, p.ns, p.live, p.inv.deleteWaveItems());
    const r = await p.inv.delete(ctx.rest, { owner: p.owner, live: allLive });
    for (const f of r.foreign)
      ctx.log.warn('object not ours, left untouched', { job: name, object: itemKey(f.ref) });
    p.requeue = Math.min(p.requeue ?? Infinity, p.inv.deleting ? 500 : Infinity);
  }
  if (p.inv.size === 0 && now.getTime() >= deleteAt) {
    recordStatus(p);
    await p.save();
    if (await listRecorded(ctx, job)) {
      await resources
        .delete(ctx.rest, 'ImageJob', undefined, name, {
          body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: job.metadata.uid } },
        })
        .catch((e) => (isNotFound(e) || isConflict(e) ? undefined : Promise.reject(e)));
      ctx.log.info('job deleted', { job: name });
      // Its record stays; the clock has moved since it finished: what is past the retention goes.
      await pruneRecords(ctx, p);
      return 'deleted';
    }
    p.requeue = Math.min(p.requeue ?? Infinity, 5000);
  } else if (now.getTime() < deleteAt) {
    p.requeue = Math.min(p.requeue ?? Infinity, deleteAt - now.getTime());
  }
  return undefined;
}

/** The cleanup finalizer of a job being deleted: when to look again (ms), or undefined once let go. */
export async function finalize(ctx: JobContext, job: ImageJob): Promise<number | undefined> {
  const name = job.metadata.name;
  if (!job.metadata.finalizers?.includes(CLEANUP_FINALIZER)) return undefined;
  const st = (job.status ??= {});
  const inv = ApplyInventory.decode(st.inventory);
  const before = JSON.stringify(st.inventory ?? []);
  if (inv.hasUndeleted) inv.scheduleDeletion();
  if (inv.deleting) {
    const ns = ctx.namespace;
    const owner = jobOwner(job);
    const live = await livePods(ctx, name, ns, owner);
    // Write-ahead: the deletion is recorded before the first DELETE.
    st.inventory = inv.encode();
    if (JSON.stringify(st.inventory) !== before) await putStatus(ctx, job);
    await inv.delete(ctx.rest, {
      owner,
      live: await liveObjects(ctx, name, ns, live, inv.deleteWaveItems()),
    });
    st.inventory = inv.encode();
    await putStatus(ctx, job);
  }
  if (inv.size > 0) return 500; // Pods take a moment to go (the kubelet stops them first)
  const finalizers = (job.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
  await resources.patch(
    ctx.rest,
    'ImageJob',
    undefined,
    name,
    [
      { op: 'test', path: '/metadata/resourceVersion', value: job.metadata.resourceVersion },
      { op: 'replace', path: '/metadata/finalizers', value: finalizers },
    ],
    { contentType: 'application/json-patch+json' },
  );
  ctx.log.info('job deleted, its objects cleaned up', { job: name });
  return undefined;
}

/**
 * True when the ImageList has copied this job's result (or is gone, or moved on to a newer
 * generation). Only then may the job delete itself: the list's lastJobGeneration is what
 * keeps the list controller from starting this generation's job again once it is gone, so
 * a list that has not recorded this job yet (e.g. killed between creating the job and
 * writing its status) must record it first. A scheduled run is recorded once the list's
 * lastScheduleTime is later than its tick.
 */
export async function listRecorded(ctx: JobContext, job: ImageJob): Promise<boolean> {
  const list = await ctx.reader.list(job.spec.imageList.name);
  if (!list) return true;
  if (list.metadata.uid !== job.spec.imageList.uid) return true;
  const s = list.status;
  if ((s?.lastJobGeneration ?? 0) > job.spec.imageList.generation) return true;
  const tick = job.metadata.annotations?.[SCHEDULE_TIME_ANNOTATION];
  if (tick && s?.lastScheduleTime && Date.parse(s.lastScheduleTime) > Date.parse(tick)) return true;
  return s?.lastJob === job.metadata.name && isFinished(s?.phase);
}
