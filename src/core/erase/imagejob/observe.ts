// Observe: finished worker Pods give their node's result (the termination message) and their
// removal record (every row of the report in the Pod's log, before the Pod can be deleted), and
// their items Complete; a worker that cannot start, cannot be placed (unschedulable) or whose node
// is not Ready or gone fails its node after a grace, one its kubelet refused (OutOfpods...) at
// once; past the job deadline, unfinished nodes fail with a reason naming their Pod and
// its state ("timeout: Pod x Pending: Unschedulable: ...") and their Pods are scheduled for
// deletion.
import { itemKey, ApplyInventory } from '../../apply-inventory/apply-inventory.js';
import { objectPath } from '../../apply-inventory/objects.js';
import { pendingResult, resultFromPod, type NodeResult } from '../../contract/results.js';
import { describeWorker, startFailure, type StartFailure } from '../worker/start-failure.js';
import { podNames } from '../api/types.js';
import type { JobContext } from './context.js';
import { livePods } from './live.js';
import { timeAfter } from '../../timestamps.js';
import { forEachConcurrent } from '../../concurrency.js';
import { iso, setResult, type Pass } from './pass.js';
import { scannerExit, workerPhase, workerStatus, type PodLike } from './pod.js';
import { SCANNER_CONTAINER } from '../worker/scanner-container.js';
import { rejection, unschedulable } from '../worker/placement-failure.js';
import { placementFailureKind } from '../../contract/placement-failures.js';
import { WORKER_CONTAINER } from '../worker/pod-spec.js';

/** Workers' logs read (and records written) at once. */
const RECORD_CONCURRENCY = 8;

export async function observe(ctx: JobContext, p: Pass): Promise<void> {
  const { name, now, cfg } = p;
  const pendingNode = (node: string) => p.results.find((r) => r.node === node)?.outcome === 'Pending';
  p.live = await livePods(ctx, name, p.ns, p.owner);
  const completed: string[] = [];
  const vanished: string[] = [];
  const finished: { pod: string; r: NodeResult }[] = [];
  for (const item of p.inv.items) {
    if (item.kind !== 'Pod' || item.phase !== 'Ready') continue;
    const node = p.podToNode.get(item.name);
    const pod = p.live.get(itemKey(item)) as PodLike | undefined;
    if (!pod) {
      // Missing from a cache may mean "not arrived yet": only a GET that finds nothing says gone.
      if (p.justCreated.has(itemKey(item)) || !(await ctx.reader.confirmGone(objectPath(item)))) continue;
      vanished.push(itemKey(item));
      if (node && pendingNode(node))
        setResult(p, {
          ...pendingResult(node),
          outcome: 'Failed',
          reason: 'worker Pod deleted before it finished',
        });
      continue;
    }
    const phase = workerPhase(pod, WORKER_CONTAINER);
    if (phase === undefined) {
      // A worker that cannot start (its image cannot be pulled, its container cannot be
      // created) never will by itself: fail the node after a short grace, not at the deadline.
      const grace = cfg.workerStartGraceSeconds ?? 15;
      const gone = scannerExit(pod, SCANNER_CONTAINER, now, grace);
      const scanStuck: StartFailure | undefined =
        gone === undefined
          ? undefined
          : 'reason' in gone
            ? { failNow: true, reason: gone.reason }
            : { failNow: false, retryInMs: gone.retryInMs };
      const stuck =
        unschedulable(pod, now, grace) ??
        startFailure(pod.status, now, grace) ??
        scanStuck ??
        (await ctx.mounts.failure(pod, now, grace)) ??
        (node ? await ctx.readiness.lostNode(node, pod, now, grace) : undefined);
      if (stuck && node && pendingNode(node)) {
        if (stuck.failNow) {
          const failed: NodeResult = { ...pendingResult(node), outcome: 'Failed', reason: stuck.reason };
          setResult(p, failed);
          ctx.metrics?.nodeScanned?.(failed, Boolean(p.job.spec.dryRun), Boolean(p.job.spec.scan));
          const kind = placementFailureKind(stuck.reason);
          if (kind) ctx.metrics?.workerNotPlaced?.(kind);
          p.inv.scheduleDeletion([itemKey(item)]);
          ctx.log.warn(kind ? 'worker cannot be placed' : 'worker cannot start', {
            job: name,
            node,
            reason: stuck.reason,
          });
        } else {
          p.requeue = Math.min(p.requeue ?? Infinity, stuck.retryInMs);
        }
      }
      continue;
    }
    completed.push(itemKey(item));
    const term = workerStatus(pod, WORKER_CONTAINER)?.state?.terminated;
    // Refused by its node's kubelet before it ran (OutOfpods, OutOfcpu...): the node failed with
    // the kubelet's words, not a bare reason code.
    const refused = phase === 'Failed' ? rejection(pod) : undefined;
    if (refused && node && pendingNode(node)) {
      const r: NodeResult = { ...pendingResult(node), outcome: 'Failed', reason: refused };
      setResult(p, r);
      ctx.metrics?.nodeScanned?.(r, Boolean(p.job.spec.dryRun), Boolean(p.job.spec.scan));
      ctx.metrics?.workerNotPlaced?.('rejected');
      ctx.log.warn('worker refused by its node', { job: name, node, reason: refused });
    } else if (node && pendingNode(node)) {
      const r = resultFromPod(node, {
        phase,
        exitCode: term?.exitCode,
        message: term?.message,
        reason: term?.reason ?? pod.status?.reason,
      });
      finished.push({ pod: item.name, r });
    }
  }
  // Each node's record is written before its result is saved (a restart in between writes it
  // again, never loses it), a few at once: many workers can finish between two passes.
  await forEachConcurrent(finished, RECORD_CONCURRENCY, ({ pod, r }) => record(ctx, p, pod, r));
  for (const { r } of finished) {
    setResult(p, r);
    ctx.metrics?.nodeScanned?.(r, Boolean(p.job.spec.dryRun), Boolean(p.job.spec.scan));
  }
  p.inv.complete(completed);
  p.inv.drop(vanished);
  deadline(ctx, p);
}

