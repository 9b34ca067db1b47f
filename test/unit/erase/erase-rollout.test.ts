// Pure: spec.rollout's validation, its resolution for a job of n nodes, and how many workers a
// pass may create (src/core/erase/spec/rollout.ts); the `inv erase` flags that write it.
import assert from 'node:assert/strict';
import { admissions, resolveRollout, rolloutProblems } from '../../../src/core/erase/spec/rollout.js';
import { completeErase, validateErase, type EraseFlags } from '../../../src/cli/erase/erase-options.js';
import { ConfigError, parseConfig } from '../../../src/core/erase/config/config.js';

describe('erase: rollout waves (pure)', () => {
  it('validates maxParallel, pause and failureBudget, naming the field', () => {
    assert.deepEqual(rolloutProblems(undefined), []);
    assert.deepEqual(rolloutProblems({ maxParallel: 3, pause: '1m', failureBudget: 2 }), []);
    assert.deepEqual(rolloutProblems({ maxParallel: '100%' }), []);
    assert.match(rolloutProblems({ maxParallel: 0 })[0]!, /spec\.rollout\.maxParallel: must be 1 or more/);
    assert.match(rolloutProblems({ maxParallel: '0%' })[0]!, /percentage from 1% to 100%/);
    assert.match(rolloutProblems({ maxParallel: '150%' })[0]!, /percentage/);
    assert.match(rolloutProblems({ maxParallel: 'ten' })[0]!, /percentage/);
    assert.match(rolloutProblems({ pause: '10' })[0]!, /spec\.rollout\.pause: "10" has no unit/);
    assert.match(rolloutProblems({ failureBudget: 0 })[0]!, /failureBudget: must be 1 or more/);
  });

  it('a percentage rounds down as maxUnavailable does, never below 1; no maxParallel is every node', () => {
    assert.equal(resolveRollout({ maxParallel: '10%' }, 5000)?.maxParallel, 500);
    assert.equal(resolveRollout({ maxParallel: '50%' }, 3)?.maxParallel, 1);
    assert.equal(resolveRollout({ maxParallel: '1%' }, 10)?.maxParallel, 1);
    assert.equal(resolveRollout({ failureBudget: 2 }, 7)?.maxParallel, 7);
    assert.deepEqual(resolveRollout({ maxParallel: 2, pause: '1m' }, 7), { maxParallel: 2, pauseMs: 60_000 });
    assert.equal(resolveRollout(undefined, 7), undefined);
  });

  it('without a pause: a sliding window of maxParallel', () => {
    const ro = { maxParallel: 3, pauseMs: 0 };
    const st = { maxParallel: 3, wave: 1 };
    assert.equal(admissions(ro, st, 0, 10, 0).admit, 3);
    assert.equal(admissions(ro, st, 2, 10, 0).admit, 1);
    assert.equal(admissions(ro, st, 3, 10, 0).admit, 0);
    assert.equal(admissions(ro, st, 1, 1, 0).admit, 1);
    assert.equal(admissions(ro, { ...st, stopped: true }, 0, 10, 0).admit, 0);
  });

  it('with a pause: whole waves; the next waits for the wave to end and for nextWaveAt', () => {
    const ro = { maxParallel: 3, pauseMs: 60_000 };
    assert.deepEqual(admissions(ro, { maxParallel: 3, wave: 0 }, 0, 10, 0), { admit: 3, startWave: 3 });
    // The wave's remaining workers (created in chunks) go on; nothing new while one runs.
    assert.deepEqual(admissions(ro, { maxParallel: 3, wave: 1, toStart: 2 }, 1, 9, 0), { admit: 2 });
    assert.deepEqual(admissions(ro, { maxParallel: 3, wave: 1 }, 1, 7, 0), { admit: 0 });
    // Finished, but the pass that saw it has not set nextWaveAt yet: wait for it.
    assert.deepEqual(admissions(ro, { maxParallel: 3, wave: 1 }, 0, 7, 0), { admit: 0 });
    const at = '2026-01-01T00:01:00Z';
    const t = Date.parse(at);
    assert.deepEqual(admissions(ro, { maxParallel: 3, wave: 1, nextWaveAt: at }, 0, 7, t - 5000), {
      admit: 0,
      waitMs: 5000,
    });
    assert.deepEqual(admissions(ro, { maxParallel: 3, wave: 1, nextWaveAt: at }, 0, 2, t), {
      admit: 2,
      startWave: 2,
    });
  });

  it('inv erase --max-parallel/--pause/--failure-budget write spec.rollout; bad values are named by flag', () => {
    const base = {
      images: ['nginx:1'],
      'all-unused': false,
      yes: true,
      'protect-inventory': true,
      'dry-run': false,
      name: 'x',
      'workers-namespace': 'w',
      'config-namespace': 'c',
      'controller-lease': 'a/b',
      standalone: false,
      timeout: '1h',
      suspend: false,
      output: 'table',
      'no-headers': false,
    } as EraseFlags;
    assert.equal(completeErase(base).options.rollout, undefined);
    const ok = completeErase({ ...base, 'max-parallel': '10', pause: '30s', 'failure-budget': 3 });
    assert.deepEqual(ok.options.rollout, { maxParallel: 10, pause: '30s', failureBudget: 3 });
    assert.deepEqual(completeErase({ ...base, 'max-parallel': '25%' }).options.rollout, {
      maxParallel: '25%',
    });
    const bad = completeErase({ ...base, 'max-parallel': '0', pause: '5' });
    const problems = validateErase(bad.options, bad.problems, false);
    assert.ok(
      problems.some((p) => p.startsWith('--max-parallel: must be 1 or more')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.startsWith('--pause: "5" has no unit')),
      problems.join('\n'),
    );
  });

  it('inv-erase-config rollout: the default of lists without spec.rollout, validated like it', () => {
    assert.equal(parseConfig('').rollout, undefined);
    assert.deepEqual(parseConfig('rollout: {maxParallel: 10%, pause: 1m, failureBudget: 5}').rollout, {
      maxParallel: '10%',
      pause: '1m',
      failureBudget: 5,
    });
    assert.throws(() => parseConfig('rollout: {maxParallel: 0}'), ConfigError);
    assert.throws(() => parseConfig('rollout: {maxParallel: 0}'), /rollout\.maxParallel: must be 1 or more/);
    assert.throws(() => parseConfig('rollout: {waves: 3}'), /rollout\.waves: unknown key/);
    assert.throws(() => parseConfig('rollout: 3'), /rollout: must be a mapping/);
  });
});
