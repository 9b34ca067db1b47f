// The checks a worker's termination message passes before it reaches ImageJob status.
import assert from 'node:assert/strict';
import { cleanText, countProblem, summaryProblem } from '../../../src/core/contract/report-check.js';
import { resultFromPod } from '../../../src/core/contract/results.js';

describe('worker report checks', () => {
  it('counts are whole numbers from 0 to the bound', () => {
    assert.equal(countProblem('c', 3), undefined);
    assert.equal(countProblem('c', undefined), undefined);
    for (const bad of [0.5, -1, 1e300, '3', null, 1_000_001])
      assert.match(
        countProblem('c', bad) ?? '',
        /^c is .+, not a whole number from 0 to 1000000$/,
        String(bad),
      );
    assert.equal(summaryProblem({ counts: { removed: 2 }, bytes: 2 ** 40, scan: { ms: 5 } }), undefined);
    assert.match(summaryProblem({ counts: {}, bytes: 0.25 }) ?? '', /^bytes is 0\.25/);
    assert.match(summaryProblem({ scan: { n: -3 } }) ?? '', /^scan\.n is -3/);
  });

  it('text loses escape sequences and control characters, and is bounded', () => {
    assert.equal(
      cleanText('\u001b[1;31mbold\u001b[0m \u001b]8;;http://x\u0007link\u001b]8;;\u0007', 100),
      'bold link',
    );
    assert.equal(cleanText('a\u0000b\u009bc\u007fd\r\ne', 100), 'a b c d e');
    assert.equal(cleanText('x'.repeat(300), 10), `${'x'.repeat(9)}…`);
  });

  it('a report with a count that is not whole fails its node, counting nothing', () => {
    const r = resultFromPod('n1', {
      phase: 'Succeeded',
      message: JSON.stringify({ counts: { removed: 1.5, excluded: 2 }, bytes: 1 }),
    });
    assert.equal(r.outcome, 'Failed');
    assert.equal(r.removed, 0);
    assert.equal(r.excluded, 0);
    assert.match(r.reason, /^the worker's report is invalid: counts\.removed is 1\.5/);
  });

  it('a crash text with escapes becomes a clean reason', () => {
    const r = resultFromPod('n1', { phase: 'Failed', message: 'panic: \u001b[2Jcleared\u0007' });
    assert.equal(r.reason, 'panic: cleared');
  });
});
