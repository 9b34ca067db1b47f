// `inv scan -f` at its input limit, with the shapes that cost the most memory per byte
// (test/support/manifest-shapes.ts). Memory must follow what is kept, not what is read or
// skipped (issue 25: 7 MB of empty documents took 1.0 GB, 51 MB took 4.1 GB). Each input is
// streamed into the CLI's stdin at exactly the limit, 8 MiB here so that a shape takes seconds
// (`npm run bench scan-file-limit` runs them at the default 256 MiB: 25 s to 2 min each).
// The child runs under a 96 MB V8 heap: a cost per document read or skipped would end in a heap
// out-of-memory there (the old code needed over 1 GB for 8 MiB of empty documents), while a
// bounded one completes; its peak RSS (VmHWM) is checked too.
import assert from 'node:assert/strict';
import { scanShape, WORST_SHAPES } from '../support/manifest-shapes.js';

const LIMIT = 8 * 1024 * 1024;
const HEAP_MB = 96;
/**
 * Node and the CLI alone take about 130 MB on Node 20 and 190 MB on Node 24 (its binary and
 * heap layout are larger: these shapes peak at 210-310 MB there); the old code needed over
 * 1 GB for 8 MiB of empty documents. The heap cap above is the tight bound; this one catches a
 * cost outside the heap.
 */
const RSS_BOUND_MB = 400;

describe('inv scan -f at the input limit: memory follows what is kept', function () {
  this.timeout(120_000);

  // The others of WORST_SHAPES take the same paths (unit tests cover them, the bench runs all).
  const names = [
    'empty YAML documents',
    'tiny documents without a kind',
    'a JSON array of {}',
    'a kubectl-style YAML List of {}',
    'documents nested 99 deep',
    'tiny Pods',
  ];
  for (const name of names) {
    const shape = WORST_SHAPES[name]!;
    it(`${name}: completes within a ${HEAP_MB} MB heap${shape.kept ? ' (plus what it keeps)' : ''}, with a few warning lines`, async () => {
      // Kept objects may cost memory: that shape only gets the RSS bound.
      const r = await scanShape(shape, LIMIT, shape.kept ? {} : { heapMB: HEAP_MB });
      console.log(`      ${r.ms} ms, peak RSS ${r.rssMB} MB`);
      assert.doesNotMatch(r.stderr, /heap out of memory|call stack/);
      assert.equal(r.status, shape.status, r.stderr.slice(-2000));
      assert.ok(r.rssMB > 0 && r.rssMB < RSS_BOUND_MB, `peak RSS ${r.rssMB} MB`);
      assert.ok(r.stderr.split('\n').length < 30, `stderr: ${r.stderr.slice(0, 2000)}`);
    });
  }
});
