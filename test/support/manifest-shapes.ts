// The manifest shapes that cost `inv scan -f` the most per byte (millions of empty or tiny
// documents, a JSON array or List of `{}`, one YAML sequence or List of `{}`, deep nesting), and
// a runner that streams one of them into the CLI's stdin at a given size and reads the child's
// own peak RSS (VmHWM) as it exits. Shared by test/cli/scan-file-bounds.test.ts (at a small
// limit) and bench/scan-file-limit.ts (at the default 256 MiB).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.js';

export interface Shape {
  head: string;
  /** Repeated to fill the size. */
  unit: string;
  tail: string;
  /** The exit code: 1 when nothing in it is a Kubernetes object. */
  status: number;
  /** Its objects are kept (they reference images), so memory may grow with them. */
  kept?: boolean;
}

const shape = (head: string, unit: string, tail: string, status: number, kept = false): Shape => ({
  head,
  unit,
  tail,
  status,
  kept,
});

export const WORST_SHAPES: Record<string, Shape> = {
  'empty YAML documents': shape('', '--- {}\n', '', 1),
  'null YAML documents': shape('', '---\n', '', 1),
  'tiny documents without a kind': shape('', '--- {a: 1}\n', '', 1),
  'tiny ConfigMaps': shape('', '--- {apiVersion: v1, kind: ConfigMap}\n', '', 0),
  'a JSON array of {}': shape('[{}', ',{}', ']', 1),
  'a JSON List of {}': shape('{"apiVersion":"v1","kind":"List","items":[{}', ',{}', ']}', 1),
  'a YAML sequence of {}': shape('', '- {}\n', '', 1),
  'a kubectl-style YAML List of {}': shape('apiVersion: v1\nitems:\n', '- {}\n', 'kind: List\n', 1),
  'documents nested 99 deep': shape('', `--- ${'['.repeat(99)}${']'.repeat(99)}\n`, '', 1),
  'tiny Pods': shape(
    '',
    '--- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: a}]}}\n',
    '',
    0,
    true,
  ),
};

export interface ScanRun {
  status: number;
  rssMB: number;
  ms: number;
  stderr: string;
}

/**
 * Streams `shape` (at most `bytes`) into `inv scan -f - -o json --max-input-size <bytes>`, as
 * the pipe takes it (never the whole input in this process). `heapMB` caps the child's V8 heap:
 * with it, a shape whose cost grows with what is read or skipped ends in a heap out-of-memory.
 */
export function scanShape(s: Shape, bytes: number, opts: { heapMB?: number } = {}): Promise<ScanRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-shape-'));
  const preload = path.join(dir, 'maxrss.mjs');
  // VmHWM: the child's own peak (resourceUsage().maxRSS of a fork would count the parent).
  fs.writeFileSync(
    preload,
    "import { readFileSync } from 'node:fs';\nprocess.on('exit', () => process.stderr.write(`INV_MAXRSS ${/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]}\\n`));\n",
  );
  const t0 = Date.now();
  return new Promise<ScanRun>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(opts.heapMB ? [`--max-old-space-size=${opts.heapMB}`] : []),
        '--import',
        preload,
        path.join(repoRoot, 'bin', 'run.js'),
        'scan',
        '-f',
        '-',
        '-o',
        'json',
        '--max-input-size',
        `${bytes}`,
      ],
      { env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /INV_MAXRSS (\d+)/.exec(stderr);
      resolve({
        status: code ?? -1,
        rssMB: m ? Math.round(Number(m[1]) / 1024) : -1,
        ms: Date.now() - t0,
        stderr: stderr.replace(/INV_MAXRSS \d+\n/, ''),
      });
    });
    const per = Math.ceil(65_536 / s.unit.length);
    const block = s.unit.repeat(per);
    let left = Math.floor((bytes - s.head.length - s.tail.length) / s.unit.length);
    child.stdin.on('error', () => undefined);
    child.stdin.write(s.head);
    const pump = () => {
      while (left > 0) {
        const k = Math.min(per, left);
        left -= k;
        if (!child.stdin.write(k === per ? block : s.unit.repeat(k))) {
          child.stdin.once('drain', pump);
          return;
        }
      }
      child.stdin.end(s.tail);
    };
    pump();
  }).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}
