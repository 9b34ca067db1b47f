// Lease-based leader election (coordination.k8s.io/v1), after client-go's leaderelection.
//
// Why: `inv watch` runs as a Deployment that may have several replicas during a rollout; two
// replicas rebuilding the same namespace would fight over its Images. Only the holder of the
// Lease reconciles.
//
// The rules, as in client-go:
//   - Expiry is judged on the local clock: a candidate remembers when it last saw the Lease
//     record change (observedTime) and considers it expired leaseDuration after that. The
//     holder's renewTime is written but never compared across machines, so clock skew between
//     nodes cannot cause two leaders.
//   - Every write is an update carrying the resourceVersion that was read (optimistic
//     concurrency): when two candidates race for an expired Lease, the API server lets one
//     win and answers 409 Conflict to the other, which simply tries again next retry period.
//   - The leader renews every retryPeriod; if it cannot renew within renewDeadline (shorter
//     than leaseDuration), it stops leading before any other candidate may consider the
//     Lease expired.
//   - On a clean stop with releaseOnCancel, the leader first stops its work (waiting for it, as
//     controller-runtime does), then empties holderIdentity (leaseDurationSeconds 1), so a
//     candidate takes over at its next retry instead of waiting out the lease.
//
// Transport: KubeRest, like every other API call (an overall deadline, a size cap, and the
// AbortSignal of the attempt); client-node only loads the kubeconfig.
import { resourcePath } from '../kube/resources.js';
import { FIELD_MANAGER } from '../kube/apply.js';
import { KubeRest } from '../kube/rest.js';
import { leaseProblem, sleep, statusCode } from './lease-problem.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { microTime, rawRecord, type Lease, type LeaderElectionOptions, type LeaseRecord } from './lease.js';

export type { Lease, LeaderElectionOptions };
export { leaseProblem };

export class LeaderElector {
  private readonly rest: KubeRest;
  private readonly ownsRest: boolean;
  private readonly path: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly jitterFactor: number;
  private readonly log: Logger;

  // The last Lease object read or written (its resourceVersion guards our next update).
  private lease: Lease | undefined;
  private observedRecord: LeaseRecord = {};
  private observedRaw = '';
  private observedTime = 0;
  private reportedLeader = '';

  private leading = false;
  // Why the last attempt to take or renew the Lease failed (not: someone else holds it).
  private lastProblem: string | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  // Aborted by stop(): wakes sleeps and aborts requests of the election loop.
  private readonly stopController = new AbortController();
  private termController: AbortController | undefined;

