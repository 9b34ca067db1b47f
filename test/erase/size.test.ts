// The ImageJob stays within 1 MiB at 5,000 nodes: its per-node results (structured objects,
// node-status.ts) and its inventory (one compact line per worker Pod), measured as the JSON the
// API server stores.
import assert from 'node:assert/strict';
import { DEFAULT_CONFIG } from '../../src/core/erase/config/config.js';
import { MAX_REASON, REASONS_BUDGET, type NodeResult } from '../../src/core/contract/results.js';
import { encodeNodes, type NodeStatus } from '../../src/core/erase/api/node-status.js';
import { DEFAULT_NAMESPACE, podNames, type ImageJob } from '../../src/core/erase/api/types.js';
import { type InventoryItem } from '../../src/core/apply-inventory/items.js';
import { encodeInventory } from '../../src/core/apply-inventory/item-lines.js';

const MiB = 1024 * 1024;

/** A finished 5,000-node ImageJob holding `nodes` as its node results. */
export function bigJob(names: string[], nodes: NodeStatus[]): ImageJob {
  const job = 'imagelist-12-3f9a1';
  const pods = podNames(job, names);
  const inv: InventoryItem[] = [...pods.values()].map((name, i) => ({
    group: '',
    version: 'v1',
    kind: 'Pod',
    namespace: DEFAULT_NAMESPACE,
    name,
    applyOrder: 1,
    deleteOrder: 0,
    deletePolicy: 'Delete',
    // Each node's Pod differs (its node name), so does its digest.
    digest: (0x1000000000000000 + i * 7919).toString(16),
    phase: 'Completed',
    lastAppliedAt: '2026-01-01T00:00:00Z',
  }));
  return {
    apiVersion: 'erase.imageinventory.dev/v1alpha1',
    kind: 'ImageJob',
    metadata: { name: job, uid: '814709e3-a92d-4936-b1ac-e84321e44fad', resourceVersion: '123456' },
    spec: {
      imageList: { name: 'imagelist', uid: 'x', generation: 12 },
      namespace: DEFAULT_NAMESPACE,
      images: ['*'],
      config: DEFAULT_CONFIG,
    },
    status: {
      phase: 'Failed',
      desired: names.length,
      succeeded: names.length - 10,
      failed: 10,
      skipped: 0,
      freed: '574.9 TB',
      nodes,
      inventory: encodeInventory(inv),
    },
  };
}

export const NODES = Array.from(
  { length: 5000 },
  (_, i) => `ip-10-${(i >> 8) & 255}-${i & 255}-${i % 97}.us-west-2.compute.internal`,
);
/** A busy node of a `*` prune: every count in use, 115 GB freed. */
export const busy = (node: string, over: Partial<NodeResult> = {}): NodeResult => ({
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
const bytesOf = (o: unknown) => Buffer.byteLength(JSON.stringify(o));

describe('erase: ImageJob size', () => {
  it('5,000 busy nodes with long (EKS-style) names stay under 1 MiB', () => {
    const nodes = encodeNodes(
      NODES.map((node, i) =>
        busy(
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
    const job = bigJob(NODES, nodes);
    const bytes = bytesOf(job);
    process.stderr.write(
      `      (ImageJob at 5,000 nodes: ${bytes} bytes = ${(bytes / MiB).toFixed(2)} MiB; status.nodes ${(bytesOf(nodes) / MiB).toFixed(2)} MiB, status.inventory ${(bytesOf(job.status!.inventory) / MiB).toFixed(2)} MiB)\n`,
    );
    assert.ok(bytes < MiB, `${bytes} bytes`);
    assert.equal(nodes[10]!.inUse, 17, 'busy nodes keep every count');
  });

  it('5,000 failing nodes with long reasons stay under 1 MiB: the reasons share one budget', () => {
    const nodes = encodeNodes(
      NODES.map((node, i) =>
        busy(node, {
          outcome: 'Failed',
          failed: 1,
          reason: `timeout: Pod imagelist-12-3f9a1-${i} Pending: Unschedulable: 0/5000 nodes are available: ${'x'.repeat(300)}`,
        }),
      ),
    );
    const reasons = nodes.reduce((n, e) => n + String(e.reason).length, 0);
    assert.ok(reasons <= REASONS_BUDGET, `${reasons} bytes of reasons`);
    assert.ok(String(nodes[0]!.reason).startsWith('timeout: Pod'), String(nodes[0]!.reason));
    const bytes = bytesOf(bigJob(NODES, nodes));
    process.stderr.write(`      (ImageJob at 5,000 failing nodes: ${(bytes / MiB).toFixed(2)} MiB)\n`);
    assert.ok(bytes < MiB, `${bytes} bytes`);
    // Past NODES_BUDGET the counts no total is made of are left out; the totals' stay.
    assert.deepEqual(
      [nodes[0]!.inUse, nodes[0]!.protected, nodes[0]!.bytes],
      [undefined, 1234, 123_456_789_012],
    );
    // A few failing nodes keep their reasons whole (up to 200 characters).
    const few = encodeNodes([busy('a', { outcome: 'Failed', reason: 'y'.repeat(250) })]);
    assert.equal(String(few[0]!.reason).length, MAX_REASON);
  });
});
