// Shared fixtures for `inv watch` tests: an in-process daemon, a daemon as a child process
// (`node bin/run.js watch ...`), metric scraping, and polling helpers.
import * as k8s from '@kubernetes/client-node';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import type { KubeRest } from '../../src/core/kube/rest.js';
import { createLogger, type LogLevel } from '../../src/core/observability/logger.js';
import { createWatchDaemon, type WatchDaemon, type WatchDaemonOptions } from '../../src/core/watch/daemon.js';
import { template, type Env } from '../inventory/helpers.js';
import { repoRoot } from '../support/paths.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `cond` is truthy; returns the elapsed milliseconds. */
export async function until(
  what: string,
  cond: () => unknown | Promise<unknown>,
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<number> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      if (await cond()) return Date.now() - start;
    } catch (e) {
      last = e;
    }
    if (Date.now() - start > timeoutMs) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`,
      );
    }
    await sleep(everyMs);
  }
}

/** Rebuilds the daemon finished (both results), from its own metrics. */
export async function rebuildCount(d: InProcessDaemon): Promise<number> {
  return (await d.daemon.metrics.rebuilds.get()).values.reduce((n, v) => n + v.value, 0);
}

type LogRecord = Record<string, unknown>;

/** The daemon's structured log records from line `from` on. */
export function logRecords(d: InProcessDaemon, from = 0): LogRecord[] {
  return d.logs.slice(from).flatMap((l) => {
    try {
      return [JSON.parse(l) as LogRecord];
    } catch {
      return [];
    }
  });
}

/**
 * True once, after log line `mark`, an event matching `enqueued` was enqueued for `ns` and a
 * rebuild of `ns` that STARTED after it has finished: that rebuild saw the event, so whatever the
 * inventory says now is the daemon's answer to it (no sleep-and-hope).
 */
export function rebuiltAfter(
  d: InProcessDaemon,
  ns: string,
  mark: number,
  enqueued: Partial<LogRecord>,
): boolean {
  const recs = logRecords(d, mark);
  const matches = (r: LogRecord, want: LogRecord) => Object.entries(want).every(([k, v]) => r[k] === v);
  const e = recs.findIndex((r) => matches(r, { msg: 'enqueue', namespace: ns, ...enqueued }));
  if (e < 0) return false;
  const s = recs.findIndex((r, i) => i > e && matches(r, { msg: 'rebuilding namespace', namespace: ns }));
  return s >= 0 && recs.some((r, i) => i > s && matches(r, { msg: 'namespace rebuilt', namespace: ns }));
}

/** Enqueues of `ns` logged after line `mark` (each names the event that caused it). */
export function enqueuesSince(d: InProcessDaemon, ns: string, mark: number): LogRecord[] {
  return logRecords(d, mark).filter((r) => r.msg === 'enqueue' && r.namespace === ns);
}

export interface InProcessDaemon {
  daemon: WatchDaemon;
  logs: string[];
  stop(): Promise<void>;
  done: Promise<unknown>;
}

/** Starts the daemon in this process (no leader election unless given), metrics on a free port. */
export async function startDaemon(
  kc: k8s.KubeConfig,
  opts: Partial<WatchDaemonOptions> & { logLevel?: LogLevel } = {},
): Promise<InProcessDaemon> {
  const logs: string[] = [];
  const logger = createLogger({
    level: opts.logLevel ?? 'debug',
    stream: { write: (l: string) => logs.push(l) },
  });
  const daemon = createWatchDaemon({
    kubeConfig: kc,
    logger,
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '127.0.0.1:0',
    shutdownGracePeriodMs: 10_000,
    defaultMetrics: false,
    ...opts,
  });
  const ctl = new AbortController();
  const done = daemon.run(ctl.signal);
  await until('daemon caches synced', () => daemon.cache.hasSynced() && daemon.manager.metricsUrl, 20_000);
  return {
    daemon,
    logs,
    done,
    async stop() {
      ctl.abort();
      await done;
    },
  };
}

export interface ChildDaemon {
  proc: ChildProcess;
  lines: string[];
  metricsUrl: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Resolves with the first JSON log line matching `pred`. */
  waitForLog(
    what: string,
    pred: (rec: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  records(): Record<string, unknown>[];
}

/** Runs `inv watch` as a child process with JSON logs at debug level and free ports. */
export function spawnDaemon(args: string[], env: NodeJS.ProcessEnv = {}): ChildDaemon {
  const proc = spawn(
    process.execPath,
    [
      path.join(repoRoot, 'bin', 'run.js'),
      'watch',
      '--log-format',
      'json',
      '--log-level',
      'debug',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
      ...args,
    ],
    { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  let buf = '';
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (c: string) => {
    buf += c;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  proc.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const records = () =>
    lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  const waitForLog = async (
    what: string,
    pred: (rec: Record<string, unknown>) => boolean,
    timeoutMs = 20_000,
  ) => {
    let found: Record<string, unknown> | undefined;
    let gone = false;
    void exited.then(() => (gone = true));
    await until(
      what,
      () => {
        found = records().find(pred);
        if (!found && gone) throw new Error(`daemon exited; log:\n${lines.slice(-30).join('\n')}`);
        return found;
      },
      timeoutMs,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n--- daemon log tail ---\n${lines.slice(-20).join('\n')}`);
    });
    return found!;
  };
  const metricsUrl = waitForLog('metrics server', (r) => r.msg === 'serving metrics').then((r) =>
    String(r.url),
  );
  return { proc, lines, metricsUrl, exited, waitForLog, records };
}

