// Runs `inv node-remove` as a real subprocess (node bin/run.js), as the erase Pod would.
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  /** Parsed stdout when -o json was used. */
  json?: {
    node: string;
    runtime: { name: string; version: string; apiVersion: string };
    results: {
      target: string;
      imageId: string;
      aliases: string[];
      outcome: string;
      error: string;
      reason: string;
    }[];
    warnings: string[];
  };
}

export function runNodeRemove(
  endpoint: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'bin', 'run.js'), 'node-remove', '--runtime-endpoint', endpoint, ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, NO_COLOR: '1', NODE_NAME: 'test-node', ...env },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        const run: CliRun = { code, stdout, stderr, ms: Date.now() - started };
        if (args.includes('json')) {
          try {
            run.json = JSON.parse(stdout);
          } catch {
            // left undefined; the test's assertions will show stdout
          }
        }
        resolve(run);
      },
    );
  });
}

/** outcome per target (first row of each target), for compact assertions. */
export const outcomes = (r: CliRun): Record<string, string> =>
  Object.fromEntries((r.json?.results ?? []).map((x) => [x.target, x.outcome]));

/** `ctr` against a private containerd, in the CRI namespace (tag and untag image names). */
export function ctr(address: string, args: string[], bin = 'ctr'): string {
  const r = spawnSync(bin, ['--address', address, '-n', 'k8s.io', '--timeout', '10s', ...args], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (r.status !== 0) throw new Error(`ctr ${args.join(' ')} failed: ${r.stderr || r.error?.message}`);
  return r.stdout;
}
