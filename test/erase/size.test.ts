// The ImageJob status stays compact: a finished job over 5,000 nodes is well under 1 MiB.
import assert from 'node:assert/strict';
import { DEFAULT_CONFIG } from '../../src/core/erase/config/config.js';
import {
  encodeResult,
  encodeResults,
  MAX_REASON,
  REASONS_BUDGET,
  type NodeResult,
} from '../../src/core/erase/api/results.js';
import { podNames, type ImageJob } from '../../src/core/erase/api/types.js';
import { encodeInventory, type InventoryItem } from '../../src/core/apply-inventory/items.js';

/** The JSON size of a finished 5,000-node ImageJob holding `lines` as its node results. */
function jobBytes(nodes: string[], lines: string[]): number {
  const job = 'imagelist-12-3f9a1';
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
      nodes: lines,
      inventory: encodeInventory(inv),
    },
  };
  return Buffer.byteLength(JSON.stringify(obj));
}

const NODES = Array.from(
  { length: 5000 },
  (_, i) => `ip-10-${(i >> 8) & 255}-${i & 255}-${i % 97}.us-west-2.compute.internal`,
);
const result = (node: string, over: Partial<NodeResult>): NodeResult => ({
  node,
  outcome: 'Succeeded',
  removed: 123,
  inUse: 17,
  excluded: 4,
  failed: 0,
  protected: 1234,
  bytes: 123_456_789_012,
  reason: '',
  ...over,
});

describe('erase: ImageJob size', () => {
  it('5,000 nodes with long (EKS-style) names stay under 1 MiB', () => {
    const lines = NODES.map((node, i) =>
      encodeResult(
        result(
          node,
          i < 10
            ? {
                outcome: 'Failed',
                failed: 1,
                reason: 'failed docker.io/library/app:1: rpc error: code = Unknown desc = image is in use',
              }
            : {},
        ),
      ),
    );
    const bytes = jobBytes(NODES, lines);
    process.stderr.write(
      `      (ImageJob at 5,000 nodes: ${bytes} bytes = ${(bytes / 1048576).toFixed(2)} MiB)\n`,
    );
    assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
  });

  it('5,000 failing nodes with long reasons stay under 1 MiB: the reasons share one budget', () => {
    const lines = encodeResults(
      NODES.map((node, i) =>
        result(node, {
          outcome: 'Failed',
          failed: 1,
          reason: `timeout: Pod imagelist-12-3f9a1-${i} Pending: Unschedulable: 0/5000 nodes are available: ${'x'.repeat(300)}`,
        }),
      ),
    );
    const reasons = lines.reduce((n, l) => n + l.split('|')[8]!.length, 0);
    assert.ok(reasons <= REASONS_BUDGET, `${reasons} bytes of reasons`);
    assert.ok(lines[0]!.split('|')[8]!.startsWith('timeout: Pod'), lines[0]);
    const bytes = jobBytes(NODES, lines);
    process.stderr.write(`      (ImageJob at 5,000 failing nodes: ${(bytes / 1048576).toFixed(2)} MiB)\n`);
    assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
    // A few failing nodes keep their reasons whole (up to 200 characters).
    const few = encodeResults([result('a', { outcome: 'Failed', reason: 'y'.repeat(250) })]);
    assert.equal(few[0]!.split('|')[8]!.length, MAX_REASON);
  });
});