/** Kills a child daemon (if still running) and waits for it to exit. */
export async function killDaemon(d: ChildDaemon, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (d.proc.exitCode === null && d.proc.signalCode === null) d.proc.kill(signal);
  await d.exited;
}

export async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  return res.text();
}

/** The value of one sample, e.g. metric(text, 'inv_rebuilds_total', {result: 'success'}). */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

export async function rebuildsOf(url: string): Promise<number> {
  const t = await scrape(url);
  return (
    (metric(t, 'inv_rebuilds_total', { result: 'success' }) ?? 0) +
    (metric(t, 'inv_rebuilds_total', { result: 'error' }) ?? 0)
  );
}

export async function images(rest: KubeRest, ns: string): Promise<ImageResource[]> {
  return (await rest.list<ImageResource>(imagesPath(ns))).items;
}

/** The namespace's Images as image -> kinds. */
export async function inventory(rest: KubeRest, ns: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const i of await images(rest, ns)) out[i.spec?.image ?? `?${i.metadata.name}`] = i.status?.kinds ?? '';
  return out;
}

export const sameInventory = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

export function adminKubeconfigPath(): string {
  return process.env.INV_TEST_KUBECONFIG!;
}

export const leaderFlags = (ns: string, lease: string) => [
  '--leader-elect',
  '--leader-elect-namespace',
  ns,
  '--leader-elect-id',
  lease,
  '--leader-elect-lease-duration',
  '2s',
  '--leader-elect-renew-deadline',
  '1500ms',
  '--leader-elect-retry-period',
  '300ms',
];

export const deployment = (name: string, imgs: string[]): k8s.V1Deployment => ({
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: template(name, imgs) },
});

/** `count` Deployments named `<prefix>-<i>` of `per` distinct images each; returns the expected inventory. */
export async function manyImages(
  env: Env,
  ns: string,
  prefix: string,
  count: number,
  per: number,
): Promise<Record<string, string>> {
  const want: Record<string, string> = {};
  await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const imgs = Array.from({ length: per }, (_, j) => `${prefix}-${i}-${j}:1`);
      for (const im of imgs) want[`docker.io/library/${im}`] = 'Deployment';
      return env.apps.createNamespacedDeployment({ namespace: ns, body: deployment(`${prefix}-${i}`, imgs) });
    }),
  );
  return want;
}
