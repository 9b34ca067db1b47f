// The docs cannot point at nothing: every relative link in README.md, ARCHITECTURE.md, docs/,
// bench/ and the rooms' READMEs in src/ resolves to a file or folder, and every repository path ARCHITECTURE.md names
// (src/..., test/..., scripts/... with an extension) exists, so its map follows the rooms.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

function markdownFiles(): string[] {
  const out = ['README.md', 'ARCHITECTURE.md'];
  const walk = (dir: string) => {
    if (!fs.existsSync(path.join(repoRoot, dir))) return;
    for (const e of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  walk('bench');
  walk('src');
  return out;
}

describe('docs: links and paths resolve', () => {
  it('every relative link in the markdown files resolves', () => {
    const broken: string[] = [];
    for (const md of markdownFiles()) {
      // Code blocks are examples, not links.
      const text = fs.readFileSync(path.join(repoRoot, md), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        const file = target.split('#')[0]!;
        if (file && !fs.existsSync(path.resolve(repoRoot, path.dirname(md), file)))
          broken.push(`${md}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('every repository path ARCHITECTURE.md names exists', () => {
    const text = fs.readFileSync(path.join(repoRoot, 'ARCHITECTURE.md'), 'utf8');
    const missing = new Set<string>();
    const re =
      /(?<![\w/.-])((?:src|test|scripts|deploy|docs|charts|bench)\/[\w./-]+\.(?:json|yaml|mjs|cjs|ts|js|md))(?![\w])/g;
    for (const m of text.matchAll(re)) if (!fs.existsSync(path.join(repoRoot, m[1]!))) missing.add(m[1]!);
    assert.deepEqual([...missing], []);
  });

  it('every file ARCHITECTURE.md names by its room-relative path is in the repository', () => {
    // `imagejob/plan.ts`, `render.ts`: a suffix of some tracked path (a stale `worker.ts` was not).
    const text = fs.readFileSync(path.join(repoRoot, 'ARCHITECTURE.md'), 'utf8');
    const all: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
        const rel = path.posix.join(dir, e.name);
        if (e.isDirectory()) walk(rel);
        else all.push(rel);
      }
    };
    for (const top of ['src', 'test', 'bench', 'scripts']) walk(top);
    const missing = new Set<string>();
    for (const m of text.matchAll(/(?<![\w.-])([\w./-]+\.(?:ts|mjs))(?![\w])/g)) {
      const t = m[1]!;
      if (!all.some((p) => p === t || p.endsWith(`/${t}`))) missing.add(t);
    }
    assert.deepEqual([...missing], []);
  });
});
