// Pure: how a worker is placed on its node (through the scheduler), and when its node fails
// because it cannot be placed or its kubelet refused it.
import assert from 'node:assert/strict';
import { nodeAffinity, targetNode, workerTolerations } from '../../../src/core/erase/worker/placement.js';
import { rejection, unschedulable } from '../../../src/core/erase/worker/placement-failure.js';
import { placementFailureKind } from '../../../src/core/contract/placement-failures.js';

const at = (s: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + s * 1000);
const pending = (extra: Record<string, unknown> = {}) => ({
  metadata: { creationTimestamp: '2026-01-01T00:00:00Z' },
  status: {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message:
          "0/2 nodes are available: 1 Too many pods,\n 1 node(s) didn't match Pod's node affinity/selector.",
        lastTransitionTime: '2026-01-01T00:00:02Z',
      },
    ],
    ...extra,
  },
});

describe('erase: worker placement', () => {
  it('targets its node with a required affinity on metadata.name, as a DaemonSet Pod does', () => {
    const spec = { affinity: nodeAffinity('n1') };
    assert.deepEqual(spec.affinity, {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }],
        },
      },
    });
    assert.equal(targetNode(spec), 'n1');
    assert.equal(targetNode({ ...spec, nodeName: 'n1' }), 'n1');
    assert.equal(targetNode({}), undefined);
  });

  it('tolerates the cordon taint unless the administrator already tolerates it', () => {
    assert.deepEqual(workerTolerations([{ operator: 'Exists' }]), [{ operator: 'Exists' }]);
    const narrow = [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }];
    assert.deepEqual(workerTolerations(narrow), [
      ...narrow,
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    assert.deepEqual(workerTolerations([]), [
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });

  it('an unschedulable worker fails its node after the grace, from when it became unschedulable', () => {
    assert.deepEqual(unschedulable(pending(), at(10), 15), { failNow: false, retryInMs: 5000 });
    assert.deepEqual(unschedulable(pending(), at(15), 15), { failNow: false, retryInMs: 2000 });
    const v = unschedulable(pending(), at(17), 15);
    assert.deepEqual(v, {
      failNow: true,
      reason:
        "unschedulable: Unschedulable: 0/2 nodes are available: 1 Too many pods, 1 node(s) didn't match Pod's node affinity/selector.",
    });
    assert.equal(placementFailureKind(v && v.failNow ? v.reason : ''), 'unschedulable');
  });

  it('waits while the scheduler preempts for it (nominated node), and says nothing once placed', () => {
    assert.deepEqual(unschedulable(pending({ nominatedNodeName: 'n1' }), at(600), 15), {
      failNow: false,
      retryInMs: 5000,
    });
    assert.equal(unschedulable({ ...pending(), spec: { nodeName: 'n1' } }, at(600), 15), undefined);
    assert.equal(unschedulable({ status: { phase: 'Pending' } }, at(600), 15), undefined);
  });

  it("a kubelet's refusal at admission fails the node with its words; a worker that ran is not one", () => {
    const refused = {
      status: {
        phase: 'Failed',
        reason: 'OutOfpods',
        message:
          "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
      },
    };
    const r = rejection(refused);
    assert.equal(
      r,
      "rejected: OutOfpods: Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
    );
    assert.equal(placementFailureKind(r!), 'rejected');
    const ran = {
      status: { ...refused.status, containerStatuses: [{ state: { terminated: { exitCode: 1 } } }] },
    };
    assert.equal(rejection(ran), undefined);
    assert.equal(rejection({ status: { phase: 'Failed', reason: 'DeadlineExceeded' } }), undefined);
    assert.equal(rejection({ status: { phase: 'Succeeded' } }), undefined);
    assert.equal(placementFailureKind('image-pull: ErrImagePull'), undefined);
  });
});
