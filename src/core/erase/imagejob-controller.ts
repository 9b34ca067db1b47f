// The ImageJob controller: one reconcile looks at one job's level (its status inventory, the
// live worker Pods, the clock) and takes the next steps; it never sleeps or polls, it returns
// when to look again. The phases, one file each, in the order a pass runs them:
//
//   admission/      only jobs of a live ImageList, asking for what it asks, within the
//                   administrator's policy, run (trust-check.ts); at most maxConcurrentJobs
//                   run in the cluster, later ones wait, saying so (queue.ts);
//   plan.ts         nodes selected, every worker object and node result recorded, written
//                   before anything exists (write-ahead); a `*` prune's protected set, once;
//   prepare.ts      the desired worker objects of the planned job;
//   rollout.ts      with spec.rollout, which worker Pods apply may create now (rolloutGate),
//                   and after observe the failure budget and the pause (rolloutProgress);
//   apply.ts        wave 0: the ConfigMaps and the PodTemplate; wave 1: one Pod per node;
//   observe.ts      node results from finished Pods, workers that cannot start, the deadline;
//   finish.ts       Completed or Failed by the success ratio, deleteAfter;
//   cleanup.ts      after deleteAfter the objects wave by wave, then the job; the finalizer.
//
// Below them: pass.ts (the pass state, its one status writer, failing the pending nodes),
// worker-objects.ts (worker objects as inventory items), input-contents.ts, nodes/ (selection, readiness, prescreen),
// live.ts, job-events.ts. The inventory's waves are walked by ApplyInventory
// (src/core/apply-inventory/apply-inventory.ts), never here.
import { unknownScanner } from './config/scanners.js';
import type { KubeRest } from '../kube/rest.js';
import { requeueAfter, type ReconcileResult, type Reconciler } from '../controller/reconcile.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { ApplyInventory } from '../apply-inventory/apply-inventory.js';
import { ScanProtection, type ProtectionSource } from './worker/inventory-protection.js';
import type { EraseMetrics } from './metrics/metrics.js';
import { RestReader, type EraseReader } from './cluster/reader.js';
import { statusNodes } from './api/status-budget.js';
import { ConfigError } from './config/config.js';
import { AdminSettingsSource, DEFAULT_CONFIG_NAMESPACE } from './cluster/settings.js';
import { policyProblem } from './config/policy.js';
import { limitsOf, requesterLimitProblem } from './config/requester-limits.js';
import { apply } from './imagejob/apply.js';
import { cleanUp, finalize } from './imagejob/cleanup.js';
import type { JobContext } from './imagejob/context.js';
import { finish } from './imagejob/finish.js';
import { reportFailures } from './imagejob/job-events.js';
import { NodeReadiness } from './imagejob/node-readiness.js';
import { MountCheck } from './imagejob/mount-check.js';
import { RemovalRecords } from './cluster/records.js';
import { observe } from './imagejob/observe.js';
import { beginPass, recordStatus, type Pass } from './imagejob/pass.js';
import { plan } from './imagejob/plan.js';
import { isQueued, waitInQueue } from './imagejob/admission/queue.js';
import { prepare } from './imagejob/prepare.js';
import { rolloutApplied, rolloutGate, rolloutProgress } from './imagejob/rollout.js';
import { InputContents } from './imagejob/input-contents.js';
import { checkTrust, refuse } from './imagejob/admission/trust-check.js';
import { jobOwner } from './imagejob/worker-objects.js';
import { failRefused, refusal } from './imagejob/status-refused.js';
import { reportTooLarge } from './imagejob/status-too-large.js';

export { protectsInventory } from './imagejob/plan.js';

export interface JobControllerOptions {
  /** Writes (and confirming reads the cache cannot answer) go here. */
  rest: KubeRest;
  /** Where reads come from: the controllers' informers (EraseCache), or the server directly (default). */
  reader?: EraseReader;
  /** Namespace of the worker Pods, ConfigMaps and PodTemplate. */
  namespace: string;
  logger?: Logger;
  now?: () => Date;
  /** Look again at a running job at least this often (Pod events usually come first). Default 30 s. */
  resyncMs?: number;
  /** Objects created per reconcile before the progress is persisted. Default 500. */
  applyChunk?: number;
  /** Namespace of the configuration and the exclusion lists (default: image-inventory-system). */
  configNamespace?: string;
  /** The administrator's settings (default: read from the configuration namespace, cached 5 s). */
  settings?: AdminSettingsSource;
  /** Where a `*` prune learns what the workloads reference (default: a fresh scan of the cluster). */
  protection?: ProtectionSource;
  metrics?: EraseMetrics;
  /** Keep the removal record (ImageJobRecords); false: not kept (default: kept). */
  records?: boolean;
}

export class ImageJobController implements Reconciler {
  private readonly ctx: JobContext;

