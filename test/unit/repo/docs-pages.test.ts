// Pages a person reads: none over 400 lines, each opening with what it is for (a paragraph right
// under its title, not a heading or a code block), and a troubleshooting page that explains every
// Warning Event the erase controllers emit and every reason a node is skipped or fails with, read
// from the source so a new one cannot go unexplained.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { docsPages } from '../../support/docs/docs-pages.js';
import { repoRoot } from '../../support/paths.js';

const MAX_LINES = 400;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('pages a person reads', () => {
  const pages = docsPages().filter((p) => p.file !== 'README.md');

  it(`no page over ${MAX_LINES} lines`, () => {
    const long = docsPages()
      .map((p) => ({ file: p.file, n: p.text.split('\n').length - 1 }))
      .filter(({ n }) => n > MAX_LINES)
      .map(({ file, n }) => `${file}: ${n} lines`);
    assert.deepEqual(long, []);
  });

  it('each opens with what it is for: a paragraph under its title', () => {
    const bad = pages.filter((p) => {
      const [title, ...rest] = p.text.split('\n');
      const first = rest.find((l) => l.trim() !== '') ?? '';
      return !title!.startsWith('# ') || /^(#|```|\||<!--|- )/.test(first);
    });
    assert.deepEqual(
      bad.map((p) => p.file),
      [],
    );
  });

  it('troubleshooting explains every Warning Event and every node reason the code writes', () => {
    const src = sourceFiles(path.join(repoRoot, 'src', 'core', 'erase'))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    const events = new Set([
      ...[...src.matchAll(/'Warning',\s*'([A-Z][A-Za-z]+)'/g)].map((m) => m[1]!),
      ...[...src.matchAll(/REASON = '([A-Z][A-Za-z]+)'/g)].map((m) => m[1]!),
      'Failed', // finish.ts: the job's phase, as a Warning when it failed
    ]);
    const typeValues = (re: RegExp) => {
      const m = re.exec(src);
      assert.ok(m, `${re} found in src/core/erase`);
      return [...m[1]!.matchAll(/'([A-Za-z-]+)'/g)].map((x) => x[1]!);
    };
    const skips = typeValues(/type SkipReason = ('filtered'[^;]*);/);
    const scheduleSkips = typeValues(/type SkipReason = ('JobRunning'[^;]*);/);
    const failures = [...src.matchAll(/`(timeout|image-pull|runtime-socket|node-not-ready): /g)].map(
      (m) => m[1]!,
    );
    assert.ok(events.size >= 6 && skips.length >= 3 && scheduleSkips.length >= 3 && failures.length >= 3);
    const page = fs.readFileSync(path.join(repoRoot, 'docs', 'troubleshooting.md'), 'utf8');
    const missing = [...events, ...skips, ...scheduleSkips, ...new Set(failures), 'rollout-stopped'].filter(
      (r) => !page.includes(`\`${r}\``) && !page.includes(`\`${r}: `),
    );
    assert.deepEqual(missing, []);
  });
});
