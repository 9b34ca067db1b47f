// The blocks of a page that a test runs as written: a fenced block right under an HTML comment
// `<!-- as-written: NAME -->` (or `<!-- as-written: not run (why) -->` for one it must not run),
// and bash to run one with the variables a test sets, word for word. A section that promises
// this has every block marked, so a block added without the test following is an error too.
import { spawn } from 'node:child_process';
import { codeBlocks, docsPages, where, type CodeBlock } from './docs-pages.js';

export interface MarkedBlock extends CodeBlock {
  /** The marker's name: `push`, `install`, ...; `not run` for a block the test does not run. */
  name: string;
}

const MARKER = /^<!-- as-written: (.+?) -->$/;

/**
 * The blocks of `file` under `## heading` (up to the next heading), each with its marker; throws
 * naming any block of the section that has none.
 */
export function asWrittenBlocks(file: string, heading: string): MarkedBlock[] {
  const page = docsPages().find((p) => p.file === file);
  if (!page) throw new Error(`${file} is not a page of the docs`);
  const lines = page.text.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`${file} has no section "## ${heading}"`);
  // Up to the next heading (its subsections are other material), outside fenced blocks, where
  // `# ...` is a comment.
  let fenced = false;
  const next = lines.findIndex((l, i) => {
    if (/^\s*```/.test(l)) fenced = !fenced;
    return i > start && !fenced && /^#{1,3} /.test(l);
  });
  const end = next < 0 ? lines.length : next;
  const out: MarkedBlock[] = [];
  for (const b of codeBlocks(page)) {
    if (b.line <= start + 1 || b.line > end) continue;
    // The marker is the last non-blank line above the fence.
    let i = b.line - 2;
    while (i > start && lines[i]!.trim() === '') i--;
    const m = MARKER.exec(lines[i]!.trim());
    if (!m)
      throw new Error(`${where(b)}: a block of "${heading}" without an <!-- as-written: ... --> marker`);
    const name = m[1]!.startsWith('not run') ? 'not run' : m[1]!.split(' ')[0]!;
    out.push({ ...b, name });
  }
  return out;
}

/** The variables a block assigns at the start of its lines (`A=1 B=2  # ...`). */
export function assignedNames(body: string): string[] {
  const names: string[] = [];
  for (const line of body.split('\n'))
    for (const m of line.replace(/#.*$/, '').matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=/g)) names.push(m[1]!);
  return names;
}

export interface BashRun {
  code: number;
  output: string;
}

/**
 * Runs `body` with `bash -euo pipefail` (a failing command fails the block, as a reader would
 * notice), with `env` over the test's environment and `cwd`; stdout and stderr interleaved as a
 * reader sees them. `timeoutMs` kills the whole process group.
 */
export function runBash(body: string, opts: { env: Record<string, string>; cwd: string; timeoutMs: number }) {
  return new Promise<BashRun>((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', body], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n(killed after ${opts.timeoutMs} ms)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}
