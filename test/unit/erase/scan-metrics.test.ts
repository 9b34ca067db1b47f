// Scan mode's failure counter: a failed node of a scan-mode job counts (nothing went there);
// a failed node of any other job, or a scanned node that succeeded, does not.
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { pendingResult } from '../../../src/core/contract/results.js';
import { createEraseMetrics } from '../../../src/core/erase/metrics/metrics.js';

describe('erase scan metrics', () => {
  it('inv_erase_scan_failures_total counts the failed nodes of scan-mode jobs only', async () => {
    const registry = new Registry();
    const m = createEraseMetrics(registry);
    const values = async () =>
      Object.fromEntries(
        (await registry.getSingleMetric('inv_erase_scan_failures_total')!.get()).values.map((v) => [
          String(v.labels.reason),
          v.value,
        ]),
      );
    const value = async () => Object.values(await values()).reduce((a, b) => a + b, 0);
    assert.equal(await value(), 0, 'exported from the start, for the alert');
    assert.equal((await values()).db, 0, 'every reason, at 0');
    const failed = { ...pendingResult('n1'), outcome: 'Failed' as const, reason: 'scan failed' };
    m.nodeScanned!(failed, false, true);
    m.nodeScanned!({ ...failed, node: 'n2' }, false, false);
    m.nodeScanned!(
      { ...pendingResult('n3'), outcome: 'Succeeded', scanMs: 1200, vulnerable: 1 },
      false,
      true,
    );
    assert.equal(await value(), 1);
    assert.equal((await values()).other, 1, 'a node that failed for a reason the text does not name');
    m.nodeScanned!(
      {
        ...failed,
        node: 'n4',
        reason: 'scan failed, nothing removed on this node: the scanner never answered (no scanErase)',
      },
      false,
      true,
    );
    assert.equal((await values())['no-answer'], 1);
    m.nodeScanned!(
      { ...failed, node: 'n5', scanFailed: 9, scanFailures: { db: 8, timeout: 1 }, scanMs: 10 },
      false,
      true,
    );
    const v = await values();
    assert.equal(v.db, 8, 'one per image, by the scanner’s reason');
    assert.equal(v.timeout, 1);
    assert.equal(v.other, 1, 'a node with per-image reasons is not also counted as a whole');
  });
});
