// Pure: what a scan's results become. The worker's summary carries the scan and the node result,
// the report rows and the metrics read it; the node's end is the worker container's (a scanner
// that fails stops the wait after a grace); status.nodes keeps the scan counts within its budget.
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { createEraseMetrics } from '../../../src/core/erase/metrics/metrics.js';
import { pendingResult, resultFromPod } from '../../../src/core/contract/results.js';
import { terminationSummary } from '../../../src/core/noderemove/summary.js';
import { podImages } from '../../../src/core/erase-request/report.js';
import { scannerExit, workerPhase, type PodLike } from '../../../src/core/erase/imagejob/pod.js';
import { decodeNodes, encodeNodes, NODES_BUDGET } from '../../../src/core/erase/api/node-status.js';
import { id } from './scan-fixtures.js';

describe('scan mode (pure)', () => {
  it("the worker's summary carries the scan; the node result, the report rows and the metrics read it", async () => {
    const report = {
      node: 'n1',
      runtime: { name: 'containerd', version: '2', apiVersion: 'v1' },
      results: [
        {
          target: '*',
          imageId: id('a'),
          aliases: [],
          size: 5,
          outcome: 'removed' as const,
          error: '',
          detail: '',
          vuln: { status: 'vulnerable' as const, cveCount: 4, highestSeverity: 'CRITICAL', cves: ['CVE-1'] },
        },
        {
          target: '*',
          imageId: id('b'),
          aliases: [],
          size: 5,
          outcome: 'vulnerable-kept' as const,
          error: '',
          detail: 'in-use: container x',
          vuln: { status: 'vulnerable' as const },
        },
        {
          target: '*',
          imageId: id('c'),
          aliases: [],
          size: 5,
          outcome: 'clean' as const,
          error: '',
          detail: '',
        },
      ],
      scan: { candidates: 2, vulnerable: 1, kept: 1, cves: 4, highestSeverity: 'CRITICAL', ms: 2500 },
    };
    const message = terminationSummary(report);
    const r = resultFromPod('n1', { phase: 'Succeeded', message });
    assert.deepEqual(
      [r.outcome, r.removed, r.vulnerable, r.vulnerableKept, r.cves, r.highestSeverity, r.scanMs],
      ['Succeeded', 1, 1, 1, 4, 'CRITICAL', 2500],
    );
    const rows = podImages({
      metadata: { name: 'p' },
      status: { containerStatuses: [{ state: { terminated: { message } } }] },
    });
    assert.deepEqual(rows!.images[0]!.vulnerability, { cves: 4, severity: 'CRITICAL', ids: ['CVE-1'] });
    assert.deepEqual(rows!.images[1]!.vulnerability, { cves: null, severity: '', ids: [] });
    assert.equal(rows!.images[1]!.detail, 'in-use: container x');

    const registry = new Registry();
    const m = createEraseMetrics(registry);
    m.nodeScanned!(r, false);
    m.nodeScanned!(pendingResult('n2'), false); // not a scan: nothing counted
    const text = await registry.metrics();
    assert.match(text, /inv_erase_vulnerable_images_total\{result="removed"\} 1/);
    assert.match(text, /inv_erase_vulnerable_images_total\{result="kept"\} 1/);
    assert.match(text, /inv_erase_scan_duration_seconds_count 1/);
    assert.match(text, /inv_erase_scan_duration_seconds_bucket\{le="5"\} 1/);
  });

  it("the node's end is the worker container's; a scanner that exits with an error stops the wait after the grace", () => {
    const pod = (remover: object, scanner: object, phase = 'Running'): PodLike => ({
      status: {
        phase,
        containerStatuses: [
          { name: 'remover', state: remover },
          { name: 'scanner', state: scanner },
        ],
      },
    });
    const now = new Date('2026-01-01T00:00:10Z');
    assert.equal(workerPhase(pod({ running: {} }, { running: {} }), 'remover'), undefined);
    assert.equal(workerPhase(pod({ terminated: { exitCode: 0 } }, { running: {} }), 'remover'), 'Succeeded');
    // The scanner failing after the worker finished makes the Pod Failed, not the node.
    assert.equal(
      workerPhase(pod({ terminated: { exitCode: 0 } }, { terminated: { exitCode: 2 } }, 'Failed'), 'remover'),
      'Succeeded',
    );
    assert.equal(
      workerPhase(pod({ terminated: { exitCode: 1 } }, { terminated: { exitCode: 0 } }, 'Failed'), 'remover'),
      'Failed',
    );
    const crashed = pod(
      { running: {} },
      { terminated: { exitCode: 1, reason: 'Error', message: 'boom\n', finishedAt: '2026-01-01T00:00:05Z' } },
    );
    assert.deepEqual(scannerExit(crashed, 'scanner', now, 15), { retryInMs: 5000 });
    assert.match(
      (scannerExit(crashed, 'scanner', now, 3) as { reason: string }).reason,
      /^the scanner exited with code 1 \(Error: boom\) before the worker finished/,
    );
    assert.equal(
      scannerExit(pod({ running: {} }, { terminated: { exitCode: 0 } }), 'scanner', now, 3),
      undefined,
    );
  });

  it('scan results are stored in status.nodes, and 5,000 scanned nodes stay within the budget', () => {
    const r = {
      ...pendingResult('node-00001-abcdefghij'),
      outcome: 'Succeeded' as const,
      removed: 12,
      inUse: 30,
      excluded: 2,
      protected: 40,
      bytes: 123456789012,
      vulnerable: 12,
      vulnerableKept: 3,
      cves: 1234,
      highestSeverity: 'CRITICAL',
      scanMs: 123456,
    };
    assert.deepEqual(decodeNodes(encodeNodes([r])), [r]);
    const many = Array.from({ length: 5000 }, (_, i) => ({
      ...r,
      node: `node-${String(i).padStart(5, '0')}-abcdefghij`,
    }));
    const stored = encodeNodes(many);
    assert.ok(Buffer.byteLength(JSON.stringify(stored)) <= NODES_BUDGET);
    assert.equal(decodeNodes(stored)[0]!.vulnerable, 12, 'the count the totals are made of is kept');
  });
});
