// `inv watch`: the daemon's command. Its flags are completed and validated at once
// (cli/watch/watch-options.ts); the daemon itself is core/watch/daemon.ts.
import { Command } from '@oclif/core';
import { EXIT_PARTIAL_FAILURE } from '../cli/process/exit-codes.js';
import { exitWhenFlushed } from '../cli/process/exit.js';
import { failFlags, failLine } from '../cli/process/fail.js';
import { cluster } from '../cli/connect.js';
import { completeWatchOptions } from '../cli/watch/watch-options.js';
import { watchFlags } from '../cli/watch/watch-flags.js';
import { showBooleanDefaults } from '../cli/flags.js';
import { setResponseBudget } from '../core/kube/rest.js';
import { TokenBucket } from '../core/kube/rate-limit.js';
import { createLogger, parseLogFormat, parseLogLevel } from '../core/observability/logger.js';
import { createWatchDaemon } from '../core/watch/daemon.js';
import { kindsPhrase } from '../core/inventory/source-kinds.js';
import { readSourceKindsFile } from '../cli/source-kinds-flag.js';
import { discoverDeclaredKinds } from '../core/watch/declared-kinds.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { paragraphs } from '../cli/help-text.js';
import { commandCompletion } from '../cli/completion/sources.js';

// A long-running daemon under a memory limit. Its LISTs are paginated (500 objects a page, a few
// MiB of JSON), so 32 MiB per response is generous, and 48 MiB buffered at once leaves room for
// one page of every informer listing at the same time (start-up). A server streaming garbage into
// every informer at once then costs that plus the buffers the collector has not reclaimed yet:
// the hostile-server test (the shipped bundle on Node 24) peaks at about 255 MB, under its 300 MB
// limit; with 64 MiB each it reached 332 MB.
const DAEMON_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const DAEMON_RESPONSE_BUDGET = 48 * 1024 * 1024;

/** How long the daemon's exit waits for its last log lines to drain into a slow pipe. */
const LOG_DRAIN_MS = 5000;

export default class Watch extends Command {
  static override summary = 'Run the inventory daemon: keep every namespace’s Image resources up to date.';

  static override description =
    paragraphs(`Watches the ${kindsPhrase()}, the kinds declared with --source-kinds, ReplicaSets
(metadata only) and Images (list + watch, stripped caches) and rebuilds a namespace's Images with the same rules as \`inv scan\` whenever
something that can change its inventory happens there. Events are coalesced per namespace, so a
burst of Pod events costs a handful of rebuilds. Only the leader reconciles when --leader-elect
is set (a coordination.k8s.io Lease). Without it, a daemon running the erase controllers keeps a
heartbeat Lease next to that Lease instead, so that \`inv erase\` and \`inv check\` see it; either
way, /readyz fails, with the reason, while the Lease cannot be written. Prometheus metrics are served on --metrics-bind-address,
over HTTPS to authorized callers only with --metrics-secure (as the shipped Deployment does), /healthz and /readyz on --health-probe-bind-address. SIGTERM drains in-flight rebuilds, releases
the Lease and exits within --shutdown-grace-period.

Install in a cluster with \`inv install --daemon\` (the same objects as \`kubectl apply -k deploy/\`).

Exit codes: 0 clean shutdown; 1 a component failed or the shutdown grace period ran out; 2 bad
flags or no usable cluster configuration.`);

  static override examples = [
    { description: 'Run against the current kubeconfig context', command: '<%= config.bin %> watch' },
    {
      description: 'Only two namespaces, human-readable logs',
      command: '<%= config.bin %> watch --namespaces shop,web --log-format text',
    },
    {
      description: 'As in the shipped Deployment',
      command:
        '<%= config.bin %> watch --leader-elect --metrics-bind-address :8443 --metrics-secure --health-probe-bind-address :8081',
    },
  ];

