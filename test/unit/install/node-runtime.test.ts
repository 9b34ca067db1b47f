import assert from 'node:assert/strict';
import { runtimeLabel, runtimesByNode } from '../../../src/core/check/node-runtime.js';

describe('inv check --nodes: the runtime of each node', () => {
  it('reads the kubelet scheme://version form of each runtime', () => {
    assert.equal(runtimeLabel('cri-o://1.34.0'), 'cri-o 1.34.0');
    assert.equal(runtimeLabel('containerd://1.6.20'), 'containerd 1.6.20');
    assert.equal(runtimeLabel('containerd://v2.4.2'), 'containerd v2.4.2');
    assert.equal(runtimeLabel('odd'), 'odd');
    assert.equal(runtimeLabel(undefined), '');
  });

  it('maps node names to labels, leaving out nodes that report none', () => {
    const m = runtimesByNode([
      { metadata: { name: 'a' }, status: { nodeInfo: { containerRuntimeVersion: 'cri-o://1.34.0' } } },
      { metadata: { name: 'b' }, status: {} },
      { status: { nodeInfo: { containerRuntimeVersion: 'containerd://1.6.20' } } },
    ]);
    assert.deepEqual([...m], [['a', 'cri-o 1.34.0']]);
  });
});
