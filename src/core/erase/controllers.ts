// Runs the ImageList and ImageJob controllers: watches (ImageLists, ImageJobs, the job's worker
// Pods) feed two rate-limited work queues; reconciles never block, they return when to look
// again and the queue's addAfter brings the key back. A periodic resync (a fresh watch, which
// replays every object as ADDED) covers anything a watch may have missed.
//
// Usable as a Runnable of `inv watch`'s manager (start(signal) resolves once stopped) and
// in-process by `inv erase --standalone`.
import * as k8s from '@kubernetes/client-node';
import { runWorkers, WorkQueue } from '../controller/workqueue.js';
import { KubeRest } from '../kube/rest.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { ImageJobController } from './imagejob-controller.js';
import { ImageListController } from './imagelist-controller.js';
import type { ProtectionSource } from './inventory-protection.js';
import type { EraseMetrics } from './metrics.js';
import { IMAGEJOBS_PATH, IMAGELIST_LABEL, IMAGELISTS_PATH, JOB_LABEL, type ImageJob } from './types.js';

export interface EraseControllersOptions {
  kubeConfig: k8s.KubeConfig;
  /** Namespace of the worker objects, the configuration and the exclusion lists. */
  namespace: string;
  logger?: Logger;
  /** Concurrent reconciles per controller. Default 4. */
  workers?: number;
  /** Restart every watch this often (a full replay). Default 5 min. */
  resyncMs?: number;
  /** Look again at a running job at least this often. Default 30 s. */
  jobResyncMs?: number;
  /** Injected client (tests count requests through it). */
  rest?: KubeRest;
  /** Where a `*` prune learns what the workloads reference (default: a fresh scan of the cluster). */
  protection?: ProtectionSource;
  metrics?: EraseMetrics;
}

export class EraseControllers {
  readonly name = 'erase-controllers';
  readonly listQueue = new WorkQueue();
  readonly jobQueue = new WorkQueue();
  readonly rest: KubeRest;
  readonly jobs: ImageJobController;
  readonly lists: ImageListController;
  private readonly log: Logger;

  constructor(private readonly opts: EraseControllersOptions) {
    this.rest = opts.rest ?? new KubeRest(opts.kubeConfig);
    this.log = (opts.logger ?? noopLogger).child({ component: 'erase' });
    this.jobs = new ImageJobController({
      rest: this.rest,
      namespace: opts.namespace,
      logger: opts.logger,
      resyncMs: opts.jobResyncMs,
      protection: opts.protection,
      metrics: opts.metrics,
    });
    this.lists = new ImageListController({ rest: this.rest, namespace: opts.namespace, logger: opts.logger });
  }

  /** Runs until `signal` aborts; resolves once every reconcile in flight has finished. */
  async start(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const stops: (() => void)[] = [];
    const watch = (
      path: string,
      query: Record<string, string>,
      onEvent: (obj: k8s.KubernetesObject) => void,
    ) => {
      let ctrl: AbortController | undefined;
      let timer: NodeJS.Timeout | undefined;
      let stopped = false;
      const begin = async () => {
        if (stopped) return;
        const restart = (delay: number) => {
          if (stopped) return;
          clearTimeout(timer);
          timer = setTimeout(() => void begin(), delay);
        };
        let ended = false;
        try {
          ctrl = await new k8s.Watch(this.opts.kubeConfig).watch(
            path,
            { ...query, allowWatchBookmarks: false },
            (_type, obj: k8s.KubernetesObject) => onEvent(obj),
            (err) => {
              // May run before watch() resolves (e.g. 429 while a new CRD's cache initializes).
              ended = true;
              if (err && !stopped) this.log.debug('watch ended', { path, error: String(err) });
              restart(err ? 500 : 0);
            },
          );
          if (!ended) {
            clearTimeout(timer);
            timer = setTimeout(() => ctrl?.abort(), this.opts.resyncMs ?? 300_000);
          }
        } catch (e) {
          this.log.warn('watch failed, retrying', { path, error: (e as Error).message });
          restart(1000);
        }
      };
      void begin();
      stops.push(() => {
        stopped = true;
        clearTimeout(timer);
        ctrl?.abort();
      });
    };
    watch(IMAGELISTS_PATH, {}, (o) => o.metadata?.name && this.listQueue.add(o.metadata.name));
    watch(IMAGEJOBS_PATH, {}, (o) => {
      const job = o as unknown as ImageJob;
      this.jobQueue.add(job.metadata.name);
      const list = job.metadata.labels?.[IMAGELIST_LABEL];
      if (list) this.listQueue.add(list);
    });
    watch(`/api/v1/namespaces/${this.opts.namespace}/pods`, { labelSelector: JOB_LABEL }, (o) => {
      const job = o.metadata?.labels?.[JOB_LABEL];
      if (job) this.jobQueue.add(job);
    });
    const onError = (what: string) => (key: string, err: unknown, requeues: number) =>
      this.log.warn(`${what} reconcile failed`, { key, error: (err as Error).message, requeues });
    const run = (queue: WorkQueue, fn: (key: string) => Promise<number | undefined>, what: string) =>
      runWorkers(
        queue,
        this.opts.workers ?? 4,
        async (key) => {
          const after = await fn(key);
          if (after !== undefined) queue.addAfter(key, after);
        },
        { onError: onError(what) },
      );
    const done = Promise.all([
      run(this.listQueue, (k) => this.lists.reconcile(k), 'imagelist'),
      run(this.jobQueue, (k) => this.jobs.reconcile(k), 'imagejob'),
    ]);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    for (const s of stops) s();
    await Promise.all([this.listQueue.shutDownWithDrain(), this.jobQueue.shutDownWithDrain()]);
    await done;
    if (!this.opts.rest) this.rest.close();
  }
}
