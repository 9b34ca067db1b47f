// The ImageList controller: each new generation of an ImageList (`inv erase` bumps
// spec.request on every run, so the same list run twice is two generations) starts exactly one
// ImageJob, named deterministically after the generation so a restart never starts it twice.
// status.lastJobGeneration remembers that it did: once that job has finished and deleted itself
// (after deleteAfter), the generation is done and no job is started for it again.
// At most one job runs per list: a newer generation waits until the running job finishes.
// A finished job's phase and counts are copied into the list's status.
// A list with spec.schedule is different: its generations start nothing, its ticks do
// (scheduled-runs.ts); removing the schedule is not a request either, the next generation is.
import * as resources from '../kube/resources.js';
import { rfc3339 } from '../timestamps.js';
import { isAlreadyExists, isTransient, type KubeRest } from '../kube/rest.js';
import {
  requeueAfter,
  TerminalError,
  type ReconcileResult,
  type Reconciler,
} from '../controller/reconcile.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { listConditions } from './api/conditions.js';
import { ConfigError, parseDuration, type EraseConfig } from './config/config.js';
import { narrowingProblems, summarizeTargets, validateImages } from './spec/images.js';
import { hasScope } from '../refs/scope.js';
import { scanProblems } from './spec/vuln-scan.js';
import { unknownScanner } from './config/scanners.js';
import { jobSizeProblem, listLimitProblems } from './api/list-limits.js';
import { RestReader, type EraseReader } from './cluster/reader.js';
import { DEFAULT_CONFIG_NAMESPACE, loadConfig, loadExclusions } from './cluster/settings.js';
import { parseSelector } from './spec/selector.js';
import { policyProblem } from './config/policy.js';
import { limitsOf, requesterLimitProblem } from './config/requester-limits.js';
import { reconcileScheduled } from './imagelist/scheduled-runs.js';
import { reportSkip } from './imagelist/schedule-events.js';
import { rolloutProblems } from './spec/rollout.js';
import {
  API_VERSION,
  CANCELLED_ANNOTATION,
  CLEANUP_FINALIZER,
  IMAGELIST_LABEL,
  isFinished,
  jobName,
  shownPhase,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  type ImageJob,
  type ImageList,
  type ImageListStatus,
} from './api/types.js';

export interface ListControllerOptions {
  /** Writes (and confirming reads the cache cannot answer) go here. */
  rest: KubeRest;
  /** Where reads come from: the controllers' informers (EraseCache), or the server directly (default). */
  reader?: EraseReader;
  /** Namespace of the worker objects (recorded in each job). */
  namespace: string;
  /** Namespace of the configuration ConfigMap and the exclusion lists (default: image-inventory-system). */
  configNamespace?: string;
  logger?: Logger;
  now?: () => Date;
}

const iso = rfc3339;

export class ImageListController implements Reconciler {
  private readonly log: Logger;
  private readonly reader: EraseReader;

  constructor(private readonly opts: ListControllerOptions) {
    this.log = (opts.logger ?? noopLogger).child({ controller: 'imagelist' });
    this.reader = opts.reader ?? new RestReader(opts.rest);
  }

  // The configuration a new job starts with is read from the server, not the cache: an
  // administrator's change made just before a request must apply to it. Once per job.
  /** The configuration in force, or a ConfigError naming the bad value. */
  loadConfig(): Promise<EraseConfig> {
    return loadConfig(this.opts.rest, this.configNamespace, this.opts.namespace);
  }

  loadExclusions(cfg: EraseConfig): Promise<string[]> {
    return loadExclusions(this.opts.rest, this.configNamespace, cfg);
  }

  private get configNamespace(): string {
    return this.opts.configNamespace ?? DEFAULT_CONFIG_NAMESPACE;
  }

