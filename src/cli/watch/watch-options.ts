// `inv watch` in kubectl's Options shape: the flags as parsed are completed into WatchOptions
// and validated together, so every bad flag is named in one error (it stopped at the first
// before); the command then only runs what the options say. PURE: flags in, options or the
// list of problems out.
import { validateNamespaceName } from '../../core/kube/names.js';
import { bindAddressDisabled, parseBindAddress } from '../../core/observability/http-server.js';
import { parseDurationMs } from '../../core/duration.js';
import { attempt } from '../flag-problems.js';
import type { FlagValues } from '../flag-values.js';
import type { watchFlags } from './watch-flags.js';

/** The flags `inv watch`'s options read, as oclif parses them (./watch-flags.ts). */
export type WatchFlags = Pick<
  FlagValues<typeof watchFlags>,
  | 'namespaces'
  | 'metrics-bind-address'
  | 'health-probe-bind-address'
  | 'leader-elect'
  | 'leader-elect-namespace'
  | 'leader-elect-lease-duration'
  | 'leader-elect-renew-deadline'
  | 'leader-elect-retry-period'
  | 'erase-controllers'
  | 'erase-namespace'
  | 'erase-config-namespace'
  | 'resync-period'
  | 'shutdown-grace-period'
  | 'kube-api-qps'
>;

export interface WatchOptions {
  namespaces: string[];
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resyncPeriodMs: number;
  shutdownGracePeriodMs: number;
  /** Writes per second; 0: no limit. */
  qps: number;
}

/** The options, or every problem with the flags (each naming its flag). */
export function completeWatchOptions(
  flags: WatchFlags,
): { options: WatchOptions; problems: [] } | { problems: string[] } {
  const problems: string[] = [];
  const duration = (flag: keyof WatchFlags): number =>
    attempt(problems, () => parseDurationMs(String(flags[flag]), `--${flag}`)) ?? NaN;
  const namespaces = (flags.namespaces ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const ns of namespaces) {
    const problem = validateNamespaceName(ns);
    if (problem) problems.push(`--namespaces: invalid namespace "${ns}": ${problem}`);
  }
  for (const flag of ['metrics-bind-address', 'health-probe-bind-address'] as const) {
    const v = flags[flag];
    if (bindAddressDisabled(v)) continue;
    try {
      parseBindAddress(v);
    } catch (e) {
      problems.push(`--${flag}: ${(e as Error).message}`);
    }
  }
  const leaseDurationMs = duration('leader-elect-lease-duration');
  const renewDeadlineMs = duration('leader-elect-renew-deadline');
  const retryPeriodMs = duration('leader-elect-retry-period');
  const resyncPeriodMs = duration('resync-period');
  const shutdownGracePeriodMs = duration('shutdown-grace-period');
  const qps = Number(flags['kube-api-qps']);
  if (flags['kube-api-qps'].trim() === '' || !Number.isFinite(qps) || qps < 0)
    problems.push(
      `--kube-api-qps: must be a number of writes per second (0: no limit), got ${JSON.stringify(flags['kube-api-qps'])}`,
    );
  if (flags['erase-controllers']) {
    for (const f of ['erase-namespace', 'erase-config-namespace'] as const) {
      const problem = validateNamespaceName(flags[f]);
      if (problem) problems.push(`--${f} "${flags[f]}": ${problem}`);
    }
  }
  if (flags['leader-elect'] || flags['erase-controllers']) {
    const problem = validateNamespaceName(flags['leader-elect-namespace']);
    if (problem) problems.push(`--leader-elect-namespace: ${problem}`);
  }
  const timings = [leaseDurationMs, renewDeadlineMs, retryPeriodMs];
  if (flags['leader-elect'] && timings.every(Number.isFinite)) {
    if (leaseDurationMs % 1000 !== 0 || leaseDurationMs < 1000)
      problems.push('--leader-elect-lease-duration must be a whole number of seconds');
    if (!(leaseDurationMs > renewDeadlineMs && renewDeadlineMs > 1.2 * retryPeriodMs))
      problems.push('leader election needs lease-duration > renew-deadline > 1.2 × retry-period');
  }
  if (problems.length) return { problems };
  return {
    options: {
      namespaces,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      resyncPeriodMs,
      shutdownGracePeriodMs,
      qps,
    },
    problems: [],
  };
}
