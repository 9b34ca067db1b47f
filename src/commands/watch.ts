import { Command, Flags } from '@oclif/core';
import { EXIT_PARTIAL_FAILURE, EXIT_USAGE } from '../cli/process/exit-codes.js';
import { exitWhenFlushed } from '../cli/process/exit.js';
import { failLine } from '../cli/process/fail.js';
import { kubeFlags, restOptions } from '../cli/flags.js';
import { setResponseBudget } from '../core/kube/rest.js';
import { DEFAULT_KUBE_API_BURST, DEFAULT_KUBE_API_QPS, TokenBucket } from '../core/kube/rate-limit.js';
import { loadKubeConfig } from '../core/kube/config.js';
import { validateNamespaceName } from '../core/kube/names.js';
import { bindAddressDisabled, parseBindAddress } from '../core/observability/http-server.js';
import {
  createLogger,
  LOG_FORMATS,
  LOG_LEVELS,
  parseLogFormat,
  parseLogLevel,
} from '../core/observability/logger.js';
import { createWatchDaemon } from '../core/watch/daemon.js';
import { parseDurationMs } from '../core/duration.js';
import { kindsPhrase } from '../core/inventory/source-kinds.js';
import { readSourceKindsFile, sourceKindsFlag } from '../cli/source-kinds-flag.js';
import { discoverDeclaredKinds } from '../core/watch/declared-kinds.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { paragraphs } from '../cli/help-text.js';
import {
  DEFAULT_CONFIG_NAMESPACE,
  DEFAULT_NAMESPACE as ERASE_DEFAULT_NAMESPACE,
} from '../core/erase/api/types.js';

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

  static override flags = {
    ...sourceKindsFlag,
    namespaces: Flags.string({
      description: 'Comma-separated namespaces to watch and reconcile (default: all namespaces).',
    }),
    'leader-elect': Flags.boolean({
      description: 'Use a Lease so that only one replica reconciles.',
      default: false,
    }),
    'leader-elect-namespace': Flags.string({
      description:
        'Namespace of the leader-election Lease (and of the heartbeat Lease without --leader-elect).',
      default: 'image-inventory-system',
    }),
    'leader-elect-id': Flags.string({
      aliases: ['lease-name'],
      description: 'Name of the leader-election Lease.',
      default: 'image-inventory-controller',
    }),
    'leader-elect-lease-duration': Flags.string({
      description: 'How long a Lease stays valid without renewal (whole seconds).',
      default: '15s',
      helpGroup: 'LEADER ELECTION TUNING',
    }),
    'leader-elect-renew-deadline': Flags.string({
      description: 'How long the leader retries renewing before it gives up leading.',
      default: '10s',
      helpGroup: 'LEADER ELECTION TUNING',
    }),
    'leader-elect-retry-period': Flags.string({
      description: 'Interval between acquire attempts and renewals.',
      default: '2s',
      helpGroup: 'LEADER ELECTION TUNING',
    }),
    'metrics-bind-address': Flags.string({
      description: 'host:port for /metrics ("0" disables).',
      default: '127.0.0.1:8080',
    }),
    'metrics-secure': Flags.boolean({
      description:
        'Serve /metrics over HTTPS, only to callers allowed `get` on the non-resource URL /metrics (TokenReview + SubjectAccessReview; bind the ClusterRole inv-metrics-reader).',
      default: false,
      allowNo: true,
    }),
    'metrics-cert-path': Flags.string({
      description:
        'With --metrics-secure: folder with tls.crt and tls.key (a mounted Secret), reloaded when they change (default: a self-signed certificate made at start).',
      dependsOn: ['metrics-secure'],
    }),
    'health-probe-bind-address': Flags.string({
      description: 'host:port for /healthz and /readyz ("0" disables; ":8081" listens on all interfaces).',
      default: ':8081',
    }),
    'log-format': Flags.string({
      description:
        'Log format (default: text when stderr is a terminal, json otherwise, as in a Pod or piped to a collector).',
      options: [...LOG_FORMATS],
    }),
    'log-level': Flags.string({
      description: 'Minimum log level.',
      options: [...LOG_LEVELS],
      default: 'info',
    }),
    'erase-controllers': Flags.boolean({
      description: 'Also run the erase ImageList/ImageJob controllers (see `inv erase`).',
      default: true,
      allowNo: true,
      helpGroup: 'ERASE',
    }),
    'erase-namespace': Flags.string({
      description: 'Namespace for erase worker Pods, their ConfigMaps and PodTemplates.',
      default: ERASE_DEFAULT_NAMESPACE,
      helpGroup: 'ERASE',
    }),
    'erase-config-namespace': Flags.string({
      description:
        'Namespace of the erase configuration (ConfigMap inv-erase-config) and exclusion lists: keep it one where only administrators may write ConfigMaps.',
      default: DEFAULT_CONFIG_NAMESPACE,
      helpGroup: 'ERASE',
    }),
    workers: Flags.integer({
      description:
        'Namespaces rebuilt concurrently (a rebuild mostly waits for the API server; writes are paced by --kube-api-qps either way).',
      default: 16,
      min: 1,
      max: 64,
    }),
    'resync-period': Flags.string({
      description: 'Rebuild every namespace this often even without events ("0" disables).',
      default: '1h',
    }),
    'shutdown-grace-period': Flags.string({
      description: 'Maximum time to drain in-flight work and release the Lease on SIGTERM.',
      default: '25s',
    }),
    'kube-api-qps': Flags.string({
      description:
        'Writes per second to the API server (Image updates, Events, erase workers and status), as client-go paces them; "0" turns the limit off.',
      default: String(DEFAULT_KUBE_API_QPS),
    }),
    'kube-api-burst': Flags.integer({
      description: 'Writes that may go at once above --kube-api-qps after a quiet period.',
      default: DEFAULT_KUBE_API_BURST,
      min: 1,
    }),
    ...kubeFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Watch);
    const usage = (msg: string): never => this.error(msg, { exit: EXIT_USAGE });
    const duration = (flag: string, v: string): number => {
      try {
        return parseDurationMs(v, `--${flag}`);
      } catch (e) {
        return usage((e as Error).message);
      }
    };
    const namespaces = (flags.namespaces ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const ns of namespaces) {
      const problem = validateNamespaceName(ns);
      if (problem) usage(`--namespaces: invalid namespace "${ns}": ${problem}`);
    }
    for (const flag of ['metrics-bind-address', 'health-probe-bind-address'] as const) {
      const v = flags[flag];
      if (bindAddressDisabled(v)) continue;
      try {
        parseBindAddress(v);
      } catch (e) {
        usage(`--${flag}: ${(e as Error).message}`);
      }
    }
    const leaseDurationMs = duration('leader-elect-lease-duration', flags['leader-elect-lease-duration']);
    const renewDeadlineMs = duration('leader-elect-renew-deadline', flags['leader-elect-renew-deadline']);
    const retryPeriodMs = duration('leader-elect-retry-period', flags['leader-elect-retry-period']);
    const resyncPeriodMs = duration('resync-period', flags['resync-period']);
    const shutdownGracePeriodMs = duration('shutdown-grace-period', flags['shutdown-grace-period']);
    const qps = Number(flags['kube-api-qps']);
    if (flags['kube-api-qps'].trim() === '' || !Number.isFinite(qps) || qps < 0)
      usage(
        `--kube-api-qps: must be a number of writes per second (0: no limit), got ${JSON.stringify(flags['kube-api-qps'])}`,
      );
    if (flags['erase-controllers']) {
      for (const f of ['erase-namespace', 'erase-config-namespace'] as const) {
        const problem = validateNamespaceName(flags[f]);
        if (problem) usage(`--${f} "${flags[f]}": ${problem}`);
      }
    }
    if (flags['leader-elect'] || flags['erase-controllers']) {
      const problem = validateNamespaceName(flags['leader-elect-namespace']);
      if (problem) usage(`--leader-elect-namespace: ${problem}`);
    }
    if (flags['leader-elect']) {
      if (leaseDurationMs % 1000 !== 0 || leaseDurationMs < 1000)
        usage('--leader-elect-lease-duration must be a whole number of seconds');
      if (!(leaseDurationMs > renewDeadlineMs && renewDeadlineMs > 1.2 * retryPeriodMs))
        usage('leader election needs lease-duration > renew-deadline > 1.2 × retry-period');
    }
    const logger = createLogger({
      // People running it by hand read text; a Pod's log collector (no TTY) gets JSON lines.
      format: parseLogFormat(flags['log-format'] ?? (process.stderr.isTTY ? 'text' : 'json')),
      level: parseLogLevel(flags['log-level']),
      fields: { component: 'inv-watch' },
    });
    let kubeConfig: KubeConfig;
    let rest;
    try {
      kubeConfig = loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context });
      // Response caps for a daemon: see DAEMON_RESPONSE_BUDGET.
      rest = {
        ...restOptions(flags),
        maxResponseBytes: DAEMON_MAX_RESPONSE_BYTES,
        // One bucket for the whole daemon: the inventory, its Events, the erase controllers.
        ...(qps > 0 ? { writeLimiter: new TokenBucket({ qps, burst: flags['kube-api-burst'] }) } : {}),
      };
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
