// Every REST path is built in src/core/kube/ (resources.ts, from the kind table of kinds.ts): a
// path written by hand elsewhere can guess a plural wrong, forget a namespace's encoding, or
// drift from the table, and nothing would say so until the API server answers 404. Server-side
// apply has one writer (resources.apply), so its content type and field-manager handling are in
// one place.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

const src = path.join(repoRoot, 'src');
const kube = path.join(src, 'core', 'kube');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The file's lines that are code: comment lines (`//`, `/* … *\/` blocks, JSDoc) dropped. */
function codeLines(file: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const t = text.trim();
      if (inBlock) {
        if (t.includes('*/')) inBlock = false;
        return;
      }
      if (t.startsWith('/*')) {
        inBlock = !t.includes('*/');
        return;
      }
      if (t.startsWith('//') || t.startsWith('*')) return;
      out.push({ line: i + 1, text });
    });
  return out;
}

/** Where `re` matches code outside src/core/kube/, as `file:line: text`. */
function outsideKube(re: RegExp): string[] {
  const hits: string[] = [];
  for (const f of sourceFiles(src)) {
    if (f.startsWith(kube + path.sep)) continue;
    for (const { line, text } of codeLines(f))
      if (re.test(text)) hits.push(`${path.relative(repoRoot, f)}:${line}: ${text.trim()}`);
  }
  return hits;
}

describe('API paths', () => {
  it('no /api or /apis path literal outside src/core/kube/', () => {
    // A string or template literal that starts a REST path: '/api/v1', `/apis/${g}`, '/apis'.
    const hits = outsideKube(/['"`]\/apis?(?:\/|['"`])/);
    assert.deepEqual(hits, [], 'build the path with src/core/kube/resources.ts');
  });

  it('one server-side-apply writer: application/apply-patch+yaml only in kube/resources.ts', () => {
    assert.deepEqual(outsideKube(/apply-patch\+yaml/), []);
    const inKube = sourceFiles(kube).filter((f) =>
      codeLines(f).some(({ text }) => text.includes('apply-patch+yaml')),
    );
    assert.deepEqual(
      inKube.map((f) => path.relative(repoRoot, f)),
      [path.join('src', 'core', 'kube', 'resources.ts')],
    );
  });
});