  static override flags = showBooleanDefaults(watchFlags);

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const { flags } = await this.parse(Watch);
    const completed = completeWatchOptions(flags);
    // Every bad flag at once, each naming itself.
    if (!('options' in completed)) return failFlags(this, completed.problems);
    const { namespaces, leaseDurationMs, renewDeadlineMs, retryPeriodMs, qps } = completed.options;
    const { resyncPeriodMs, shutdownGracePeriodMs } = completed.options;
    const logger = createLogger({
      // People running it by hand read text; a Pod's log collector (no TTY) gets JSON lines.
      format: parseLogFormat(flags['log-format'] ?? (process.stderr.isTTY ? 'text' : 'json')),
      level: parseLogLevel(flags['log-level']),
      fields: { component: 'inv-watch' },
    });
    let kubeConfig: KubeConfig;
    let rest;
    try {
      // Response caps for a daemon: see DAEMON_RESPONSE_BUDGET.
      ({ kc: kubeConfig, restOptions: rest } = cluster(flags, {
        maxResponseBytes: DAEMON_MAX_RESPONSE_BYTES,
        // One bucket for the whole daemon: the inventory, its Events, the erase controllers.
        ...(qps > 0 ? { writeLimiter: new TokenBucket({ qps, burst: flags['kube-api-burst'] }) } : {}),
      }));
      setResponseBudget(DAEMON_RESPONSE_BUDGET);
    } catch (e) {
      return failLine(this, (e as Error).message);
    }

    const declared = await readSourceKindsFile(this, flags['source-kinds']);
    const kinds = await discoverDeclaredKinds(kubeConfig, rest, declared, logger);

    const daemon = createWatchDaemon({
      kubeConfig,
      rest,
      logger,
      kinds,
      namespaces,
      leaderElection: flags['leader-elect']
        ? {
            namespace: flags['leader-elect-namespace'],
            name: flags['leader-elect-id'],
            leaseDurationMs,
            renewDeadlineMs,
            retryPeriodMs,
          }
        : undefined,
      // One replica without a Lease still runs the erase controllers: its heartbeat lets
      // `inv erase` and `inv check` see it.
      heartbeat:
        flags['erase-controllers'] && !flags['leader-elect']
          ? { namespace: flags['leader-elect-namespace'], name: flags['leader-elect-id'] }
          : undefined,
      metricsBindAddress: flags['metrics-bind-address'],
      metricsSecure: flags['metrics-secure'] ? { certDir: flags['metrics-cert-path'] } : undefined,
      healthProbeBindAddress: flags['health-probe-bind-address'],
      workers: flags.workers,
      resyncPeriodMs,
      shutdownGracePeriodMs,
      erase: flags['erase-controllers']
        ? { namespace: flags['erase-namespace'], configNamespace: flags['erase-config-namespace'] }
        : undefined,
    });
    const stop = new AbortController();
    const onSignal = (sig: NodeJS.Signals) => {
      if (stop.signal.aborted) {
        logger.warn('second signal; exiting now', { signal: sig });
        process.exit(EXIT_PARTIAL_FAILURE);
      }
      logger.info('signal received', { signal: sig });
      stop.abort();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    logger.info('starting', {
      namespaces: namespaces.length ? namespaces : 'all',
      leaderElect: flags['leader-elect'],
      identity: daemon.manager.identity,
      workers: flags.workers,
    });
    let result;
    try {
      result = await daemon.run(stop.signal);
    } catch (e) {
      logger.error('daemon failed', { err: e });
      return exitWhenFlushed(EXIT_PARTIAL_FAILURE, { maxWaitMs: LOG_DRAIN_MS });
    }
    // Open keep-alive sockets and timers must not hold the process past the grace period; the
    // last log lines (a slow log collector's pipe) get a bounded wait.
    return exitWhenFlushed(result.clean ? 0 : EXIT_PARTIAL_FAILURE, { maxWaitMs: LOG_DRAIN_MS });
  }
}
