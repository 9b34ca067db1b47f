// Pure: which waiting worker containers fail their node, and when.
import assert from 'node:assert/strict';
import { describeWorker, keepEnds, startFailure } from '../../../src/core/erase/worker/start-failure.js';
import { socketMountFailure, stillCreating } from '../../../src/core/erase/worker/mount-failure.js';

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

  it('cuts a long reason in the middle, keeping the cause that the runtime puts last', () => {
    // containerd 1.6's message for a registry that refuses the credentials (test/nodes/pull-secret).
    const ref = '127.0.0.1:40227/inv/inv-worker:pull-5f1c2a';
    const msg = `failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": pulling from host 127.0.0.1:40227 failed with status code [manifests pull-5f1c2a]: 401 Unauthorized`;
    const v = startFailure(waiting('ErrImagePull', msg), at(20), 15);
    assert.ok(v?.failNow);
    assert.equal(v.reason.length, 200);
    assert.match(
      v.reason,
      /^image-pull: ErrImagePull: failed to pull and unpack image "127\.0\.0\.1:40227\/inv/,
    );
    assert.match(v.reason, / … .*failed with status code \[manifests pull-5f1c2a\]: 401 Unauthorized$/);
    assert.equal(keepEnds('short', 200), 'short');
    assert.equal(keepEnds('abcdefghij', 7), 'ab … ij');
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
    assert.equal(
      describeWorker('j-1', {}),
      'Pod j-1 Pending: not placed by the scheduler (is kube-scheduler running?)',
    );
  });
});

describe('a worker that cannot mount the runtime socket (pure)', () => {
  const pod = (reason = 'ContainerCreating') => ({
    spec: { volumes: [{ name: 'cri', hostPath: { path: '/run/containerd/containerd.sock' } }] },
    status: { containerStatuses: [{ state: { waiting: { reason } } }] },
  });
  it('names the socket path and the setting, from the FailedMount Event', () => {
    assert.ok(stillCreating(pod()) && !stillCreating(pod('ErrImagePull')));
    const failed = {
      reason: 'FailedMount',
      message:
        'MountVolume.SetUp failed for volume "cri" : hostPath type check failed: /run/containerd/containerd.sock is not a socket file',
    };
    assert.equal(
      socketMountFailure(pod(), [failed]),
      "runtime-socket: cannot mount /run/containerd/containerd.sock (set runtimeSocket in ConfigMap inv-erase-config to the node's CRI socket): hostPath type check failed: /run/containerd/containerd.sock is not a socket file",
    );
    // Another volume's trouble (a ConfigMap not there yet) is not the socket's.
    const other = {
      reason: 'FailedMount',
      message: 'MountVolume.SetUp failed for volume "images" : configmap not found',
    };
    assert.equal(socketMountFailure(pod(), [other]), undefined);
    assert.equal(socketMountFailure(pod(), []), undefined);
  });
});
