// `inv` as a real subprocess for the erase CLI tests, without blocking the test's event loop (the
// controllers and the kubelet harness run in the test process while the command waits on them),
// and the flags that point a command at an EraseEnv's API server and namespaces.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { kubeconfigPath } from '../../support/kube.js';
import { repoRoot } from '../../support/paths.js';
import type { EraseEnv } from '../helpers.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `inv ...args` with NO_COLOR (killed after 100 s); `ms` is how long it took. */
export function inv(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), 100_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** --kubeconfig, and the env's namespace as both the workers' and the configuration namespace. */
export const envFlags = (env: EraseEnv): string[] => [
  '--kubeconfig',
  kubeconfigPath(),
  '--workers-namespace',
  env.namespace,
  '--config-namespace',
  env.namespace,
];
