// Runs the erase ImageList/ImageJob controllers under the daemon's Lease. A fresh
// EraseControllers per leadership term: its work queues are shut down when a term ends, and a
// new term must start from a clean queue (the controllers are level-based, so a new term
// re-reads every ImageList and ImageJob from the API anyway).
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeRest } from '../kube/rest.js';
import { EraseControllers } from '../erase/controllers.js';
import type { ProtectionSource } from '../erase/worker/inventory-protection.js';
import type { EraseMetrics } from '../erase/metrics/metrics.js';
import type { Logger } from '../observability/logger.js';
import { ERASE_CRDS } from '../kube/crds.js';
import type { CrdGuard } from './crd-guard.js';
import type { Runnable } from '../controller/manager.js';

export interface EraseRunnableOptions {
  kubeConfig: KubeConfig;
  /** The daemon's transport (its request timeout and response caps apply to the controllers too). */
  rest?: KubeRest;
  /** Namespace of the worker Pods and their ConfigMaps. */
  namespace: string;
  /** Namespace of the configuration and the exclusion lists. */
  configNamespace?: string;
  logger: Logger;
  /** The daemon's cache-backed protected set for `*` prunes. */
  protection?: ProtectionSource;
  metrics?: EraseMetrics;
  /** The controllers start only once their CRDs are served. */
  guard?: CrdGuard;
}

export function eraseRunnable(opts: EraseRunnableOptions): Runnable {
  return {
    name: 'erase-controllers',
    needLeaderElection: true,
    start: async (signal) => {
      if (opts.guard && !(await opts.guard.waitFor(ERASE_CRDS, signal))) return;
      await new EraseControllers(opts).start(signal);
    },
  };
}
