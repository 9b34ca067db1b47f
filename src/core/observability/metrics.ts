// Prometheus metrics of the inventory daemon, on a private prom-client Registry.
//
// Why a private registry: prom-client's global default registry is process-wide, so two
// daemons in one test process (or a re-created controller) would collide on metric names.
// Why so few labels: a label per namespace would make series count grow with the cluster; the
// per-namespace story belongs in logs. `result` (success|error) is the only label.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type RebuildResult = 'success' | 'error';

export interface Metrics {
  readonly registry: Registry;
  /** Keys waiting in the work queue (not in flight). */
  readonly workqueueDepth: Gauge;
  /** Keys accepted by the work queue (coalesced duplicates are not counted). */
  readonly workqueueAdds: Counter;
  /** Keys scheduled for a retry after a failure. */
  readonly workqueueRetries: Counter;
  /** Namespace rebuilds by result. */
  readonly rebuilds: Counter<'result'>;
  readonly rebuildDuration: Histogram;
  /** Time a key waited in the work queue, from accepted to handed to a worker. */
  readonly workqueueQueueDuration: Histogram;
  /** Time from the first event that dirtied a namespace to the start of its rebuild. */
  readonly rebuildDelay: Histogram;
  /** Time each write waited for a token of the client-side rate limit (--kube-api-qps). */
  readonly rateLimiterDuration: Histogram;
  readonly imagesCreated: Counter;
  readonly imagesUpdated: Counter;
  readonly imagesDeleted: Counter;
  readonly invalidRefs: Counter;
  /** 1 while this process holds the leader Lease (or runs without leader election), else 0. */
  readonly leader: Gauge;
  /** Hooks that feed the workqueue metrics; pass as WorkQueueOptions.hooks. */
  workqueueHooks(): QueueHooks;
  /** Counts one rebuild and records its duration. */
  observeRebuild(result: RebuildResult, seconds: number): void;
}

/**
 * What a work queue reports (the shape of controller/workqueue.ts's WorkQueueHooks, which this
 * satisfies structurally: observability sits below the controller runtime and imports nothing from it).
 */
export interface QueueHooks {
  onAdd(key: string): void;
  onDepth(depth: number): void;
  onRetry(key: string): void;
  onQueued(key: string, ms: number): void;
}

export interface MetricsOptions {
  /** Also collect prom-client's process and Node.js metrics (default true). */
  defaultMetrics?: boolean;
  /** Buckets of inv_rebuild_duration_seconds. */
  rebuildBuckets?: number[];
}

// A rebuild lists a namespace and writes its Images: milliseconds when small, seconds for
// namespaces with thousands of Pods, longer only when the API server is struggling.
const defaultRebuildBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const workqueueDepth = new Gauge({
    name: 'inv_workqueue_depth',
    help: 'Keys waiting in the work queue.',
    registers,
  });
  const workqueueAdds = new Counter({
    name: 'inv_workqueue_adds_total',
    help: 'Keys added to the work queue (duplicates of a waiting key are coalesced, not counted).',
    registers,
  });
  const workqueueRetries = new Counter({
    name: 'inv_workqueue_retries_total',
    help: 'Keys re-queued with backoff after a failed rebuild.',
    registers,
  });
  const rebuilds = new Counter({
    name: 'inv_rebuilds_total',
    help: 'Namespace rebuilds, by result.',
    labelNames: ['result'] as const,
    registers,
  });
  // Export both series from the start, so rate() and alerts work before the first failure.
  rebuilds.inc({ result: 'success' }, 0);
  rebuilds.inc({ result: 'error' }, 0);
  const rebuildDuration = new Histogram({
    name: 'inv_rebuild_duration_seconds',
    help: 'Duration of namespace rebuilds.',
    buckets: opts.rebuildBuckets ?? defaultRebuildBuckets,
    registers,
  });
  const latencyBuckets = [0.001, 0.005, 0.025, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10, 30, 60];
  const workqueueQueueDuration = new Histogram({
    name: 'inv_workqueue_queue_duration_seconds',
    help: 'How long a key waited in the work queue before a worker took it.',
    buckets: latencyBuckets,
    registers,
  });
  const rebuildDelay = new Histogram({
    name: 'inv_rebuild_delay_seconds',
    help: 'From the first event that dirtied a namespace to the start of its rebuild (coalescing window plus queue).',
    buckets: latencyBuckets,
    registers,
  });
  const rateLimiterDuration = new Histogram({
    name: 'inv_rest_client_rate_limiter_duration_seconds',
    help: 'How long each write waited for the client-side rate limit (--kube-api-qps, --kube-api-burst).',
    buckets: latencyBuckets,
    registers,
  });
  const imagesCreated = new Counter({
    name: 'inv_images_created_total',
    help: 'Image objects created.',
    registers,
  });
  const imagesUpdated = new Counter({
    name: 'inv_images_updated_total',
    help: 'Image objects updated.',
    registers,
  });
  const imagesDeleted = new Counter({
    name: 'inv_images_deleted_total',
    help: 'Image objects deleted by garbage collection.',
    registers,
  });
  const invalidRefs = new Counter({
    name: 'inv_invalid_refs_total',
    help: 'Image references that could not be parsed and were skipped.',
    registers,
  });
  const leader = new Gauge({
    name: 'inv_leader',
    help: '1 if this process is the leader (or runs without leader election), 0 otherwise.',
    registers,
  });
  leader.set(0);

  return {
    registry,
    workqueueDepth,
    workqueueAdds,
    workqueueRetries,
    rebuilds,
    rebuildDuration,
    workqueueQueueDuration,
    rebuildDelay,
    rateLimiterDuration,
    imagesCreated,
    imagesUpdated,
    imagesDeleted,
    invalidRefs,
    leader,
    workqueueHooks: () => ({
      onAdd: () => workqueueAdds.inc(),
      onDepth: (depth) => workqueueDepth.set(depth),
      onRetry: () => workqueueRetries.inc(),
      onQueued: (_key, ms) => workqueueQueueDuration.observe(ms / 1000),
    }),
    observeRebuild(result, seconds) {
      rebuilds.inc({ result });
      rebuildDuration.observe(seconds);
    },
  };
}
