// The daemon's process manager, after controller-runtime's manager: it owns leader election,
// the metrics and health servers, and a list of Runnables, and runs an ordered shutdown.
//
// EXTENSION POINT. Other controllers (e.g. the erase ImageList/ImageJob controllers) run in the
// same process, under the same Lease, by implementing Runnable and calling manager.add(r)
// before manager.run():
//   - needLeaderElection: true  -> started each time this process becomes leader, with a
//     signal that aborts when leadership ends (lost or shutdown). start() must then finish its
//     in-flight work and resolve; the Lease is released only after it has. Only one term's
//     work ever runs at a time. Reconcilers go here.
//   - needLeaderElection: false -> started once at process start in every replica, aborted at
//     shutdown after all leader runnables have stopped. Caches/informers go here, so standby
//     replicas keep warm caches and a new leader starts work at once.
//   - ready(), if present, is part of /readyz (e.g. "caches synced").
// A Runnable whose start() rejects stops the whole process (exit code 1), as in
// controller-runtime: a half-running controller is worse than a restart by the kubelet.
// Metrics: register on `manager.metrics.registry` (a private prom-client Registry).
import type { KubeConfig } from '@kubernetes/client-node';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import type { KubeRest } from '../kube/rest.js';
import { Heartbeat } from './heartbeat.js';
import { LeaderElector } from './leader-election.js';
import {
  bindAddressDisabled,
  healthHandler,
  metricsHandler,
  startHttpServer,
  type RunningHttpServer,
} from '../observability/http-server.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { authorized, MetricsAuthorizer } from './metrics-auth.js';
import { servingCert } from '../observability/serving-cert.js';
import { registerServerMetrics } from '../observability/server-metrics.js';

export interface Runnable {
  readonly name: string;
  readonly needLeaderElection: boolean;
  /** Runs until `signal` aborts, then drains and resolves. */
  start(signal: AbortSignal): Promise<void>;
  /** true when ready; false or the reason (a string) when not. */
  ready?(): boolean | string;
}

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  /** Default: hostname + random suffix. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  /** The transport for the Lease (default: the elector's own on kubeConfig). */
  rest?: KubeRest;
  logger: Logger;
  metrics: Metrics;
  /** host:port; "0" disables. */
  metricsBindAddress: string;
  /**
   * Serve /metrics over HTTPS to authorized callers only (TokenReview + SubjectAccessReview
   * through `rest`): controller-runtime's secure metrics. certDir holds tls.crt and tls.key;
   * without it a self-signed certificate is made at start.
   */
  metricsSecure?: { certDir?: string; hosts?: string[]; reviewTtlMs?: number; certPollMs?: number };
  healthProbeBindAddress: string;
  /** Undefined: this process always leads. */
  leaderElection?: LeaderElectionConfig;
  /**
   * Without leader election: keep a heartbeat Lease for this election Lease (heartbeat.ts), so
   * that requesters who look for the controllers' Lease see this process.
   */
  heartbeat?: { namespace: string; name: string; durationMs?: number; periodMs?: number };
  /** Hard limit for the shutdown sequence. */
  shutdownGracePeriodMs: number;
}

export interface ManagerResult {
  /** False when a runnable failed or the grace period ran out. */
  clean: boolean;
  reason: string;
}

export class Manager {
  private readonly runnables: Runnable[] = [];
  private elector?: LeaderElector;
  private leading = false;
  private servers: RunningHttpServer[] = [];
  /** Clients the servers used (the reviews'), closed after them. */
  private readonly closers: (() => void)[] = [];
  private fatal?: string;
  private readonly internalStop = new AbortController();
  metricsUrl?: string;
  /** With secure metrics: who may scrape, and how many reviews that cost. */
  metricsAuthorizer?: MetricsAuthorizer;
  healthUrl?: string;
  readonly identity: string;

  constructor(private readonly opts: ManagerOptions) {
    this.identity = opts.leaderElection?.identity || `${os.hostname()}_${randomUUID()}`;
    const hb = opts.heartbeat;
    if (hb && !opts.leaderElection) {
      if (!opts.rest) throw new Error('the heartbeat needs the manager’s API transport');
      this.add(
        new Heartbeat({
          rest: opts.rest,
          namespace: hb.namespace,
          lease: hb.name,
          identity: this.identity,
          logger: opts.logger,
          durationMs: hb.durationMs,
          periodMs: hb.periodMs,
        }),
      );
    }
  }

  get metrics(): Metrics {
    return this.opts.metrics;
  }

  add(r: Runnable): void {
    this.runnables.push(r);
  }

  isLeader(): boolean {
    return this.leading;
  }

  private failed(r: Runnable, err: unknown): void {
    this.opts.logger.error('runnable failed; shutting down', { runnable: r.name, err });
    this.fatal ??= `${r.name}: ${(err as Error)?.message ?? String(err)}`;
    this.internalStop.abort();
  }

  private runAll(list: Runnable[], signal: AbortSignal): Promise<void> {
    return Promise.all(
      list.map((r) =>
        r.start(signal).catch((err: unknown) => (signal.aborted ? undefined : this.failed(r, err))),
      ),
    ).then(() => undefined);
  }

