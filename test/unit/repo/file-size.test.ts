// No code file over 400 lines, anywhere in the repository: the source (whose rooms the
// import-graph test keeps small), and the tests, scripts and benchmarks beside it, which grew
// past it unnoticed while only src/ was checked. A file that long holds more than one concept;
// split it by topic, with shared fixtures in a helper module rather than copied.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

const MAX_LINES = 400;
const CODE = /\.(ts|mts|cts|js|mjs|cjs|go|py|sh)$/;
/** Built, installed or cached: not written here. */
const SKIP = new Set(['node_modules', 'dist', '.cache', '.git', 'coverage']);

function codeFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) codeFiles(p, out);
    else if (e.isFile() && CODE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

describe('file size', () => {
  it(`keeps every code file at ${MAX_LINES} lines or fewer`, () => {
    const files = codeFiles(repoRoot);
    assert.ok(
      files.some((f) => f.endsWith(path.join('scripts', 'nodes.mjs'))),
      'the walk sees scripts/',
    );
    const long = files
      .map((f) => ({ f: path.relative(repoRoot, f), n: fs.readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter(({ n }) => n > MAX_LINES)
      .map(({ f, n }) => `${f}: ${n} lines`);
    assert.deepEqual(long, []);
  });
});