  constructor(private readonly opts: LeaderElectionOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    this.jitterFactor = opts.jitterFactor ?? 1.2;
    this.log = (opts.logger ?? noopLogger).child({
      lease: `${opts.namespace}/${opts.name}`,
      identity: opts.identity,
    });
    if (!opts.identity) throw new Error('leader election: identity must not be empty');
    if (this.leaseDurationMs < 1000) throw new Error('leader election: leaseDuration must be at least 1 s');
    // The same invariants client-go enforces: the leader must give up before others may take over.
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new Error('leader election: leaseDuration must be greater than renewDeadline');
    }
    if (!(this.renewDeadlineMs > this.jitterFactor * this.retryPeriodMs)) {
      throw new Error('leader election: renewDeadline must be greater than retryPeriod * jitterFactor');
    }
    if (!(this.retryPeriodMs > 0)) throw new Error('leader election: retryPeriod must be positive');
    this.ownsRest = !opts.rest;
    this.rest = opts.rest ?? new KubeRest(opts.kubeConfig);
    this.path = resourcePath('Lease', opts.namespace);
  }

  /** True while this candidate leads (between onStartedLeading and the abort of its signal). */
  isLeader(): boolean {
    return this.leading;
  }

  /**
   * Why this candidate can neither take nor renew the Lease (missing namespace, forbidden, API
   * errors), undefined while it leads or sees a valid holder. The manager's /readyz reports it.
   */
  problem(): string | undefined {
    return this.lastProblem;
  }

  /** Records the outcome of one attempt: an error log when the reason is new, none when it repeats. */
  private setProblem(problem: string | undefined): void {
    if (problem && problem !== this.lastProblem)
      this.log.error('leader election failing: cannot take or renew the Lease', {
        namespace: this.opts.namespace,
        problem,
      });
    else if (!problem && this.lastProblem) this.log.info('leader election recovered', {});
    this.lastProblem = problem;
  }

  /** The holder last observed in the Lease, if any. */
  getLeader(): string | undefined {
    return this.observedRecord.holderIdentity || undefined;
  }

  /**
   * Runs the election: acquire, lead and renew, until stop() (or, with reacquire false, until
   * leadership is lost). Resolves when done; never rejects. Call once.
   */
  run(): Promise<void> {
    if (this.running) throw new Error('leader election: run() was already called');
    this.running = this.loop().finally(() => {
      if (this.ownsRest) this.rest.close();
    });
    return this.running;
  }

  /** Ends the election: stops leading (waiting for the work), releases the Lease if held. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopController.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      if (!(await this.acquire())) break;
      await this.lead();
      if (!(this.opts.reacquire ?? true)) break;
    }
  }

  /** Tries every (jittered) retryPeriod until the Lease is ours; false if stopped first. */
  private async acquire(): Promise<boolean> {
    this.log.debug('attempting to acquire leader lease');
    for (;;) {
      const ok = await this.tryAcquireOrRenew(this.requestSignal(this.renewDeadlineMs));
      if (this.stopped) return false;
      this.reportTransition();
      if (ok) {
        this.log.info('acquired leader lease');
        return true;
      }
      const jitter = this.jitterFactor > 0 ? Math.random() * this.jitterFactor * this.retryPeriodMs : 0;
      await sleep(this.retryPeriodMs + jitter, this.stopController.signal);
      if (this.stopped) return false;
    }
  }

  /** One term: start the work, renew until stopped or a renewal misses its deadline. */
  private async lead(): Promise<void> {
    const term = new AbortController();
    this.termController = term;
    this.leading = true;
    let work: Promise<void>;
    try {
      work = Promise.resolve(this.opts.onStartedLeading(term.signal));
    } catch (err) {
      work = Promise.reject(err);
    }
    work = work.catch((err: unknown) => this.log.error('leading work failed', { err }));

    let lost = false;
    while (!this.stopped) {
      await sleep(this.retryPeriodMs, this.stopController.signal);
      if (this.stopped) break;
      if (!(await this.renew())) {
        lost = !this.stopped;
        break;
      }
    }

    this.leading = false;
    term.abort();
    if (lost)
      this.log.error('lost leader lease: renewal did not succeed within the renew deadline', {
        namespace: this.opts.namespace,
        problem: this.lastProblem ?? 'no answer within the renew deadline',
      });
    await work;
    if (this.opts.releaseOnCancel ?? true) await this.release();
    this.termController = undefined;
    try {
      this.opts.onStoppedLeading();
    } catch (err) {
      this.log.error('onStoppedLeading failed', { err });
    }
  }

  /** Retries the renewal every retryPeriod until it succeeds or renewDeadline passes. */
  private async renew(): Promise<boolean> {
    const deadline = Date.now() + this.renewDeadlineMs;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      const ok = await this.tryAcquireOrRenew(this.requestSignal(remaining));
      if (this.stopped) return ok;
      this.reportTransition();
      if (ok) return true;
      await sleep(Math.min(this.retryPeriodMs, deadline - Date.now()), this.stopController.signal);
      if (this.stopped) return false;
    }
  }

  private requestSignal(timeoutMs: number): AbortSignal {
    return AbortSignal.any([this.stopController.signal, AbortSignal.timeout(Math.max(1, timeoutMs))]);
  }

  private readLease(signal: AbortSignal): Promise<Lease> {
    return this.rest.request<Lease>('GET', resourcePath('Lease', this.opts.namespace, this.opts.name), {
      signal,
    });
  }

  /** An update carrying the resourceVersion read (409 when someone else wrote since). */
  private replaceLease(body: Lease, signal: AbortSignal): Promise<Lease> {
    // The field manager marks the Lease as inv's: `inv uninstall` may delete a namespace that
    // holds it.
    return this.rest.request<Lease>('PUT', resourcePath('Lease', this.opts.namespace, this.opts.name), {
      body,
      signal,
      query: { fieldManager: FIELD_MANAGER },
    });
  }

  private observe(lease: Lease, now: number): void {
    this.lease = lease;
    const record: LeaseRecord = { ...lease.spec };
    const raw = rawRecord(record);
    if (raw !== this.observedRaw) {
      this.observedRaw = raw;
      this.observedRecord = record;
      this.observedTime = now;
    }
  }

  private leaseValid(now: number): boolean {
    return this.observedTime + (this.observedRecord.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  /** client-go's tryAcquireOrRenew: one attempt to create, take over or renew the Lease. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { namespace, name, identity } = this.opts;
    const now = Date.now();
    const micro = microTime;
    const leaseDurationSeconds = Math.ceil(this.leaseDurationMs / 1000);

    // Fast path: while we hold a valid Lease, update the copy we have without reading first.
    if (this.observedRecord.holderIdentity === identity && this.leaseValid(now) && this.lease) {
      const body: Lease = {
        ...this.lease,
        spec: { ...this.lease.spec, holderIdentity: identity, leaseDurationSeconds, renewTime: micro(now) },
      };
      try {
        const updated = await this.replaceLease(body, signal);
        this.observe(updated, Date.now());
        this.setProblem(undefined);
        return true;
      } catch (err) {
        if (this.stopped) return false;
        this.log.debug('optimistic lease renewal failed; reading the lease', { err: String(err) });
      }
    }

    let current: Lease;
    try {
      current = await this.readLease(signal);
    } catch (err) {
      if (statusCode(err) !== 404) {
        if (!this.stopped) this.setProblem(leaseProblem('read', namespace, name, err));
        return false;
      }
      const body: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds,
          acquireTime: micro(now),
          renewTime: micro(now),
          leaseTransitions: 0,
        },
      };
      try {
        const created = await this.rest.request<Lease>('POST', this.path, {
          body,
          signal,
          query: { fieldManager: FIELD_MANAGER },
        });
        this.observe(created, Date.now());
        this.setProblem(undefined);
        return true;
      } catch (createErr) {
        // 409 AlreadyExists: another candidate created it first.
        this.log.debug('cannot create leader lease', { code: statusCode(createErr) });
        if (statusCode(createErr) !== 409 && !this.stopped)
          this.setProblem(leaseProblem('create', namespace, name, createErr));
        return false;
      }
    }
    // Observation time is when the read returned: the later, the more conservative the expiry.
    const seen = Date.now();
    this.observe(current, seen);

    const held = this.observedRecord.holderIdentity;
    if (held && held !== identity && this.leaseValid(seen)) {
      // A standby behind a live leader: nothing wrong.
      this.setProblem(undefined);
      return false;
    }

    const spec = current.spec ?? {};
    const body: Lease = {
      ...current,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds,
        renewTime: micro(seen),
        ...(held === identity
          ? { acquireTime: spec.acquireTime, leaseTransitions: spec.leaseTransitions ?? 0 }
          : { acquireTime: micro(seen), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
      },
    };
    try {
      const updated = await this.replaceLease(body, signal);
      this.observe(updated, Date.now());
      this.setProblem(undefined);
      return true;
    } catch (err) {
      // 409 Conflict: the Lease changed since we read it (someone else renewed or won).
      this.log.debug('cannot update leader lease', { code: statusCode(err) });
      if (statusCode(err) !== 409 && !this.stopped)
        this.setProblem(leaseProblem('update', namespace, name, err));
      return false;
    }
  }

  /** Gives the Lease up if we still hold it: empty holder, 1 s duration, transitions kept. */
  private async release(): Promise<void> {
    if (this.observedRecord.holderIdentity !== this.opts.identity || !this.lease) return;
    // Not tied to stopController: stop() has aborted it, and releasing is part of stopping.
    const signal = AbortSignal.timeout(this.renewDeadlineMs);
    let lease = this.lease;
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = microTime(Date.now());
      const body: Lease = {
        ...lease,
        spec: {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: lease.spec?.leaseTransitions ?? 0,
        },
      };
      try {
        this.observe(await this.replaceLease(body, signal), Date.now());
        this.log.info('released leader lease');
        return;
      } catch (err) {
        if (statusCode(err) !== 409 || attempt > 0) {
          this.log.warn('cannot release leader lease', { code: statusCode(err), err: String(err) });
          return;
        }
      }
      // 409: our copy is stale, e.g. a renewal aborted by stop() still reached the server.
      // Release only if the Lease is still ours; otherwise someone else holds it already.
      try {
        lease = await this.readLease(signal);
      } catch (err) {
        this.log.warn('cannot release leader lease', { code: statusCode(err), err: String(err) });
        return;
      }
      this.observe(lease, Date.now());
      if (lease.spec?.holderIdentity !== this.opts.identity) return;
    }
  }

  private reportTransition(): void {
    const holder = this.observedRecord.holderIdentity ?? '';
    if (!holder || holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    this.log.info('new leader observed', { leader: holder });
    try {
      this.opts.onNewLeader?.(holder);
    } catch (err) {
      this.log.error('onNewLeader failed', { err });
    }
  }
}
