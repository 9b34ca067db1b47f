// Plan (write-ahead): select the nodes, record every worker object (Creating) and every node's
// result (Pending or Skipped), and write it before anything is created. A `*` prune with the
// inventory's protection first computes, once, the set of refs the cluster's workloads reference
// and records how many ConfigMaps carry it; without that set the job waits (fail closed), and
// fails with the reason, having removed nothing, at its deadline or after the administrator's
// protectionWait (inv-erase-config), whichever comes first.
import { PRUNE_ALL } from '../spec/images.js';
import { formatDurationMs } from '../../duration.js';
import { selectNodes } from '../nodes/selection.js';
import { pendingResult } from '../../contract/results.js';
import type { ImageJob } from '../api/types.js';
import type { JobContext } from './context.js';
import { inputContents, planInputs } from '../worker/inputs.js';
import { jobExclusions, jobScannerConfig } from './input-contents.js';
import { jobEvent } from './job-events.js';
import { timeAfter } from '../../timestamps.js';
import { iso, recordStatus, type Pass } from './pass.js';
import { workerObjects } from './worker-objects.js';

/** Retry delay while the protected set cannot be computed from a cache. */
const PROTECTION_RETRY_MS = 5000;
/** The longest a waiting prune goes without asking again. */
const PROTECTION_RETRY_MAX_MS = 60_000;

/**
 * When a prune waiting for its protected set asks again. From the daemon's cache a retry costs
 * nothing, so every 5 s; a fresh scan lists the whole cluster, so it asks less often the longer
 * it has waited (a tenth of the wait, from 5 s to a minute): a namespace that blocks it for an
 * hour costs 60 scans, not 720. PURE.
 */
export function protectionRetryMs(waitedMs: number, scansCluster: boolean): number {
  if (!scansCluster) return PROTECTION_RETRY_MS;
  return Math.min(PROTECTION_RETRY_MAX_MS, Math.max(PROTECTION_RETRY_MS, Math.floor(waitedMs / 10)));
}

/**
 * Whether a prune that has waited `waitedMs` for its protected set gives up, and why: at the
 * job's deadline or after the administrator's protectionWait, whichever comes first. PURE.
 */
export function protectionGivesUp(
  waitedMs: number,
  jobTimeoutSeconds: number,
  protectionWaitSeconds: number,
): string | undefined {
  if (protectionWaitSeconds < jobTimeoutSeconds) {
    if (waitedMs >= protectionWaitSeconds * 1000)
      return `gave up after ${formatDurationMs(protectionWaitSeconds * 1000)} (the administrator's protectionWait)`;
  } else if (waitedMs >= jobTimeoutSeconds * 1000) return 'gave up at the job deadline';
  return undefined;
}

/** A `*` prune keeps what the inventory references unless the request turned that off. */
export const protectsInventory = (job: ImageJob): boolean =>
  job.spec.images.includes(PRUNE_ALL) && job.spec.protectInventory !== false;

/** Returns 'planned', or when to look again (ms; undefined: on events only) while it cannot plan. */
export async function plan(ctx: JobContext, p: Pass): Promise<'planned' | number | undefined> {
  const { job, name, st, now, cfg, admin } = p;
  let planChunks: string[] = [];
  if (protectsInventory(job)) {
    try {
      const c = await ctx.inputs.computeProtected();
      planChunks = c.chunks;
      st.protectedRefs = c.refs;
      st.protectedChunks = c.chunks.length;
    } catch (e) {
      // Fail closed: without the set, a * prune could remove what a workload needs next.
      const msg = `waiting for the inventory (${ctx.protection.describe}) to protect referenced images: ${(e as Error).message}`;
      const created = Date.parse(job.metadata.creationTimestamp ?? iso(now));
      const gaveUp = protectionGivesUp(
        now.getTime() - created,
        cfg.jobTimeoutSeconds,
        admin.config.protectionWaitSeconds,
      );
      if (gaveUp) {
        st.phase = 'Failed';
        st.message = `${msg}; ${gaveUp}, nothing was removed`;
        st.completionTime = iso(now);
        st.deleteAfter = iso(timeAfter(now, cfg.delayOnFailureSeconds * 1000, 'deleteAfter'));
      } else {
        st.message = msg;
      }
      ctx.log.warn('protected set unavailable, job not started', {
        job: name,
        error: (e as Error).message,
      });
      await p.save();
      if (st.phase === 'Failed') return undefined;
      return protectionRetryMs(now.getTime() - created, ctx.protection.scansCluster === true);
    }
  }
  const sel = selectNodes(
    await ctx.reader.nodes(),
    {
      ...cfg,
      nodeFilter: admin.config.nodeFilter,
      skipNotReady: admin.config.skipNotReady,
      skipCordoned: admin.config.skipCordoned,
    },
    job.spec.nodeSelector,
    job.spec.imageFs && admin.config.imageFsPrescreen ? job.spec.imageFs.highPercent : undefined,
  );
  p.results = [
    ...sel.selected.map(pendingResult),
    ...sel.skipped.map((s) => ({
      ...pendingResult(s.node),
      outcome: 'Skipped' as const,
      reason: s.reason,
    })),
  ].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  // The inputs are recorded with their digests before anything exists (write-ahead).
  const contents = inputContents(
    job.spec.images,
    jobExclusions(job, admin),
    planChunks,
    jobScannerConfig(job, admin),
  );
  st.inputs = planInputs(name, contents);
  ctx.inputs.remember(job, contents);
  p.inv.plan([...workerObjects(job, sel.selected, p.ns, admin, contents).values()].map((d) => d.item));
  if (!st.phase || st.phase === 'Queued') st.phase = 'Running';
  st.startTime ??= iso(now);
  st.planned = true;
  st.message = `${sel.selected.length} node(s) selected, ${sel.skipped.length} skipped${sel.ignored ? `, ${sel.ignored} outside the node selector` : ''}${st.protectedChunks ? `; ${st.protectedRefs ?? 0} referenced image(s) protected (from ${ctx.protection.describe})` : ''}`;
  recordStatus(p);
  await p.save(); // the inventory is persisted before any object exists
  ctx.log.info('job planned', { job: name, nodes: sel.selected.length, skipped: sel.skipped.length });
  await jobEvent(ctx, job, 'planned', 'Normal', 'Planned', st.message);
  return 'planned';
}
