// ARCHITECTURE.md's "Where a change goes" is a map a contributor acts on: every code name it
// gives (`OUTCOME_TRAITS`, `renderData`, `useRuntime()`) must still be defined somewhere in src/
// or test/, and one it places in a file ("`X` in `src/...`", "`X` of `src/...`", "`X`
// (`src/...`") must be defined in that file, so a rename or a move breaks this test, not the map.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

function section(): string {
  const text = fs.readFileSync(path.join(repoRoot, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('## Where a change goes');
  assert.ok(start >= 0, 'ARCHITECTURE.md has a "Where a change goes" section');
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(rel));
    else if (rel.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** Whether `file` defines `name` (a declaration, a member or a key of a table). */
const defines = (text: string, name: string): boolean =>
  new RegExp(
    `(?:const|let|function|class|interface|type|enum)\\s+${name}\\b|\\bstatic\\s+(?:override\\s+)?${name}\\b|^\\s*(?:async\\s+)?${name}\\s*[(:<]`,
    'm',
  ).test(text);

const NOT_CODE = new Set(['EraseReport', 'additionalPrinterColumns']);

describe('ARCHITECTURE.md: where a change goes', () => {
  const text = section();
  const names = [...text.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)(?:\([^`]*\))?`/g)]
    .map((m) => m[1]!)
    // Code names only: camelCase or CONSTANT_CASE, not a document kind or a CRD field.
    .filter((n) => /[a-z][A-Z]|^[A-Z][A-Z0-9_]+$|^use[A-Z]/.test(n) && !NOT_CODE.has(n));

  it('names code (the test reads something)', () => assert.ok(names.length >= 5, names.join(', ')));

  it('every code name it gives is defined in src/ or test/', () => {
    const sources = [...files('src'), ...files('test')].map((f) =>
      fs.readFileSync(path.join(repoRoot, f), 'utf8'),
    );
    const missing = [...new Set(names)].filter((n) => !sources.some((s) => defines(s, n)));
    assert.deepEqual(missing, []);
  });

  it('a name it places in a file is defined in that file', () => {
    const placed = [
      ...text.matchAll(
        /`([A-Za-z_][A-Za-z0-9_]*)(?:\([^`]*\))?`\s*(?:in|of|\()\s*`((?:src|test)\/[\w./-]+\.ts)/g,
      ),
    ];
    assert.ok(placed.length >= 3, 'the section places names in files');
    const wrong = placed
      .filter((m) => !defines(fs.readFileSync(path.join(repoRoot, m[2]!), 'utf8'), m[1]!))
      .map((m) => `${m[1]} in ${m[2]}`);
    assert.deepEqual(wrong, []);
  });
});
