// What the benches read of a process of their own: its memory from /proc, and the V8 settings
// the daemon is deployed with, so a bench runs it as a cluster would.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Current and peak resident memory of `pid`, in MB (0 and 0 once the process is gone). */
export function hwm(pid: number): { rss: number; hwm: number } {
  let s: string;
  try {
    s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return { rss: 0, hwm: 0 };
  }
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), hwm: Math.round(kb('VmHWM') / 1024) };
}

/** NODE_OPTIONS of deploy/deployment.yaml's daemon (its heap cap), or '' when it sets none. */
export function deployedNodeOptions(): string {
  const text = fs.readFileSync(path.join(repoRoot, 'deploy', 'deployment.yaml'), 'utf8');
  return /name: NODE_OPTIONS\s+value: (.+)/.exec(text)?.[1]?.trim() ?? '';
}
