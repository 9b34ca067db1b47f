// Drives the real `inv` binary on a real pseudo-terminal (test/support/pty-run.py, python3's pty
// module), the way a person at a terminal does: a window of a given size, keystrokes such as ^C
// sent when the output shows a given text.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths.js';

export interface PtyStep {
  /** Regex matched against the output (ANSI codes removed) printed since the previous step. */
  wait: string;
  send: string;
}

export interface PtyResult {
  /** What the terminal showed, ANSI codes removed, \r\n as \n. */
  output: string;
  raw: string;
  exitCode: number | null;
  signal: number | null;
  stepsDone: number;
  /** Milliseconds from start at which each step's keys were sent. */
  sentAtMs: number[];
  exitedAtMs: number;
  timedOut: boolean;
}

export const CTRL_C = '\u0003';

export function runOnPty(
  args: string[],
  opts: {
    cols?: number;
    rows?: number;
    steps?: PtyStep[];
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    /** Another program than inv (a shell), with `args` ignored. */
    argv?: string[];
    cwd?: string;
  } = {},
): Promise<PtyResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', ...opts.env };
  // A COLUMNS inherited from the test's own terminal would override the pty's size.
  delete env.COLUMNS;
  // A person's terminal: CI=true (set by CI runners) turns colour off in chalk's detection.
  if (opts.env?.CI === undefined) delete env.CI;
  if (opts.env?.COLUMNS) env.COLUMNS = opts.env.COLUMNS;
  const spec = {
    argv: opts.argv ?? [process.execPath, path.join(repoRoot, 'bin', 'run.js'), ...args],
    env,
    cwd: opts.cwd ?? repoRoot,
    cols: opts.cols ?? 80,
    rows: opts.rows ?? 24,
    steps: opts.steps ?? [],
    timeoutMs: opts.timeoutMs ?? 60_000,
  };
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [path.join(repoRoot, 'test', 'support', 'pty-run.py')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      try {
        resolve(JSON.parse(out) as PtyResult);
      } catch {
        reject(new Error(`pty-run.py exited ${code}: ${out.slice(0, 500)}`));
      }
    });
    p.stdin.end(JSON.stringify(spec));
  });
}
