// The worker's summary of an age or threshold run on a node with many images: past the 4096-byte
// budget it drops the rows of images the trigger kept (their counts stay) before the rows of what
// went, so `inv erase` can still say how long each removed image had been unused.
import assert from 'node:assert/strict';
import { terminationSummary } from '../../../src/core/noderemove/summary.js';
import type { Report, Result } from '../../../src/core/noderemove/types.js';

const DAY = 86_400_000;
const result = (i: number, outcome: Result['outcome'], unusedForMs: number): Result => ({
  target: '*',
  imageId: `sha256:${String(i).padStart(64, '0')}`,
  aliases: [`docker.io/library/test-image-number-${i}:1`],
  size: 1000,
  outcome,
  error: '',
  detail: '',
  unusedForMs,
});

describe('termination summary of a trigger run', () => {
  it('keeps the removed rows with their age when the kept ones do not fit', () => {
    const report: Report = {
      node: 'n2',
      runtime: { name: 'containerd', version: '2.1', apiVersion: 'v1' },
      results: [
        ...Array.from({ length: 60 }, (_, i) => result(i, 'recently-unused', DAY)),
        result(99, 'removed', 8 * DAY + 5000),
      ],
    };
    const text = terminationSummary(report);
    assert.ok(Buffer.byteLength(text) <= 4096);
    const s = JSON.parse(text) as {
      truncated?: boolean;
      counts: Record<string, number>;
      results: { o: string; e?: string }[];
    };
    assert.equal(s.truncated, true);
    assert.deepEqual(s.counts, { 'recently-unused': 60, removed: 1 });
    assert.deepEqual(
      s.results.map((r) => [r.o, r.e]),
      [['removed', 'unused for 8d']],
    );
  });
});
