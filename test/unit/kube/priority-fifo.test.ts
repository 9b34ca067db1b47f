// The work queue's waiting keys: FIFO within a priority, higher first, each key once, a key
// raised to a higher priority served there (and not again from its old place).
import assert from 'node:assert/strict';
import { PRIORITY_LOW, PRIORITY_NORMAL, PriorityFifo } from '../../../src/core/controller/priority-fifo.js';

const drain = (q: PriorityFifo) => {
  const out: string[] = [];
  for (let k = q.shift(); k !== undefined; k = q.shift()) out.push(k);
  return out;
};

describe('PriorityFifo', () => {
  it('serves a change added after 3,000 low-priority keys next, and the bulk pass in order after it', () => {
    const q = new PriorityFifo();
    const bulk = Array.from({ length: 3000 }, (_, i) => `ns-${String(i).padStart(4, '0')}/_`);
    for (const k of bulk) q.push(k, PRIORITY_LOW);
    assert.equal(q.shift(), bulk[0]);
    q.push('changed/_');
    assert.equal(q.size, 3000);
    assert.deepEqual(drain(q), ['changed/_', ...bulk.slice(1)]);
    assert.equal(q.size, 0);
  });

  it('keeps each key once: a repeat keeps its place, a higher priority moves it up once', () => {
    const q = new PriorityFifo();
    for (const k of ['a', 'b', 'c', 'd']) q.push(k, PRIORITY_LOW);
    assert.equal(q.push('b', PRIORITY_LOW), false);
    assert.equal(q.push('x'), true);
    assert.equal(q.push('c', PRIORITY_NORMAL), true);
    assert.equal(q.push('c', PRIORITY_LOW), false, 'a lower priority never moves a key down');
    assert.equal(q.priorityOf('c'), PRIORITY_NORMAL);
    assert.equal(q.size, 5);
    assert.deepEqual(drain(q), ['x', 'c', 'a', 'b', 'd']);
  });

  it('a key served and added again waits at the back, not at its stale old place', () => {
    const q = new PriorityFifo();
    for (const k of ['a', 'b', 'c']) q.push(k, PRIORITY_LOW);
    q.push('a'); // moved up: its low entry is now stale
    assert.equal(q.shift(), 'a');
    q.push('a', PRIORITY_LOW);
    assert.deepEqual(drain(q), ['b', 'c', 'a']);
  });

  it('stays FIFO over many pushes and shifts (compaction keeps the order)', () => {
    const q = new PriorityFifo();
    const got: string[] = [];
    for (let i = 0; i < 5000; i++) {
      q.push(`k${i}`);
      if (i % 3 === 2) got.push(q.shift()!);
    }
    got.push(...drain(q));
    assert.deepEqual(
      got,
      Array.from({ length: 5000 }, (_, i) => `k${i}`),
    );
    q.push('z', PRIORITY_LOW);
    q.clear();
    assert.equal(q.shift(), undefined);
    assert.throws(() => q.push('n', Number.NaN), /invalid priority/);
  });
});
