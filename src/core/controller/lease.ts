// The Lease the leader election (leader-election.ts) reads and writes, and how it is configured:
// the fields of a coordination.k8s.io/v1 Lease it uses, MicroTime as the API server writes it,
// and the record's identity for "has it changed since I last looked" (the local-clock expiry).
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeRest } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';

export interface LeaderElectionOptions {
  kubeConfig: KubeConfig;
  /** The transport (default: a KubeRest of its own on kubeConfig, closed when run() ends). */
  rest?: KubeRest;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** Unique per candidate, e.g. the Pod name plus a random suffix. */
  identity: string;
  /** How long a Lease stays valid after its last observed change. Default 15 s. Whole seconds. */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renewal before giving up. Default 10 s. */
  renewDeadlineMs?: number;
  /** Interval between acquire attempts and between renewals. Default 2 s. */
  retryPeriodMs?: number;
  /** Acquire attempts wait retryPeriod * (1 + random * jitterFactor). Default 1.2 (client-go). */
  jitterFactor?: number;
  /** Empty the Lease on stop() so another candidate takes over at once. Default true. */
  releaseOnCancel?: boolean;
  /**
   * After losing the Lease (renewals failed), become a candidate again instead of ending.
   * Default true: a transient API outage then does not end the daemon. Each term gets a
   * fresh signal and onStartedLeading call.
   */
  reacquire?: boolean;
  /**
   * Called when this candidate becomes leader; `signal` aborts when leadership ends. If it
   * returns a promise, the elector waits for it to settle before releasing the Lease or
   * competing again, so the work of two terms never overlaps: the work must honour `signal`.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called after a term ends (lost or stopped), once its work has finished and the Lease is released. */
  onStoppedLeading(): void;
  /** Called when a different non-empty holder is observed (including this candidate). */
  onNewLeader?(identity: string): void;
  logger?: Logger;
}

/** The fields of a coordination.k8s.io/v1 Lease that the election reads and writes. */
export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  spec?: LeaseRecord;
}

export type LeaseRecord = {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: unknown;
  renewTime?: unknown;
  leaseTransitions?: number;
};

// MicroTime: RFC 3339 with exactly six fractional digits, as the API server writes it.
export const microTime = (t: number): string => new Date(t).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const timeText = (t: unknown): string => (t instanceof Date ? t.toISOString() : t == null ? '' : String(t));
export const rawRecord = (r: LeaseRecord): string =>
  JSON.stringify([
    r.holderIdentity ?? '',
    r.leaseDurationSeconds ?? 0,
    timeText(r.acquireTime),
    timeText(r.renewTime),
    r.leaseTransitions ?? 0,
  ]);
