// Pure: which waiting worker containers fail their node, and when.
import assert from 'node:assert/strict';
import { describeWorker, startFailure } from '../../src/core/erase/worker/start-failure.js';

const waiting = (reason: string, message = '', startTime = '2026-01-01T00:00:00Z') => ({
  startTime,
  containerStatuses: [{ state: { waiting: { reason, message } } }],
});
const at = (s: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + s * 1000);

describe('erase: workers that cannot start', () => {
  it('fails image pull, invalid image and container config/create errors after the grace', () => {
    const cases: [string, string][] = [
      ['ErrImagePull', 'image-pull'],
      ['ImagePullBackOff', 'image-pull'],
      ['InvalidImageName', 'image-pull'],
      ['CreateContainerConfigError', 'container-config'],
      ['CreateContainerError', 'container-create'],
    ];
    for (const [reason, code] of cases) {
      const v = startFailure(waiting(reason, 'pull  access\ndenied'), at(20), 15);
      assert.deepEqual(v, { failNow: true, reason: `${code}: ${reason}: pull access denied` });
    }
  });

  it('waits out the grace, asking to look again no later than 5 s', () => {
    assert.deepEqual(startFailure(waiting('ErrImagePull'), at(3), 15), { failNow: false, retryInMs: 5000 });
    assert.deepEqual(startFailure(waiting('ErrImagePull'), at(13), 15), { failNow: false, retryInMs: 2000 });
    // No startTime yet: the grace has not started.
    assert.deepEqual(startFailure(waiting('ErrImagePull', '', ''), at(100), 15), {
      failNow: false,
      retryInMs: 5000,
    });
  });

  it('ignores ordinary waiting (ContainerCreating), running and absent statuses', () => {
    assert.equal(startFailure(waiting('ContainerCreating'), at(100), 15), undefined);
    assert.equal(startFailure({ containerStatuses: [{ state: {} }] }, at(100), 15), undefined);
    assert.equal(startFailure(undefined, at(100), 15), undefined);
  });

  it('keeps the reason under 200 characters', () => {
    const v = startFailure(waiting('ErrImagePull', 'x'.repeat(500)), at(20), 0);
    assert.ok(v?.failNow && v.reason.length === 200);
  });
});

describe('describeWorker', () => {
  it('names the Pod and its state', () => {
    assert.equal(
      describeWorker('j-1', undefined, 'namespaces "w" not found'),
      'Pod j-1 not created: namespaces "w" not found',
    );
    assert.equal(
      describeWorker('j-1', {
        status: {
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: '0/3 nodes\n are available',
            },
          ],
        },
      }),
      'Pod j-1 Pending: Unschedulable: 0/3 nodes are available',
    );
    assert.equal(
      describeWorker('j-1', {
        status: {
          phase: 'Pending',
          containerStatuses: [{ state: { waiting: { reason: 'ErrImagePull', message: 'denied' } } }],
        },
      }),
      'Pod j-1 Pending: ErrImagePull: denied',
    );
    assert.equal(describeWorker('j-1', { status: { phase: 'Running' } }), 'Pod j-1 Running');
    assert.equal(describeWorker('j-1', {}), "Pod j-1 Pending: not started by its node's kubelet");
  });
});
