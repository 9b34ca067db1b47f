// Runs the Trivy binary once, with a deadline (SIGKILL at it) and bounded output: stdout (the
// JSON report) up to a limit, stderr's last few KiB for the log. Never throws for Trivy's own
// failures: the caller decides (the image then counts as failed to scan).
import { spawn } from 'node:child_process';

/** A JSON report larger than this is refused (a busy image's report is a few MiB). */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024;
const STDERR_TAIL = 4096;

export interface TrivyRun {
  code: number | null;
  stdout: string;
  stderrTail: string;
  timedOut: boolean;
  overflow: boolean;
  /** Set when the binary could not be started at all. */
  spawnError?: string;
}

export type RunTrivy = (args: string[], env: Record<string, string>, timeoutMs: number) => Promise<TrivyRun>;

const running = new Set<ReturnType<typeof spawn>>();

/** Kills every Trivy still running (on SIGTERM). */
export function killAllTrivy(): void {
  for (const c of running) c.kill('SIGKILL');
}

export function trivyRunner(binary: string, maxReport = MAX_REPORT_BYTES): RunTrivy {
  return (args, env, timeoutMs) =>
    new Promise((resolve) => {
      const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = Buffer.alloc(0);
      let timedOut = false;
      let overflow = false;
      let spawnError: string | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.stdout.on('data', (b: Buffer) => {
        if (overflow) return;
        outBytes += b.length;
        if (outBytes > maxReport) {
          overflow = true;
          out.length = 0;
          child.kill('SIGKILL');
          return;
        }
        out.push(b);
      });
      child.stderr.on('data', (b: Buffer) => {
        err = Buffer.concat([err, b]);
        if (err.length > STDERR_TAIL) err = err.subarray(err.length - STDERR_TAIL);
      });
      let done = false;
      const finish = (code: number | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        running.delete(child);
        resolve({
          code,
          stdout: Buffer.concat(out).toString('utf8'),
          stderrTail: err.toString('utf8'),
          timedOut,
          overflow,
          ...(spawnError ? { spawnError } : {}),
        });
      };
      child.on('error', (e) => {
        spawnError = e.message;
        if (child.pid === undefined) finish(null);
      });
      child.on('close', (code) => finish(code));
    });
}
