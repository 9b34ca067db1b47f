// `inv watch` as a child process of a bench: started from bin/run.js with JSON logs, resolved once
// it serves metrics (whose URL it logs, as it binds port 0). Its logs are drained for as long as
// it runs, so a full pipe never stalls it; a bench that wants one namespace's rebuild timings
// sets `watchNamespace`.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface Daemon {
  proc: ChildProcess;
  metricsUrl: string;
  exited: Promise<void>;
  /** The daemon's log lines about `watchNamespace`'s rebuilds, once it is set. */
  rebuilt: { delayMs?: number; ms: number }[];
  watchNamespace?: string;
}

/**
 * Starts `inv watch --kubeconfig kubeconfig ...args`. `nodeOptions` replaces NODE_OPTIONS (a
 * bench runs the daemon with deploy/'s V8 settings that way; see _proc.ts); `root` runs another
 * built checkout's daemon (a side-by-side baseline); `bundle` runs its bundle (INV_BUNDLE=1), as
 * the image does.
 */
export function startWatchDaemon(
  kubeconfig: string,
  args: readonly string[],
  opts: { nodeOptions?: string; root?: string; bundle?: boolean } = {},
): Promise<Daemon> {
  const env = {
    ...process.env,
    ...(opts.nodeOptions === undefined ? {} : { NODE_OPTIONS: opts.nodeOptions }),
    ...(opts.bundle ? { INV_BUNDLE: '1' } : {}),
  };
  const proc = spawn(
    process.execPath,
    [
      path.join(opts.root ?? repoRoot, 'bin', 'run.js'),
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '0',
      '--log-format',
      'json',
      '--log-level',
      'info',
      ...args,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env },
  );
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  proc.stderr!.setEncoding('utf8');
  let buf = '';
  let line = '';
  const d: Daemon = { proc, metricsUrl: '', exited, rebuilt: [] };
  return new Promise<Daemon>((resolve, reject) => {
    proc.stderr!.on('data', (c: string) => {
      buf += c;
      line += c;
      const lines = line.split('\n');
      line = lines.pop()!;
      for (const l of lines) {
        if (!d.watchNamespace || !l.includes('"namespace rebuilt"')) continue;
        if (!l.includes(`"namespace":"${d.watchNamespace}"`)) continue;
        const o = JSON.parse(l) as { delayMs?: number; ms: number };
        d.rebuilt.push({ delayMs: o.delayMs, ms: o.ms });
      }
      const m = !d.metricsUrl && /"msg":"serving metrics"[^\n]*"url":"([^"]+)"/.exec(buf);
      if (m) {
        d.metricsUrl = m[1]!;
        resolve(d);
      }
      if (buf.length > 100_000) buf = buf.slice(-10_000);
    });
    void exited.then(() => reject(new Error(`daemon exited: ${buf.slice(-2000)}`)));
  });
}

/** The daemon's Prometheus text. */
export const daemonMetrics = async (d: Daemon): Promise<string> =>
  (await fetch(`${d.metricsUrl}/metrics`)).text();
