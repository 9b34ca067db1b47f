// Wires `inv watch` together: one KubeRest, the metrics registry, the inventory cache and
// controller, optionally the erase controllers, and the Manager that runs them under leader election. The command, the tests and
// the benchmark all start the daemon through createWatchDaemon.
import type { KubeConfig } from '@kubernetes/client-node';
import type { SourceKinds } from '../inventory/source-kinds.js';
import { InvalidRefReporter } from '../inventory/invalid-ref-events.js';
import { KubeRest, type KubeRestOptions } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { InventoryCache } from './cache.js';
import { registerCacheMetrics } from './cache-metrics.js';
import { InventoryController, type InventoryControllerOptions } from './inventory-controller.js';
import { IMAGE_CRD, OUR_CRDS } from '../kube/crds.js';
import { CrdGuard } from './crd-guard.js';
import { registerCacheHealthMetrics } from './cache-health-metrics.js';
import { eraseRunnable } from './erase-runnable.js';
import { CacheProtection } from '../erase/worker/inventory-protection.js';
import { createEraseMetrics } from '../erase/metrics/metrics.js';
import {
  Manager,
  type LeaderElectionConfig,
  type ManagerOptions,
  type ManagerResult,
} from '../controller/manager.js';

export interface WatchDaemonOptions {
  kubeConfig: KubeConfig;
  /** Deadline and size cap of each API request (not of watches). */
  rest?: KubeRestOptions;
  logger: Logger;
  namespaces?: string[];
  leaderElection?: LeaderElectionConfig;
  /** Without leader election: the heartbeat Lease `inv erase` and `inv check` look for (Manager). */
  heartbeat?: ManagerOptions['heartbeat'];
  metricsBindAddress: string;
  /** HTTPS and TokenReview/SubjectAccessReview on /metrics (see Manager). */
  metricsSecure?: ManagerOptions['metricsSecure'];
  healthProbeBindAddress: string;
  workers?: number;
  resyncPeriodMs?: number;
  shutdownGracePeriodMs: number;
  /** Controller tuning and hooks (tests, benchmarks). */
  controller?: Pick<InventoryControllerOptions, 'quietMs' | 'maxDelayMs' | 'onRebuild' | 'writeConcurrency'>;
  /** Collect prom-client's process metrics (default true). */
  defaultMetrics?: boolean;
  /** The source kinds in force (built-in plus the served declared ones). Default: built-in. */
  kinds?: SourceKinds;
  /** Also run the erase ImageList/ImageJob controllers, with worker objects in this namespace. */
  erase?: { namespace: string; configNamespace?: string };
}

export interface WatchDaemon {
  manager: Manager;
  cache: InventoryCache;
  controller: InventoryController;
  metrics: Metrics;
  rest: KubeRest;
  /** Runs until `signal` aborts; resolves after the shutdown sequence. */
  run(signal: AbortSignal): Promise<ManagerResult>;
}

export function createWatchDaemon(opts: WatchDaemonOptions): WatchDaemon {
  const rest = new KubeRest(opts.kubeConfig, opts.rest);
  const metrics = createMetrics({ defaultMetrics: opts.defaultMetrics ?? true });
  if (rest.writeLimiter) rest.writeLimiter.onTake = (ms) => metrics.rateLimiterDuration.observe(ms / 1000);
  const cache = new InventoryCache({
    rest,
    kubeConfig: opts.kubeConfig,
    namespaces: opts.namespaces,
    resyncPeriodMs: opts.resyncPeriodMs,
    kinds: opts.kinds,
    logger: opts.logger,
  });
  registerCacheMetrics(metrics.registry, cache);
  registerCacheHealthMetrics(metrics.registry, cache);
  const controller = new InventoryController({
    cache,
    rest,
    metrics,
    logger: opts.logger,
    workers: opts.workers,
    events: new InvalidRefReporter(rest, { createFirst: true }),
    ...opts.controller,
  });
  // One transport for the whole daemon: the informers, the controllers, the Lease.
  const manager = new Manager({
    kubeConfig: opts.kubeConfig,
    rest,
    logger: opts.logger,
    metrics,
    metricsBindAddress: opts.metricsBindAddress,
    metricsSecure: opts.metricsSecure,
    healthProbeBindAddress: opts.healthProbeBindAddress,
    leaderElection: opts.leaderElection,
    heartbeat: opts.heartbeat,
    shutdownGracePeriodMs: opts.shutdownGracePeriodMs,
  });
  // Missing CRDs: one clear log line a minute and not ready, instead of a 404 per retry.
  const guard = new CrdGuard({
    rest,
    crds: opts.erase ? OUR_CRDS : [IMAGE_CRD],
    logger: opts.logger,
  });
  manager.add(guard);
  manager.add(cache);
  manager.add(controller);
  if (opts.erase) {
    manager.add(
      eraseRunnable({
        kubeConfig: opts.kubeConfig,
        rest,
        namespace: opts.erase.namespace,
        configNamespace: opts.erase.configNamespace,
        logger: opts.logger,
        // A * prune protects what the daemon's own cache shows the workloads reference.
        protection: new CacheProtection(cache, rest),
        metrics: createEraseMetrics(metrics.registry),
        guard,
      }),
    );
  }
  return {
    manager,
    cache,
    controller,
    metrics,
    rest,
    async run(signal) {
      try {
        return await manager.run(signal);
      } finally {
        rest.close();
      }
    },
  };
}