  /** Runs until `signal` aborts (or a runnable fails), then shuts down in order. */
  async run(signal: AbortSignal): Promise<ManagerResult> {
    const log = this.opts.logger;
    const stop = AbortSignal.any([signal, this.internalStop.signal]);
    const leaderRunnables = this.runnables.filter((r) => r.needLeaderElection);
    const others = this.runnables.filter((r) => !r.needLeaderElection);

    type ServerSpec = Omit<Parameters<typeof startHttpServer>[0], 'bindAddress' | 'logger'> & {
      name: string;
      bind: string;
    };
    const servers: ServerSpec[] = [];
    const secure = this.opts.metricsSecure;
    const cert = secure
      ? servingCert({ certDir: secure.certDir, hosts: secure.hosts, pollMs: secure.certPollMs, logger: log })
      : undefined;
    if (!bindAddressDisabled(this.opts.metricsBindAddress)) {
      const handler = metricsHandler(this.opts.metrics.registry);
      if (secure && !this.opts.rest) throw new Error('secure metrics need the manager’s API transport');
      // Reviews on a client of their own, paced by their own budget (metrics-auth.ts), never
      // by the writes' --kube-api-qps.
      const reviewRest = secure ? this.opts.rest!.detached() : undefined;
      if (reviewRest) this.closers.push(() => reviewRest.close());
      const auth = reviewRest
        ? new MetricsAuthorizer({ rest: reviewRest, logger: log, ttlMs: secure!.reviewTtlMs })
        : undefined;
      this.metricsAuthorizer = auth;
      servers.push({
        name: 'metrics',
        bind: this.opts.metricsBindAddress,
        routes: { '/metrics': auth ? authorized(auth, handler) : handler },
        tls: cert?.current,
      });
    }
    if (!bindAddressDisabled(this.opts.healthProbeBindAddress)) {
      const checks: Record<string, () => boolean | string> = Object.fromEntries(
        others.filter((r) => r.ready).map((r) => [r.name, () => r.ready!()]),
      );
      // Not ready while the Lease can be neither taken nor renewed (a standby behind a live
      // leader is ready): otherwise such a daemon looks healthy and never leads.
      if (this.opts.leaderElection) checks['leader-election'] = () => this.elector?.problem() ?? true;
      servers.push({
        name: 'health',
        bind: this.opts.healthProbeBindAddress,
        routes: { '/healthz': healthHandler(), '/readyz': healthHandler(checks) },
      });
    }
    for (const s of servers) {
      const srv = await startHttpServer({ bindAddress: s.bind, routes: s.routes, tls: s.tls, logger: log });
      this.servers.push(srv);
      if (s.name === 'metrics') {
        this.metricsUrl = srv.url;
        if (cert && s.tls) cert.watch((pair) => srv.setTls(pair), stop);
      } else this.healthUrl = srv.url;
      log.info(`serving ${s.name}`, { url: srv.url });
    }
    registerServerMetrics(
      this.opts.metrics.registry,
      this.servers.map((srv, i) => ({ name: servers[i]!.name, connections: srv.connections })),
      this.metricsAuthorizer?.lanes.refused,
    );

    const othersCtl = new AbortController();
    // Every runnable in every replica (caches, the heartbeat, the servers' watchers) listens to
    // this one signal: more than Node's default of 10 listeners is expected, not a leak. (A cache
    // hands it on to its informers through one listener: concurrency.ts withFanOut.)
    setMaxListeners(64, othersCtl.signal);
    const othersRun = this.runAll(others, othersCtl.signal);

    const le = this.opts.leaderElection;
    let leaderRun: Promise<void>;
    const leaderCtl = new AbortController();
    if (le) {
      this.elector = new LeaderElector({
        kubeConfig: this.opts.kubeConfig,
        // Renewals never wait behind the writes' rate limit (--kube-api-qps).
        rest: this.opts.rest?.withoutWriteLimit(),
        namespace: le.namespace,
        name: le.name,
        identity: this.identity,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        logger: log,
        onStartedLeading: (term) => {
          this.leading = true;
          this.opts.metrics.leader.set(1);
          log.info('became leader; starting controllers', { identity: this.identity });
          return this.runAll(leaderRunnables, term);
        },
        onStoppedLeading: () => {
          this.leading = false;
          this.opts.metrics.leader.set(0);
          log.info('stopped leading', { identity: this.identity });
        },
      });
      leaderRun = this.elector.run();
    } else {
      this.leading = true;
      this.opts.metrics.leader.set(1);
      leaderRun = this.runAll(leaderRunnables, leaderCtl.signal);
    }

    if (!stop.aborted)
      await new Promise<void>((r) => stop.addEventListener('abort', () => r(), { once: true }));
    const reason = this.fatal ? `runnable failed: ${this.fatal}` : 'shutdown requested';
    log.info('shutting down', { reason, gracePeriodMs: this.opts.shutdownGracePeriodMs });
    const started = Date.now();

    const sequence = (async () => {
      // 1. Leader work: drain in-flight reconciles, then release the Lease.
      if (this.elector) await this.elector.stop();
      else {
        leaderCtl.abort();
        await leaderRun;
        this.leading = false;
        this.opts.metrics.leader.set(0);
      }
      // 2. Caches and other non-leader runnables.
      othersCtl.abort();
      await othersRun;
      // 3. Servers last, so probes and scrapes work until the end.
      await Promise.all(this.servers.map((s) => s.close()));
      for (const c of this.closers.splice(0)) c();
    })();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      sequence.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), this.opts.shutdownGracePeriodMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      log.error('shutdown grace period exceeded; exiting without a full drain', {
        gracePeriodMs: this.opts.shutdownGracePeriodMs,
      });
      return { clean: false, reason: 'grace period exceeded' };
    }
    log.info('shutdown complete', { ms: Date.now() - started });
    return { clean: !this.fatal, reason };
  }
}
