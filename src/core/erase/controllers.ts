// Runs the ImageList and ImageJob controllers: informers (EraseCache: list+watch through
// KubeRest, with bookmarks and a relist on 410) feed two rate-limited work queues, and the
// reconciles read from the same cache, so a reconcile of a running job on an unchanged cluster
// makes no LIST. Reconciles never block, they return when to look again and the queue's
// addAfter brings the key back. A periodic resync re-enqueues every list and job from the
// cache, which covers anything a reconcile decided on a moment too early.
//
// Usable as a Runnable of `inv watch`'s manager (start(signal) resolves once stopped) and
// in-process by `inv erase --standalone`.
import type { KubeConfig } from '@kubernetes/client-node';
import { runReconciler } from '../controller/reconcile.js';
import { WorkQueue } from '../controller/workqueue.js';
import { KubeRest } from '../kube/rest.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { ImageJobController } from './imagejob-controller.js';
import { ImageListController } from './imagelist-controller.js';
import type { ProtectionSource } from './worker/inventory-protection.js';
import type { EraseMetrics } from './metrics/metrics.js';
import { EraseCache } from './cluster/reader.js';
import { DEFAULT_CONFIG_NAMESPACE } from './cluster/settings.js';
import { IMAGELIST_LABEL, JOB_LABEL, type ImageJob } from './api/types.js';

export interface EraseControllersOptions {
  kubeConfig: KubeConfig;
  /** Namespace of the worker objects. */
  namespace: string;
  /** Namespace of the configuration and the exclusion lists (default: image-inventory-system). */
  configNamespace?: string;
  logger?: Logger;
  /** Concurrent reconciles per controller. Default 4. */
  workers?: number;
  /** Re-enqueue every ImageList and ImageJob this often. Default 5 min. */
  resyncMs?: number;
  /** Look again at a running job at least this often. Default 30 s. */
  jobResyncMs?: number;
  /** Injected client (tests count requests through it). */
  rest?: KubeRest;
  /** Where a `*` prune learns what the workloads reference (default: a fresh scan of the cluster). */
  protection?: ProtectionSource;
  metrics?: EraseMetrics;
  /** Server-side watch timeouts of the informers, in seconds (tests: short). */
  watchTimeoutSeconds?: [number, number];
  /** The ImageJob controller's clock (deleteAfter, the record's retention); tests move it on. */
  now?: () => Date;
}

export class EraseControllers {
  readonly name = 'erase-controllers';
  readonly listQueue = new WorkQueue();
  readonly jobQueue = new WorkQueue();
  readonly rest: KubeRest;
  readonly cache: EraseCache;
  readonly jobs: ImageJobController;
  readonly lists: ImageListController;
  private readonly log: Logger;

  constructor(private readonly opts: EraseControllersOptions) {
    this.rest = opts.rest ?? new KubeRest(opts.kubeConfig);
    this.log = (opts.logger ?? noopLogger).child({ component: 'erase' });
    const configNamespace = opts.configNamespace ?? DEFAULT_CONFIG_NAMESPACE;
    this.cache = new EraseCache({
      rest: this.rest,
      namespace: opts.namespace,
      configNamespace,
      logger: opts.logger,
      watchTimeoutSeconds: opts.watchTimeoutSeconds,
    });
    this.jobs = new ImageJobController({
      rest: this.rest,
      reader: this.cache,
      namespace: opts.namespace,
      configNamespace,
      logger: opts.logger,
      resyncMs: opts.jobResyncMs,
      protection: opts.protection,
      metrics: opts.metrics,
      now: opts.now,
    });
    this.lists = new ImageListController({
      rest: this.rest,
      reader: this.cache,
      namespace: opts.namespace,
      configNamespace,
      logger: opts.logger,
    });
  }

  /** True once every informer has listed (part of /readyz when run as a Runnable). */
  synced(): boolean {
    return this.cache.hasSynced();
  }

  /** Runs until `signal` aborts; resolves once every reconcile in flight has finished. */
  async start(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const c = this.cache;
    const onJob = (job: ImageJob) => {
      this.jobQueue.add(job.metadata.name);
      const list = job.metadata.labels?.[IMAGELIST_LABEL];
      if (list) this.listQueue.add(list);
    };
    c.lists.addHandlers({
      onAdd: (l) => this.listQueue.add(l.metadata.name),
      onUpdate: (_, l) => this.listQueue.add(l.metadata.name),
      onDelete: (l) => this.listQueue.add(l.metadata.name),
    });
    c.jobs.addHandlers({ onAdd: onJob, onUpdate: (_, j) => onJob(j), onDelete: onJob });
    const onWorker = (o: { metadata: { labels?: Record<string, string> } }) => {
      const job = o.metadata.labels?.[JOB_LABEL];
      if (job) this.jobQueue.add(job);
    };
    c.pods.addHandlers({ onAdd: onWorker, onUpdate: (_, p) => onWorker(p), onDelete: onWorker });
    const resync = setInterval(() => {
      for (const l of c.lists.list('')) this.listQueue.add(l.metadata.name);
      for (const j of c.jobs.list('')) this.jobQueue.add(j.metadata.name);
    }, this.opts.resyncMs ?? 300_000);
    resync.unref();
    const informers = c.run(signal);

    const log = (what: string) => ({
      onError: (key: string, err: unknown, requeues: number) =>
        this.log.warn(`${what} reconcile failed`, { key, error: (err as Error).message, requeues }),
      onTerminal: (key: string, err: unknown) =>
        this.log.warn(`${what} reconcile failed for good (recorded in its status)`, {
          key,
          error: (err as Error).message,
        }),
    });
    const workers = this.opts.workers ?? 4;
    // Reconciles start once the cache holds everything: a read before that would see nothing.
    const done = c
      .waitForSync(signal)
      .then((ok) =>
        ok
          ? Promise.all([
              runReconciler(this.listQueue, this.lists, { workers, signal, ...log('imagelist') }),
              runReconciler(this.jobQueue, this.jobs, { workers, signal, ...log('imagejob') }),
            ])
          : undefined,
      );
    // The schedule gauges read this term's cache (a new term brings a new one).
    this.opts.metrics?.readLists?.(() => c.lists.list(''));
    this.opts.metrics?.readJobs?.(() =>
      c.jobs.list('').filter((j) => j.spec?.namespace === this.opts.namespace),
    );
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    this.opts.metrics?.readLists?.(undefined);
    this.opts.metrics?.readJobs?.(undefined);
    clearInterval(resync);
    await Promise.all([this.listQueue.shutDownWithDrain(), this.jobQueue.shutDownWithDrain()]);
    await done;
    await informers;
    if (!this.opts.rest) this.rest.close();
  }
}