/** Keeps the node's rows (its worker's log read into ImageJobRecords, cluster/records.ts). */
async function record(ctx: JobContext, p: Pass, pod: string, r: NodeResult): Promise<void> {
  if (!ctx.records) return;
  const { job } = p;
  const problem = await ctx.records.capture(
    {
      job: {
        name: p.name,
        uid: job.metadata.uid ?? '',
        list: job.spec.imageList.name,
        dryRun: Boolean(job.spec.dryRun),
      },
      pod,
      result: r,
      finishedAt: p.now,
    },
    WORKER_CONTAINER,
  );
  if (problem) ctx.log.warn('removal record incomplete', { job: p.name, node: r.node, problem });
}

/** Past the job deadline, every unfinished node fails naming its Pod and the Pod's state. */
function deadline(ctx: JobContext, p: Pass): void {
  const { name, st, now, cfg } = p;
  if (st.phase !== 'Running') return;
  // startTime is stored to the whole second, rounded down; adding a second makes the deadline
  // fire at or after the configured timeout, never before it.
  const at = timeAfter(
    Date.parse(st.startTime ?? iso(now)) + 1000,
    cfg.jobTimeoutSeconds * 1000,
    'the job deadline',
  ).getTime();
  if (now.getTime() < at) {
    p.requeue = Math.min(p.requeue ?? Infinity, at - now.getTime(), ctx.resyncMs);
    return;
  }
  const stale: string[] = [];
  for (const r of p.results) {
    if (r.outcome !== 'Pending') continue;
    const pod = podNames(name, [r.node]).get(r.node)!;
    const it = p.inv.items.find((i) => i.kind === 'Pod' && i.name === pod);
    const livePod = it ? (p.live.get(itemKey(it)) as PodLike | undefined) : undefined;
    const createError = it ? p.applyErrors.get(itemKey(it)) : undefined;
    // Name the Pod and its state, not a bare "timeout": that is what the user acts on.
    const why = describeWorker(
      pod,
      livePod,
      createError ?? (it?.phase === 'Creating' ? st.message : undefined),
    );
    setResult(p, { ...r, outcome: 'Failed', reason: `timeout: ${why}` });
    if (it && ApplyInventory.active(it)) stale.push(itemKey(it));
  }
  p.inv.scheduleDeletion(stale);
  if (stale.length)
    st.message = `job deadline of ${cfg.jobTimeoutSeconds}s passed: ${stale.length} worker(s) stopped`;
}
