// Pure: the limits an ImageList must meet to be able to run (src/core/erase/api/list-limits.ts).
import assert from 'node:assert/strict';
import {
  jobSizeProblem,
  listLimitProblems,
  listNameProblem,
  MAX_JOB_SPEC_BYTES,
  MAX_TARGETS_BYTES,
  targetsSizeProblem,
} from '../../../src/core/erase/api/list-limits.js';

describe('erase: ImageList limits', () => {
  it('a name of 63 characters fits a label value; 64 do not, and the message says why', () => {
    assert.equal(listNameProblem('a'.repeat(63)), '');
    assert.match(listNameProblem('a'.repeat(64)), /is longer than 63 characters: it is also a label value/);
  });

  it('targets are measured as the JSON the workers get, in bytes (not characters)', () => {
    const fits = ['x'.repeat(MAX_TARGETS_BYTES - 4)]; // ["…"]
    assert.equal(Buffer.byteLength(JSON.stringify(fits)), MAX_TARGETS_BYTES);
    assert.equal(targetsSizeProblem(fits), '');
    assert.match(
      targetsSizeProblem(['x'.repeat(MAX_TARGETS_BYTES - 3)]),
      /take more than 1000000 bytes as JSON/,
    );
    // Two bytes per character in UTF-8, and escapes: what the CRD's character count cannot see.
    assert.notEqual(targetsSizeProblem(['é'.repeat(MAX_TARGETS_BYTES / 2)]), '');
    assert.notEqual(targetsSizeProblem(['"'.repeat(MAX_TARGETS_BYTES / 2)]), '');
    assert.deepEqual(listLimitProblems('ok', ['busybox:1']), []);
    assert.equal(listLimitProblems('a'.repeat(64), fits.concat('y')).length, 2);
  });

  it("the job's exclusions and whole spec are checked once the administrator's part is known", () => {
    assert.equal(jobSizeProblem({ exclusions: ['a:*'] }), '');
    assert.match(
      jobSizeProblem({ exclusions: ['x'.repeat(MAX_TARGETS_BYTES)] }),
      /the exclusion lists take \d+ bytes as JSON, more than 1000000/,
    );
    const spec = { images: ['x'.repeat(700_000)], exclusions: ['y'.repeat(700_000)] };
    assert.ok(JSON.stringify(spec).length > MAX_JOB_SPEC_BYTES);
    assert.match(jobSizeProblem(spec), /the ImageJob would take \d+ bytes/);
  });
});
