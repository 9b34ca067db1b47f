// The administrator's bounds on requesters (config/requester-limits.ts) and the queue's share and
// priority (imagejob/admission/queue.ts), pure: a duration over its bound is refused naming the
// bound, the administrator's lists are exempt and go first, requesters' jobs hold at most
// maxJobs places, and the queue gauges count the jobs not started.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Registry } from 'prom-client';
import { createEraseMetrics } from '../../../src/core/erase/metrics/metrics.js';
import { repoRoot } from '../../support/paths.js';
import { ConfigError, parseConfig } from '../../../src/core/erase/config/config.js';
import { limitsOf, requesterLimitProblem } from '../../../src/core/erase/config/requester-limits.js';
import { queuedMessage, queuePlace } from '../../../src/core/erase/imagejob/admission/queue.js';
import { queueSample } from '../../../src/core/erase/metrics/queue-metrics.js';
import { shownPhase, type ImageJob } from '../../../src/core/erase/api/types.js';

const job = (name: string, list: string, at: string, status: ImageJob['status'] = {}) =>
  ({
    metadata: { name, creationTimestamp: at },
    spec: { namespace: 'w', imageList: { name: list, uid: 'u', generation: 1 }, images: [], config: {} },
    status,
  }) as unknown as ImageJob;

describe('erase: requesters cannot hold the cleanup (pure)', () => {
  it('has bounds by default, never below the configuration’s own values', () => {
    const d = limitsOf(parseConfig(''));
    assert.deepEqual(d, {
      maxJobTimeoutSeconds: 21600,
      maxPauseSeconds: 3600,
      maxJobs: 5,
      administratorLists: [],
    });
    const own = limitsOf(parseConfig('jobTimeout: 12h\nrollout: {maxParallel: 1, pause: 2h}\n'));
    assert.equal(own.maxJobTimeoutSeconds, 12 * 3600);
    assert.equal(own.maxPauseSeconds, 2 * 3600);
    const c = limitsOf(
      parseConfig(
        'maxConcurrentJobs: 2\nrequesterLimits: {maxJobTimeout: 2h, maxPause: 10m, administratorLists: [nightly]}\n',
      ),
    );
    assert.deepEqual(c, {
      maxJobTimeoutSeconds: 7200,
      maxPauseSeconds: 600,
      maxJobs: 1,
      administratorLists: ['nightly'],
    });
  });

  it('refuses a bad block with the key and the rule', () => {
    const bad = (y: string, re: RegExp) =>
      assert.throws(
        () => parseConfig(y),
        (e: Error) => e instanceof ConfigError && re.test(e.message),
      );
    bad(
      'requesterLimits: {maxJobs: 3}\nmaxConcurrentJobs: 2\n',
      /^requesterLimits\.maxJobs: must be a whole number from 1 to maxConcurrentJobs \(2\), got 3$/,
    );
    bad('requesterLimits: {maxPause: 5}\n', /requesterLimits\.maxPause: "5" has no unit/);
    bad(
      'requesterLimits: {maxJobTimeout: 10m}\n',
      /requesterLimits\.maxJobTimeout: 10m is shorter than the configuration's own jobTimeout \(30m\)/,
    );
    bad(
      'requesterLimits: {administratorLists: [Bad_Name]}\n',
      /administratorLists: must be a list of ImageList names/,
    );
    bad('requesterLimits: {maxWaves: 3}\n', /requesterLimits\.maxWaves: unknown key/);
    bad(
      'maxConcurrentJobs: 1\nrequesterLimits: {administratorLists: [nightly]}\n',
      /administratorLists: needs maxConcurrentJobs of at least 2, so that a place is kept/,
    );
  });

  it('refuses a duration over its bound, naming the bound, and never the administrator’s lists', () => {
    const l = limitsOf(parseConfig('requesterLimits: {administratorLists: [nightly]}\n'));
    assert.equal(
      requesterLimitProblem('mine', { jobTimeout: '2000h', pause: '1000h' }, l),
      "refused by the erase configuration: a job timeout (--job-timeout, spec.jobTimeout) of 2000h is over requesterLimits.maxJobTimeout, 6h; a rollout pause (--pause, spec.rollout.pause) of 1000h is over requesterLimits.maxPause, 1h (the longest a requester's list may hold a place among maxConcurrentJobs); ask for less, or have the administrator raise the bound or name the list in requesterLimits.administratorLists",
    );
    assert.match(
      requesterLimitProblem('mine', { jobTimeoutSeconds: 7 * 3600 }, l)!,
      /job timeout .* of 7h is over requesterLimits\.maxJobTimeout, 6h/,
    );
    assert.equal(
      requesterLimitProblem('mine', { jobTimeout: '6h', pause: '1h' }, l),
      undefined,
      'at the bound',
    );
    assert.equal(requesterLimitProblem('nightly', { jobTimeout: '2000h', pause: '1000h' }, l), undefined);
    assert.match(requesterLimitProblem('mine', { pause: '3000000000h' }, l)!, /maxPause/);
  });

  it('keeps places for the administrator’s lists and puts them first', () => {
    const policy = { administratorLists: ['nightly'], requesterJobs: 1 };
    const a = job('a', 'a', '2026-12-04T10:00:00Z', { planned: true, phase: 'Running' });
    const b = job('b', 'b', '2026-12-04T10:00:01Z', { phase: 'Queued' });
    const n = job('n', 'nightly', '2026-12-04T10:00:02Z', { phase: 'Queued' });
    const all = [a, b, n];
    assert.deepEqual(queuePlace(b, all, 2, policy), { running: ['a'], ahead: 1, limit: 2 }, 'n goes first');
    assert.equal(queuePlace(n, all, 2, policy), undefined, 'the second place is the administrator’s');
    assert.deepEqual(queuePlace(b, [a, b], 2, policy), { running: ['a'], ahead: 0, limit: 1, share: true });
    // With both places held, the administrator's job waits for the bound, first in line.
    const full = [
      a,
      job('c', 'nightly-old', '2026-12-04T09:00:00Z', { planned: true, phase: 'Running' }),
      b,
      n,
    ];
    assert.deepEqual(queuePlace(n, full, 2, policy), { running: ['a', 'c'], ahead: 0, limit: 2 });
    assert.deepEqual(queuePlace(b, full, 2, policy), { running: ['a', 'c'], ahead: 1, limit: 2 });
    assert.equal(
      queuedMessage({ running: ['a'], ahead: 0, limit: 1, share: true }, 2),
      "queued: 1 job(s) of requesters' lists running (a) and 0 queued before this one, at requesters' share of 1 of the cluster's 2 places (requesterLimits.maxJobs; the rest are kept for the administrator's lists)",
    );
  });

  it('shows a job that has not started as Queued, and counts it in the queue gauges', () => {
    assert.equal(shownPhase(undefined), 'Queued');
    assert.equal(shownPhase({}), 'Queued');
    assert.equal(shownPhase({ planned: true }), 'Running');
    assert.equal(shownPhase({ phase: 'Failed' }), 'Failed');
    const now = Date.parse('2026-12-04T10:01:00Z');
    const all = [
      job('a', 'a', '2026-12-04T10:00:00Z', { planned: true, phase: 'Running' }),
      job('b', 'b', '2026-12-04T10:00:30Z', { phase: 'Queued' }),
      job('c', 'c', '2026-12-04T09:00:00Z', { phase: 'Failed' }),
      job('d', 'd', '2026-12-04T10:00:50Z'),
    ];
    assert.deepEqual(queueSample(all, now), { queued: 2, oldestAgeSeconds: 30 });
    assert.deepEqual(queueSample([], now), { queued: 0, oldestAgeSeconds: 0 });
  });
});

describe("erase metrics in docs/daemon.md's table", () => {
  it('names every metric the erase controllers export, the queue gauges included', async () => {
    const registry = new Registry();
    createEraseMetrics(registry);
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name);
    assert.ok(
      names.includes('inv_erase_queued_jobs') && names.includes('inv_erase_oldest_queued_job_age_seconds'),
    );
    const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'daemon.md'), 'utf8');
    const rows = doc.split('\n').filter((l) => l.startsWith('| `inv_'));
    assert.deepEqual(
      names.filter((n) => !rows.some((r) => r.includes(`\`${n}\``) || r.includes(`\`${n}{`))),
      [],
    );
  });
});
