// Every image outcome that fails the run (its `fails` trait in contract/worker-summary.ts) makes
// `inv node-remove` exit non-zero, and no other does: iterated over the trait table, so an outcome
// added there is covered without touching this file.
import assert from 'node:assert/strict';
import { OUTCOMES, traitsOf, type Outcome } from '../../../src/core/contract/worker-summary.js';
import { exitCodeFor } from '../../../src/core/noderemove/run.js';
import type { Report } from '../../../src/core/noderemove/types.js';

const reportWith = (...outcomes: Outcome[]): Report => ({
  node: 'n1',
  runtime: { name: 'containerd', version: '2.4.2', apiVersion: 'v1' },
  results: outcomes.map((outcome, i) => ({
    target: `t${i}`,
    imageId: `sha256:${String(i).padStart(64, '0')}`,
    aliases: [],
    size: 1,
    outcome,
    error: '',
    detail: '',
  })),
});

describe('node-remove: exit codes from the outcome traits (pure)', () => {
  for (const o of OUTCOMES) {
    const fails = traitsOf(o).fails;
    it(`${o}: ${fails === null ? 'exits 0' : `fails the run (${fails})`}`, () => {
      const alone = exitCodeFor(reportWith(o));
      // Beside a removal, as a real run has it: a failure is not hidden by what went well.
      const beside = exitCodeFor(reportWith('removed', o));
      for (const code of [alone, beside]) {
        if (fails === null) assert.equal(code, 0);
        else assert.equal(code, fails === 'input' ? 2 : 1);
      }
    });
  }

  it('the table has failing outcomes of both kinds and outcomes that do not fail', () => {
    const kinds = new Set(OUTCOMES.map((o) => traitsOf(o).fails));
    assert.deepEqual([...kinds].sort(), ['input', 'run', null].sort());
  });
});
