// Conditions per the API conventions: lastTransitionTime moves only when a condition's status
// does, and an unchanged condition stays the very object that was read (the API server returns
// custom resources with sorted keys, so rebuilding it would look like a change and cost a write).
import assert from 'node:assert/strict';
import {
  jobConditions,
  listConditions,
  setCondition,
  type Condition,
} from '../../../src/core/erase/api/conditions.js';

const t0 = new Date('2026-06-10T10:00:00Z');
const t1 = new Date('2026-06-10T10:05:00Z');

describe('erase conditions', () => {
  it('keeps lastTransitionTime while the status stays, moves it when the status changes', () => {
    const c: Condition[] = [];
    setCondition(c, { type: 'Complete', status: 'False', reason: 'Running', message: '' }, t0);
    setCondition(c, { type: 'Complete', status: 'False', reason: 'Running', message: 'still' }, t1);
    assert.equal(c[0]!.lastTransitionTime, '2026-06-10T10:00:00Z');
    assert.equal(c[0]!.message, 'still');
    setCondition(c, { type: 'Complete', status: 'True', reason: 'SuccessRatioMet', message: '' }, t1);
    assert.equal(c[0]!.lastTransitionTime, '2026-06-10T10:05:00Z');
    assert.equal(c.length, 1);
  });

  it('leaves an unchanged condition as the object that was read', () => {
    const read = JSON.parse(
      '{"lastTransitionTime":"2026-06-10T10:00:00Z","message":"","observedGeneration":1,"reason":"Running","status":"False","type":"Complete"}',
    ) as Condition;
    const c = [read];
    setCondition(
      c,
      { type: 'Complete', status: 'False', reason: 'Running', message: '', observedGeneration: 1 },
      t1,
    );
    assert.equal(c[0], read);
  });

  it('an ImageJob: Progressing while it runs, then Complete or Failed', () => {
    let c = jobConditions(
      { phase: 'Running', planned: true, message: '3 node(s) selected' },
      1,
      'Applying',
      t0,
    );
    const get = (t: string) => c.find((x) => x.type === t)!;
    assert.deepEqual(
      [get('Progressing').status, get('Progressing').reason, get('Complete').status, get('Failed').status],
      ['True', 'Applying', 'False', 'False'],
    );
    c = jobConditions(
      { phase: 'Failed', planned: true, conditions: c, succeeded: 1, failed: 2, desired: 3 },
      1,
      'Observing',
      t1,
    );
    assert.deepEqual(
      [get('Progressing').status, get('Complete').status, get('Failed').status, get('Failed').reason],
      ['False', 'False', 'True', 'SuccessRatioNotMet'],
    );
    const refused = jobConditions({ phase: 'Failed', message: 'refused: not ours' }, 1, 'Planned', t0);
    assert.equal(refused.find((x) => x.type === 'Failed')!.reason, 'Refused');
  });

  it('an ImageList: Accepted False for a rejected request, Succeeded from the last job', () => {
    const rejected = listConditions({ phase: 'Error', message: 'bad image "x y"' }, 3, t0);
    assert.deepEqual(
      rejected.map((x) => [x.type, x.status, x.reason]),
      [['Accepted', 'False', 'Rejected']],
    );
    const done = listConditions({ phase: 'Completed', lastJob: 'l-3-abcde' }, 3, t0);
    assert.deepEqual(
      done.map((x) => [x.type, x.status, x.reason, x.observedGeneration]),
      [
        ['Accepted', 'True', 'Accepted', 3],
        ['Succeeded', 'True', 'JobCompleted', 3],
      ],
    );
  });
});
