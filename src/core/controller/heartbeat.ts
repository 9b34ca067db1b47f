// A heartbeat Lease for a daemon that runs its controllers without leader election.
//
// Why: `inv erase` refuses a request when nothing will run it, and it judges that from the
// controllers' Lease. A single `inv watch` without --leader-elect holds no Lease, yet it runs
// the controllers; refusing it would push people to leader election they do not need. So such a
// daemon keeps a Lease of its own next to the election Lease, labelled as a heartbeat for it
// (as kube-apiserver publishes its identity Leases): `inv erase`'s preflight and `inv check`
// accept a fresh one when the election Lease has no live holder.
//
// It never touches the election Lease, so a leader-elected daemon elsewhere is undisturbed.
// The heartbeat is removed on a clean stop; stale ones left by a crash are ignored by readers
// (too old) and removed by the next heartbeat started for the same Lease.
import { resourcePath } from '../kube/resources.js';
import { sleep } from '../concurrency.js';
import { createHash } from 'node:crypto';
import { isNotFound, KubeApiError, type KubeRest } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';
import { leaseProblem } from './lease-problem.js';
import { microTime, type Lease } from './lease.js';

/** Label on heartbeat Leases; its value is the name of the election Lease they stand in for. */
export const HEARTBEAT_LABEL = 'imageinventory.dev/heartbeat-for';

/** The heartbeat Lease's name for one process: the election Lease's name and a hash of the identity. */
export const heartbeatName = (lease: string, identity: string): string =>
  `${lease.slice(0, 40)}-hb-${createHash('sha256').update(identity).digest('hex').slice(0, 10)}`;

export interface HeartbeatOptions {
  rest: KubeRest;
  namespace: string;
  /** The election Lease this heartbeat stands in for. */
  lease: string;
  identity: string;
  logger: Logger;
  /** How long a beat counts as alive (whole seconds). Default 15 s. */
  durationMs?: number;
  /** Interval between beats. Default 2 s. */
  periodMs?: number;
}

/** A Runnable (manager.ts) for every replica: beats until stopped, then removes its Lease. */
export class Heartbeat {
  readonly name = 'heartbeat';
  readonly needLeaderElection = false;
  private problem: string | undefined = 'no heartbeat written yet';
  private lease: Lease | undefined;
  private readonly leaseName: string;
  private readonly path: string;

  constructor(private readonly opts: HeartbeatOptions) {
    this.leaseName = heartbeatName(opts.lease, opts.identity);
    this.path = resourcePath('Lease', opts.namespace);
  }

  ready(): boolean | string {
    return this.problem ?? true;
  }

  async start(signal: AbortSignal): Promise<void> {
    const period = this.opts.periodMs ?? 2_000;
    await this.removeStale(signal);
    while (!signal.aborted) {
      // One signal per beat, unlinked afterwards (AbortSignal.any would leave a listener on
      // `signal` per beat until it aborts).
      const beat = new AbortController();
      const abort = () => beat.abort();
      signal.addEventListener('abort', abort, { once: true });
      const timer = setTimeout(abort, period * 4);
      try {
        await this.beat(beat.signal);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
      }
      await sleep(period, signal);
    }
    // Stopped: say so at once instead of letting readers wait out the duration.
    await this.opts.rest
      .request('DELETE', resourcePath('Lease', this.opts.namespace, this.leaseName), {
        signal: AbortSignal.timeout(5_000),
      })
      .catch(() => undefined);
  }

  private async beat(signal: AbortSignal): Promise<void> {
    const { namespace, identity } = this.opts;
    const now = microTime(Date.now());
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil((this.opts.durationMs ?? 15_000) / 1000),
      renewTime: now,
    };
    let verb = this.lease ? 'update' : 'create';
    try {
      if (this.lease) {
        this.lease = await this.opts.rest.request<Lease>(
          'PUT',
          resourcePath('Lease', this.opts.namespace, this.leaseName),
          {
            body: { ...this.lease, spec: { ...this.lease.spec, ...spec } },
            signal,
          },
        );
      } else {
        try {
          this.lease = await this.opts.rest.request<Lease>('POST', this.path, {
            body: {
              apiVersion: 'coordination.k8s.io/v1',
              kind: 'Lease',
              metadata: {
                name: this.leaseName,
                namespace,
                labels: { [HEARTBEAT_LABEL]: this.opts.lease },
              },
              spec: { ...spec, acquireTime: now },
            },
            signal,
          });
        } catch (e) {
          if (!(e instanceof KubeApiError && e.code === 409)) throw e;
          // Ours from a previous beat whose answer was lost: read it and update it next time.
          verb = 'read';
          this.lease = await this.opts.rest.request<Lease>(
            'GET',
            resourcePath('Lease', this.opts.namespace, this.leaseName),
            {
              signal,
            },
          );
          return;
        }
      }
      this.setProblem(undefined);
    } catch (e) {
      if (signal.aborted && !(e instanceof KubeApiError)) return;
      // A conflict or a deleted Lease: start again from a fresh read or create.
      if (e instanceof KubeApiError && (e.code === 409 || (isNotFound(e) && verb === 'update'))) {
        this.lease = undefined;
        return;
      }
      this.setProblem(leaseProblem(verb, namespace, this.leaseName, e));
    }
  }

  private setProblem(problem: string | undefined): void {
    if (problem && problem !== this.problem)
      this.opts.logger.error('heartbeat failing: erase requests cannot see this controller', {
        namespace: this.opts.namespace,
        problem,
      });
    else if (!problem && this.problem)
      this.opts.logger.info('heartbeat Lease renewed', {
        lease: `${this.opts.namespace}/${this.leaseName}`,
      });
    this.problem = problem;
  }

  /** Deletes heartbeats for the same Lease that stopped beating long ago (left by crashes). */
  private async removeStale(signal: AbortSignal): Promise<void> {
    try {
      const list = await this.opts.rest.request<{ items?: Lease[] }>('GET', this.path, {
        query: { labelSelector: `${HEARTBEAT_LABEL}=${this.opts.lease}` },
        signal,
      });
      for (const l of list.items ?? []) {
        const renewed = Date.parse(String(l.spec?.renewTime ?? ''));
        const ttl = (l.spec?.leaseDurationSeconds ?? 15) * 1000;
        if (l.metadata.name === this.leaseName || Date.now() - renewed < 10 * ttl) continue;
        await this.opts.rest
          .request('DELETE', resourcePath('Lease', this.opts.namespace, l.metadata.name), {
            body: { preconditions: { resourceVersion: l.metadata.resourceVersion } },
            signal,
          })
          .catch(() => undefined);
      }
    } catch {
      // Best effort: the first beat reports what is wrong (missing namespace, forbidden).
    }
  }
}