  /**
   * Reconciles one ImageList (see src/core/controller/reconcile.ts for the contract). A request
   * that cannot run (bad images, bad configuration) is recorded as phase Error and thrown as a
   * TerminalError: retrying would not change it, a new generation will.
   */
  async reconcile(name: string, signal?: AbortSignal): Promise<ReconcileResult> {
    const { rest } = this.opts;
    const read = await this.reader.list(name);
    if (!read) return {};
    const list = structuredClone(read);
    if (list.metadata.deletionTimestamp) return {};
    const gen = list.metadata.generation ?? 1;
    const jobs = (await this.reader.jobsOf(name)).filter((j) => j.spec.imageList.uid === list.metadata.uid);
    const running = jobs.filter((j) => !isFinished(j.status?.phase));
    const current = jobs.find((j) => j.spec.imageList.generation === gen);
    const status: ImageListStatus = { ...list.status };
    let requeue: number | undefined;
    let problem: string | undefined;

    if (list.spec.schedule) {
      requeue = await reconcileScheduled({
        list,
        jobs,
        status,
        now: this.now(),
        startJob: (run) => this.startJob(list, status, run),
        copy: (job) => this.copy(status, job),
        reportSkip: async (skip) => {
          const err = await reportSkip(rest, list, skip);
          if (err) this.log.warn('could not report the skipped run', { imagelist: name, error: err });
        },
        log: this.log,
      });
    } else if (current) {
      this.copy(status, current);
    } else if ((status.lastJobGeneration ?? 0) >= gen) {
      // This generation has had its job already (lastJobGeneration is written only after the
      // job was created) and that job is gone: finished, recorded here and cleaned up, or
      // deleted by someone. Never start it again: the job name is deterministic, so a second
      // job would rerun every worker under the same names. A new request is a new generation.
      // (The cache may not show a job created a moment ago: confirm it is gone at the server.)
      if (
        !isFinished(status.phase) &&
        status.phase !== 'Error' &&
        status.phase !== 'Cancelled' &&
        (await this.jobGone(status.lastJob))
      ) {
        const cancel = cancelledBy(list, status.lastJob);
        status.phase = cancel ? 'Cancelled' : 'Failed';
        status.message = cancel
          ? `job ${status.lastJob ?? ''} cancelled by ${cancel.by} at ${cancel.at}`
          : `job ${status.lastJob ?? ''} was deleted before it finished`;
        status.timestamp = iso(this.now());
      }
    } else if (running.length > 0) {
      const r = running[0]!;
      this.copy(status, r);
      status.message = `generation ${gen} waits for job ${r.metadata.name} to finish`;
      requeue = 10_000; // job events normally come first
    } else if (status.phase === 'Error' && status.observedGeneration === gen) {
      // This generation was rejected already; a new generation (a fixed request) retries.
    } else if (status.observedSchedule) {
      // The edit that removed the schedule is not a request to run now: the next one is.
      delete status.observedSchedule;
      delete status.nextScheduleTime;
      status.lastJobGeneration = gen;
      status.message = `schedule removed: generation ${gen} starts no job; the next request does`;
    } else {
      problem = await this.startJob(list, status);
      if (problem) {
        status.phase = 'Error';
        status.message = problem;
        status.timestamp = iso(this.now());
        this.log.warn('request rejected', { imagelist: name, error: problem });
      }
    }
    status.targets = summarizeTargets(list.spec);
    status.observedGeneration = gen;
    status.conditions = listConditions(status, gen, this.now());
    if (JSON.stringify(status) !== JSON.stringify(list.status ?? {})) {
      const updated = await resources.replace<ImageList>(
        rest,
        'ImageList',
        undefined,
        name,
        { ...list, status },
        {
          subresource: 'status',
          signal,
        },
      );
      this.reader.wrote('ImageList', updated, list.metadata.resourceVersion);
    }
    if (problem) throw new TerminalError(`ImageList ${name} generation ${gen} rejected: ${problem}`);
    return requeueAfter(requeue);
  }

