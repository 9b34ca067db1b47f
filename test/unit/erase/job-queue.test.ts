// The order of the job queue (imagejob/admission/queue.ts), pure: creation time then name, finished and
// deleting jobs hold no place, jobs of another workers' namespace are not counted.
import assert from 'node:assert/strict';
import { queuedMessage, queuePlace } from '../../../src/core/erase/imagejob/admission/queue.js';
import type { ImageJob } from '../../../src/core/erase/api/types.js';

const job = (
  name: string,
  at: string,
  status: ImageJob['status'] = {},
  extra: Partial<ImageJob['metadata']> = {},
  ns = 'w',
) =>
  ({
    metadata: { name, creationTimestamp: at, ...extra },
    spec: { namespace: ns, imageList: { name, uid: 'u', generation: 1 }, images: [], config: {} },
    status,
  }) as unknown as ImageJob;

describe('erase: the job queue order (pure)', () => {
  it('counts running jobs and older queued ones against the bound', () => {
    const t = '2026-12-04T10:00:00Z';
    const all = [
      job('run-1', t, { planned: true, phase: 'Running' }),
      job('done', t, { planned: true, phase: 'Completed' }),
      job('gone', t, { planned: true, phase: 'Running' }, { deletionTimestamp: t }),
      job('other-ns', t, { planned: true, phase: 'Running' }, {}, 'elsewhere'),
      job('b-waits', '2026-12-04T10:00:01Z'),
      job('a-waits', '2026-12-04T10:00:01Z'),
      job('c-later', '2026-12-04T10:00:02Z'),
    ];
    assert.equal(queuePlace(all[5]!, all, 2), undefined, 'a-waits: 1 running + 0 ahead < 2');
    assert.deepEqual(
      queuePlace(all[4]!, all, 2),
      { running: ['run-1'], ahead: 1, limit: 2 },
      'b after a (same second)',
    );
    assert.deepEqual(queuePlace(all[6]!, all, 3), { running: ['run-1'], ahead: 2, limit: 3 });
    assert.equal(queuePlace(all[6]!, all, 4), undefined);
    assert.equal(
      queuedMessage({ running: ['a', 'b', 'c', 'd', 'e'], ahead: 0, limit: 5 }),
      "queued: 5 job(s) running (a, b, c, and 2 more) and 0 queued before this one, at the cluster's bound of 5 (maxConcurrentJobs)",
    );
  });
});
