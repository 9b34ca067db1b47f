// The ImageJob status stays compact: a finished job over 5,000 nodes is well under 1 MiB.
import assert from 'node:assert/strict';
import { DEFAULT_CONFIG } from '../../src/core/erase/config.js';
import { encodeResult } from '../../src/core/erase/results.js';
import { podNames, type ImageJob } from '../../src/core/erase/types.js';
import { encodeInventory, type InventoryItem } from '../../src/core/reconciler/inventory.js';

describe('erase: ImageJob size', () => {
  it('5,000 nodes with long (EKS-style) names stay under 1 MiB', () => {
    const job = 'imagelist-12-3f9a1';
    const nodes = Array.from(
      { length: 5000 },
      (_, i) => `ip-10-${(i >> 8) & 255}-${i & 255}-${i % 97}.us-west-2.compute.internal`,
    );
    const pods = podNames(job, nodes);
    const inv: InventoryItem[] = [...pods.values()].map((name) => ({
      group: '',
      version: 'v1',
      kind: 'Pod',
      namespace: 'inv-system',
      name,
      applyOrder: 1,
      deleteOrder: 0,
      deletePolicy: 'Delete',
      digest: '0123456789abcdef',
      phase: 'Completed',
      lastAppliedAt: '2026-01-01T00:00:00Z',
    }));
    const obj: ImageJob = {
      apiVersion: 'erase.imageinventory.dev/v1alpha1',
      kind: 'ImageJob',
      metadata: { name: job, uid: '814709e3-a92d-4936-b1ac-e84321e44fad', resourceVersion: '123456' },
      spec: {
        imageList: { name: 'imagelist', uid: 'x', generation: 12 },
        namespace: 'inv-system',
        images: ['*'],
        config: DEFAULT_CONFIG,
      },
      status: {
        phase: 'Failed',
        desired: 5000,
        succeeded: 4990,
        failed: 10,
        skipped: 0,
        nodes: nodes.map((node, i) =>
          encodeResult({
            node,
            outcome: i < 10 ? 'Failed' : 'Succeeded',
            removed: 123,
            inUse: 17,
            excluded: 4,
            failed: i < 10 ? 1 : 0,
            protected: 1234,
            bytes: 123_456_789_012,
            reason:
              i < 10
                ? 'failed docker.io/library/app:1: rpc error: code = Unknown desc = image is in use'
                : '',
          }),
        ),
        inventory: encodeInventory(inv),
      },
    };
    const bytes = Buffer.byteLength(JSON.stringify(obj));
    process.stderr.write(
      `      (ImageJob at 5,000 nodes: ${bytes} bytes = ${(bytes / 1048576).toFixed(2)} MiB)\n`,
    );
    assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
  });
});
