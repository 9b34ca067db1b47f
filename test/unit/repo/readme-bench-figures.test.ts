// The README's comparison with kubectl quotes measured figures; they are the benchmark's, so each
// figure it states (times as ratios, memory in MB or GB, counts) must stand in bench/README.md,
// where the run that measured it is described. A re-measured bench table then cannot leave the
// README quoting a figure that no longer exists.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

const read = (f: string) => fs.readFileSync(path.join(repoRoot, f), 'utf8');

describe("the README's figures beside kubectl", () => {
  it('are bench/README.md figures', () => {
    const readme = read('README.md');
    const bench = read('bench/README.md').replace(/\*\*/g, '');
    const start = readme.indexOf('- Against `kubectl');
    assert.ok(start >= 0, 'the README compares inv with kubectl');
    const item = readme.slice(start, readme.indexOf('\n- ', start + 1) >>> 0 || undefined).split('\n\n')[0]!;
    const figures = [...item.matchAll(/\d[\d,.]*(?:×| MB| GB| s\b)/g)].map((m) => m[0]);
    assert.ok(figures.length >= 4, `time and memory, for inv and kubectl: ${figures.join(', ')}`);
    assert.deepEqual(
      figures.filter((f) => !bench.includes(f)),
      [],
    );
  });
});