  /**
   * The job is gone at the server. Only asked when the cache shows no job for a generation
   * that had one: a job created a moment ago may not have reached the cache yet.
   */
  private async jobGone(job: string | undefined): Promise<boolean> {
    return !job || this.reader.confirmGone(resources.resourcePath('ImageJob', undefined, job));
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  private copy(status: ImageListStatus, job: ImageJob): void {
    const s = job.status ?? {};
    status.lastJob = job.metadata.name;
    status.lastJobGeneration = job.spec.imageList.generation;
    status.phase = shownPhase(s);
    status.desired = s.desired ?? 0;
    status.success = s.succeeded ?? 0;
    status.failed = s.failed ?? 0;
    status.skipped = s.skipped ?? 0;
    status.removed = s.removed ?? 0;
    status.protected = s.protected ?? 0;
    status.bytesFreed = s.bytesFreed ?? 0;
    status.freed = s.freed;
    status.wouldFree = s.wouldFree;
    status.timestamp = s.completionTime ?? s.startTime ?? status.timestamp ?? iso(this.now());
    status.message = s.message ?? '';
    // Kept across later failures (CronJob's lastSuccessfulTime): the schedule gauges read it.
    if (s.phase === 'Completed') {
      const done = s.completionTime ?? status.timestamp;
      if (!status.lastSuccessfulTime || Date.parse(done) > Date.parse(status.lastSuccessfulTime))
        status.lastSuccessfulTime = done;
    }
  }

  /**
   * Creates the job of the list's current generation (or, with `run`, of a scheduled tick);
   * returns a problem text instead on bad input.
   */
  private async startJob(
    list: ImageList,
    status: ImageListStatus,
    run?: { name: string; annotations: Record<string, string> },
  ): Promise<string | undefined> {
    const problems = [
      ...listLimitProblems(list.metadata.name, list.spec.images ?? []),
      ...validateImages(list.spec.images ?? []),
      ...narrowingProblems(list.spec),
      ...rolloutProblems(list.spec.rollout),
    ];
    if (problems.length) return problems.join('; ');
    let cfg: EraseConfig;
    let exclusions: string[];
    try {
      cfg = await this.loadConfig();
      const refused = policyProblem(list.spec, cfg);
      if (refused) return refused;
      if (list.spec.scan) {
        const bad = scanProblems(list.spec.scan, list.spec.images ?? []);
        if (bad.length) return bad.join('; ');
        const unknown = unknownScanner(list.spec.scan.scanner, cfg.scanners ?? {});
        if (unknown) return unknown;
      }
      if (list.spec.jobTimeout) {
        cfg.jobTimeoutSeconds = parseDuration(list.spec.jobTimeout, 'spec.jobTimeout');
        if (cfg.jobTimeoutSeconds <= 0) return 'spec.jobTimeout: must be longer than 0s';
      }
      const { jobTimeout, rollout } = list.spec;
      const over = requesterLimitProblem(
        list.metadata.name,
        { jobTimeout, pause: rollout?.pause },
        limitsOf(cfg),
      );
      if (over) return over;
      if (list.spec.nodeSelector) parseSelector(list.spec.nodeSelector);
      exclusions = await this.loadExclusions(cfg);
    } catch (e) {
      // No response, a 5xx or throttling says nothing about the request: retry (the work queue
      // backs off) rather than reject this generation for good.
      if (isTransient(e)) throw e;
      if (e instanceof ConfigError || !(e as { code?: number }).code) return (e as Error).message;
      throw e;
    }
    const name = run?.name ?? jobName(list);
    const job: ImageJob = {
      apiVersion: API_VERSION,
      kind: 'ImageJob',
      metadata: {
        name,
        labels: { [IMAGELIST_LABEL]: list.metadata.name, [MANAGED_BY_LABEL]: MANAGED_BY },
        ...(run ? { annotations: run.annotations } : {}),
        // The controller reference is what the ImageJob controller checks before it acts (see
        // trust.ts); it also lets the garbage collector delete the job with its list.
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: 'ImageList',
            name: list.metadata.name,
            uid: list.metadata.uid ?? '',
            controller: true,
          },
        ],
        finalizers: [CLEANUP_FINALIZER],
      },
      spec: {
        imageList: {
          name: list.metadata.name,
          uid: list.metadata.uid ?? '',
          generation: list.metadata.generation ?? 1,
        },
        namespace: this.opts.namespace,
        images: list.spec.images,
        dryRun: list.spec.dryRun ?? false,
        ...(list.spec.nodeSelector ? { nodeSelector: list.spec.nodeSelector } : {}),
        exclusions,
        ...(list.spec.protectInventory === false ? { protectInventory: false } : {}),
        ...(list.spec.scan ? { scan: list.spec.scan } : {}),
        ...(list.spec.imageFs ? { imageFs: list.spec.imageFs } : {}),
        ...(list.spec.minUnusedAge ? { minUnusedAge: list.spec.minUnusedAge } : {}),
        ...(hasScope(list.spec.scope) ? { scope: list.spec.scope } : {}),
        ...(list.spec.keepNewest !== undefined ? { keepNewest: list.spec.keepNewest } : {}),
        config: cfg,
        // The list's own rollout, else the configuration's default (recorded either way).
        ...(list.spec.rollout || cfg.rollout ? { rollout: list.spec.rollout ?? cfg.rollout } : {}),
      },
    };
    const tooBig = jobSizeProblem(job.spec);
    if (tooBig) return tooBig;
    let created: ImageJob;
    try {
      created = await resources.create<ImageJob>(this.opts.rest, 'ImageJob', undefined, job);
      this.log.info('job started', {
        imagelist: list.metadata.name,
        job: name,
        generation: job.spec.imageList.generation,
      });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      created = await resources.get<ImageJob>(this.opts.rest, 'ImageJob', undefined, name);
    }
    this.copy(status, created);
    return undefined;
  }
}

/** Who cancelled job `job` of this list and when (CANCELLED_ANNOTATION), if `inv erase cancel` did. */
export function cancelledBy(
  list: ImageList,
  job: string | undefined,
): { by: string; at: string } | undefined {
  const raw = list.metadata.annotations?.[CANCELLED_ANNOTATION];
  if (!raw || !job) return undefined;
  try {
    const v = JSON.parse(raw) as { job?: unknown; by?: unknown; at?: unknown };
    if (v.job !== job) return undefined;
    const str = (x: unknown, d: string) => (typeof x === 'string' && x ? x.slice(0, 253) : d);
    return { by: str(v.by, 'unknown'), at: str(v.at, 'an unknown time') };
  } catch {
    return undefined;
  }
}
