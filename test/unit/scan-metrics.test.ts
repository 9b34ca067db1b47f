// Scan mode's failure counter: a failed node of a scan-mode job counts (nothing went there);
// a failed node of any other job, or a scanned node that succeeded, does not.
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { pendingResult } from '../../src/core/erase/api/results.js';
import { createEraseMetrics } from '../../src/core/erase/metrics.js';

describe('erase scan metrics', () => {
  it('inv_erase_scan_failures_total counts the failed nodes of scan-mode jobs only', async () => {
    const registry = new Registry();
    const m = createEraseMetrics(registry);
    const value = async () =>
      (await registry.getSingleMetric('inv_erase_scan_failures_total')!.get()).values[0]!.value;
    assert.equal(await value(), 0, 'exported from the start, for the alert');
    const failed = { ...pendingResult('n1'), outcome: 'Failed' as const, reason: 'scan failed' };
    m.nodeScanned!(failed, false, true);
    m.nodeScanned!({ ...failed, node: 'n2' }, false, false);
    m.nodeScanned!(
      { ...pendingResult('n3'), outcome: 'Succeeded', scanMs: 1200, vulnerable: 1 },
      false,
      true,
    );
    assert.equal(await value(), 1);
  });
});
