// Runs a command as a child and measures it the way `/usr/bin/time -v` does: wall time, and the
// peak RSS the kernel reports for it (wait4's ru_maxrss, which covers the command's own waited-for
// children too). Node's child_process does not expose a child's rusage, so a few lines of python3
// (already a test dependency: test/support/pty-run.py) fork, exec and wait4. The command's stdout
// is counted, not kept: a 10,000-namespace JSON document would only cost the bench memory.
import { spawn } from 'node:child_process';

export interface Measured {
  /** Exit code of the command (-1 when killed by a signal). */
  code: number;
  wallMs: number;
  peakRssMB: number;
  stdoutBytes: number;
  /** The last 4 KiB of stderr, for error messages. */
  stderrTail: string;
}

const WAIT4 = `
import os, sys, time
t = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
os.write(3, ("%d %d %d\\n" % (code, round((time.monotonic() - t) * 1000), ru.ru_maxrss)).encode())
`;

export function measure(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<Measured> {
  const p = spawn('python3', ['-c', WAIT4, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stdoutBytes = 0;
  let stderrTail = '';
  let report = '';
  p.stdout!.on('data', (b: Buffer) => (stdoutBytes += b.length));
  p.stderr!.on('data', (b: Buffer) => (stderrTail = (stderrTail + b.toString('utf8')).slice(-4096)));
  (p.stdio[3] as NodeJS.ReadableStream).on('data', (b: Buffer) => (report += b.toString('utf8')));
  return new Promise((resolve, reject) => {
    p.on('error', reject);
    p.on('close', () => {
      const m = /^(-?\d+) (\d+) (\d+)$/m.exec(report);
      if (!m) return reject(new Error(`no rusage for ${argv[0]}: ${stderrTail}`));
      resolve({
        code: Number(m[1]),
        wallMs: Number(m[2]),
        peakRssMB: Math.round(Number(m[3]) / 1024),
        stdoutBytes,
        stderrTail,
      });
    });
  });
}
