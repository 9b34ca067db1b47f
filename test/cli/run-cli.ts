// Runs the real `inv` binary as a subprocess, the way users and scripts do.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
    cwd: repoRoot,
    input: opts.input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    timeout: 60_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
