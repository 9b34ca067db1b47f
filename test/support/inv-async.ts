// The real `inv` binary as a subprocess that does not block the test's event loop: for suites
// whose controllers (or kubelet harness) run in the test process while the command waits on them.
// (test/cli/run-cli.ts is the synchronous form, for commands that need nothing from the test.)
import { execFile } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths.js';

export interface InvResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `inv ...args` with NO_COLOR; `code` is its exit code (-1 when it was killed). */
export function invAsync(args: string[], timeoutMs = 90_000): Promise<InvResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'bin', 'run.js'), ...args],
      { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' }, timeout: timeoutMs },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}