  constructor(opts: JobControllerOptions) {
    const now = opts.now ?? (() => new Date());
    const direct = new RestReader(opts.rest);
    const reader = opts.reader ?? direct;
    const protection = opts.protection ?? new ScanProtection(opts.rest);
    this.ctx = {
      rest: opts.rest,
      reader,
      direct,
      log: (opts.logger ?? noopLogger).child({ controller: 'imagejob' }),
      now,
      namespace: opts.namespace,
      resyncMs: opts.resyncMs ?? 30_000,
      applyChunk: opts.applyChunk ?? 500,
      settings:
        opts.settings ??
        new AdminSettingsSource(
          reader,
          opts.configNamespace ?? DEFAULT_CONFIG_NAMESPACE,
          5000,
          direct,
          opts.namespace,
        ),
      protection,
      metrics: opts.metrics,
      inputs: new InputContents(protection),
      readiness: new NodeReadiness(reader, now),
      mounts: new MountCheck(opts.rest),
      records: opts.records === false ? undefined : new RemovalRecords(opts.rest, opts.namespace),
    };
  }

  /**
   * Reconciles one ImageJob (see src/core/controller/reconcile.ts for the contract). A job that
   * is not to be trusted is marked Failed and thrown as a TerminalError; objects the API
   * refuses are thrown as plain errors (retried with backoff).
   */
  async reconcile(name: string, signal?: AbortSignal): Promise<ReconcileResult> {
    try {
      return requeueAfter(await this.reconcileJob(name, signal));
    } catch (e) {
      // A status the server refuses for its size or content, or a time that cannot be
      // computed: retrying cannot help, the job fails with the reason (status-refused.ts).
      const why = refusal(e);
      if (!why) throw e;
      return requeueAfter(await failRefused(this.ctx, name, why));
    }
  }

  /**
   * Reads the administrator's settings into the pass and refuses, for good, a job not planned
   * yet that they do not allow (no valid configuration; a policy, scanner or requester bound it
   * breaks): refuse()
   * marks it Failed and throws a TerminalError.
   */
  private async admit(p: Pass, fresh: boolean): Promise<void> {
    const { ctx } = this;
    const { job, st } = p;
    try {
      p.admin = await ctx.settings.get(fresh);
    } catch (e) {
      if (st.planned || !(e instanceof ConfigError)) throw e;
      // A refusal is for good: one read from the cache is confirmed at the server first.
      if (!fresh) return this.admit(p, true);
      await refuse(ctx, p, (e as Error).message);
    }
    // A scan whose scanner the administrator does not (or no longer) configure fails closed.
    const refused = st.planned
      ? undefined
      : (policyProblem(job.spec, p.admin.config) ??
        (job.spec.scan ? unknownScanner(job.spec.scan.scanner, p.admin.config.scanners ?? {}) : undefined) ??
        requesterLimitProblem(
          job.spec.imageList.name,
          { jobTimeoutSeconds: job.spec.config?.jobTimeoutSeconds, pause: job.spec.rollout?.pause },
          limitsOf(p.admin.config),
        ));
    if (refused && !fresh) return this.admit(p, true);
    if (refused) await refuse(ctx, p, refused);
  }

  /**
   * One pass: read the job, then the phases in order (each one writes the status at most once:
   * plan before anything exists, finish before counting, clean up before its first DELETE; the
   * rest is written once at the end). Returns when to look again (ms), or undefined for "on
   * events only".
   */
  private async reconcileJob(name: string, signal?: AbortSignal): Promise<number | undefined> {
    const ctx = this.ctx;
    const read = await ctx.reader.job(name);
    if (!read) return undefined;
    // A copy: the reconcile edits the status in place, and a cached object must never change.
    const job = structuredClone(read);
    if (job.metadata.deletionTimestamp) return finalize(ctx, job);
    const st = (job.status ??= {});
    if (!st.planned && st.phase === 'Failed') return undefined; // refused before: never touched again
    const inv = ApplyInventory.decode(st.inventory);
    const p = beginPass(ctx, job, inv, statusNodes(st), jobOwner(job), signal);
    // The administrator's settings; fresh from the server while planning, except on the passes
    // of a queued job (every few seconds each: the cache, at most 5 s old, says whether it still
    // waits), which reads them fresh once it has a place. Without a valid configuration a job is
    // never planned: it fails closed, with the reason.
    const wasQueued = !st.planned && isQueued(st);
    await this.admit(p, !st.planned && !wasQueued);

    await checkTrust(ctx, p);
    if (!st.planned) {
      const queued = await waitInQueue(ctx, p);
      if (queued !== undefined) return queued;
      if (wasQueued) await this.admit(p, true);
      const waitMs = await plan(ctx, p);
      if (waitMs !== 'planned') return waitMs;
    }
    await prepare(ctx, p);
    rolloutGate(ctx, p);
    await apply(ctx, p);
    rolloutApplied(p);
    await observe(ctx, p);
    await rolloutProgress(ctx, p);
    await finish(ctx, p);
    if ((await cleanUp(ctx, p)) === 'deleted') return undefined;

    recordStatus(p);
    await p.save();
    await reportTooLarge(ctx, p);
    await reportFailures(ctx, job, p.results, p.failedBefore);
    if (p.applyFailed && st.phase === 'Running') {
      if (st.message !== p.applyFailed) {
        st.message = p.applyFailed;
        await p.save();
      }
      throw new Error(p.applyFailed);
    }
    const requeue = p.requeue;
    return requeue === undefined || requeue === Infinity ? undefined : Math.max(0, requeue);
  }
}
