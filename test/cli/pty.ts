// Runs the real `inv` binary on a real pseudo-terminal of a given width, through util-linux's
// `script`, so what a person sees (isTTY, the terminal's columns) is what is tested.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function command(args: string[], columns: number): string {
  const inv = [process.execPath, path.join(repoRoot, 'bin', 'run.js'), ...args].map(quote).join(' ');
  return `stty cols ${columns} rows 50 2>/dev/null; exec ${inv}`;
}

/** Everything the terminal showed (stdout and stderr together, CR LF line ends made LF). */
export function runOnPty(
  args: string[],
  opts: { columns: number; env?: NodeJS.ProcessEnv },
): { status: number; output: string } {
  const r = spawnSync('script', ['-qfec', command(args, opts.columns), '/dev/null'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '', ...opts.env },
    timeout: 60_000,
  });
  return { status: r.status ?? -1, output: r.stdout.replace(/\r\n/g, '\n') };
}

/** Starts a long-running command on a pty; resolves with the output once `done` matches it. */
export function watchOnPty(
  args: string[],
  opts: { columns: number; env?: NodeJS.ProcessEnv; done: RegExp; timeoutMs?: number },
): Promise<string> {
  const child = spawn('script', ['-qfec', command(args, opts.columns), '/dev/null'], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '', ...opts.env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise<string>((resolve, reject) => {
    const stop = (f: () => void) => {
      clearTimeout(timer);
      // Only the group this test started: script and the inv it runs.
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      f();
    };
    const timer = setTimeout(
      () => stop(() => reject(new Error(`no match for ${opts.done} within the deadline; output:\n${out}`))),
      opts.timeoutMs ?? 30_000,
    );
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString('utf8').replace(/\r\n/g, '\n');
      if (opts.done.test(out)) stop(() => resolve(out));
    });
    child.on('exit', () => stop(() => resolve(out)));
  });
}
