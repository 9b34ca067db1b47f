// Scans that failed (scan-failures.ts): the scanner's extension file, read strictly; a candidate
// it names is scan-failed with the scanner's words, never clean; a kept image's failure is only
// reported; the worker's summary carries the counts by reason, and the node is Failed for them.
import assert from 'node:assert/strict';
import {
  nodeFailureReason,
  parseScanFailures,
  serializeScanFailures,
} from '../../../src/core/contract/scan-failures.js';
import { resultFromPod } from '../../../src/core/contract/results.js';
import { narrow } from '../../../src/core/noderemove/vuln-scan/answer.js';
import type { Decision } from '../../../src/core/noderemove/types.js';
import { scanAndNarrow, type ScanOptions } from '../../../src/core/noderemove/vuln-scan/exchange.js';
import { scannerExit } from '../../../src/core/erase/imagejob/pod.js';
import { SCAN_ERASE } from '../../../src/core/contract/scanner-contract.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { id } from './scan-fixtures.js';

const d = (c: string, action: 'remove' | 'keep', outcome: Decision['outcome'] = 'remove'): Decision => ({
  target: '*',
  imageId: id(c),
  aliases: [`docker.io/library/${c}:1`, id(c)],
  size: 10,
  action,
  outcome: action === 'remove' ? 'remove' : outcome,
  detail: '',
});
const policy = { deleteFailedImages: false, deleteEOLImages: false };
const DB = 'Trivy exited 1: FATAL init error: DB error: failed to open db: invalid data';

describe('failed scans', () => {
  it('reads the extension file strictly; unknown reasons are other; messages are bounded', () => {
    const text = serializeScanFailures([{ image_id: id('a'), reason: 'db', message: 'x'.repeat(500) }]);
    const [f] = parseScanFailures(text);
    assert.equal(f!.reason, 'db');
    assert.equal(f!.message.length, 300);
    assert.equal(parseScanFailures('[{"image_id":"sha256:1","reason":"weird"}]')[0]!.reason, 'other');
    assert.throws(() => parseScanFailures('{'), /scanFailed is not JSON/);
    assert.throws(() => parseScanFailures('{}'), /scanFailed is not a list/);
    assert.throws(() => parseScanFailures('[{"reason":"db"}]'), /entry 0 of scanFailed has no image_id/);
  });

  it('a candidate the scanner could not judge is scan-failed with its words; a kept one is only reported', () => {
    const ds = [d('a', 'remove'), d('b', 'remove'), d('c', 'keep', 'in-use')];
    const failures = [
      { image_id: id('a'), reason: 'db' as const, message: DB },
      { image_id: id('c'), reason: 'scanner-error' as const, message: 'crash' },
      { image_id: id('9'), reason: 'db' as const, message: DB },
    ];
    const n = narrow(ds, [], policy, failures);
    assert.deepEqual(
      n.decisions.map((x) => [x.outcome, x.detail]),
      [
        ['scan-failed', DB],
        ['clean', 'the scanner found nothing'],
        ['in-use', ''],
      ],
    );
    assert.deepEqual(
      n.failures.map((f) => f.image_id),
      [id('a')],
      'only the candidate counts',
    );
    assert.equal(n.vulns.get(id('c'))?.status, 'scan-failed', 'the kept one is reported');
    assert.match(n.warnings.join('\n'), /could not judge 1 image\(s\) kept anyway/);
    // With deleteFailedImages the scanner names the image too: it goes, and still counts as failed.
    const named = narrow(
      ds,
      [{ id: id('a'), vuln: { status: 'scan-failed' } }],
      { ...policy, deleteFailedImages: true },
      failures,
    );
    assert.equal(named.decisions[0]!.action, 'remove');
    assert.equal(named.failures.length, 1);
  });

  it('a worker summary with failed scans fails its node with the count and the first reason', () => {
    const message = JSON.stringify({
      node: 'n1',
      counts: { 'scan-failed': 9, 'in-use': 2 },
      bytes: 0,
      scan: { c: 9, v: 0, k: 0, n: 0, s: '', ms: 10, x: { db: 9 } },
      results: [{ t: '*', i: id('a'), o: 'scan-failed', e: DB }],
    });
    const r = resultFromPod('n1', { phase: 'Failed', exitCode: 1, message });
    assert.equal(r.outcome, 'Failed');
    assert.equal(r.scanFailed, 9);
    assert.deepEqual(r.scanFailures, { db: 9 });
    assert.equal(r.reason, `9 images could not be scanned (kept unless deleteFailedImages): ${DB}`);
    const bad = resultFromPod('n1', {
      phase: 'Failed',
      message: JSON.stringify({ counts: {}, scan: { x: { db: 0.5 } } }),
    });
    assert.match(bad.reason, /the worker's report is invalid: scan\.x\.db is 0\.5/);
  });

  it('a whole node that failed gets a reason code from its reason', () => {
    for (const [text, code] of [
      ['the scanner exited with code 1 (Error) before the worker finished', 'scanner-exit'],
      ['scan failed, nothing removed on this node: the scanner never answered (no scanErase)', 'no-answer'],
      ["scan failed, nothing removed on this node: the scanner's answer is not JSON (x)", 'invalid-answer'],
      ['scan failed, nothing removed on this node: scanFailed is not a list', 'invalid-answer'],
      ['scan failed: the scanner configuration /c is not the one the controller wrote', 'config-mismatch'],
      ['cannot reach the runtime', 'other'],
    ] as const)
      assert.equal(nodeFailureReason(text), code, text);
  });
});

describe("a whole node's failed scan, as the producers word it", () => {
  // The metric's reason code is read from the words the worker and the controller write: these
  // drive the real producers, so rewording one fails here instead of counting as "other".
  const candidates = [d('a', 'remove')];
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scan-fail-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const exchange = (extra: Partial<ScanOptions> = {}) =>
    scanAndNarrow(candidates, { dir, timeoutMs: 300, completeWaitMs: 100, ...policy, ...extra });

  it('a scanner that never answers: no-answer', async () => {
    const { report } = await exchange();
    assert.ok(report.failed, 'the scan failed');
    assert.equal(nodeFailureReason(report.failed), 'no-answer', report.failed);
  });

  it('an answer that is not JSON, or one over the limit: invalid-answer', async () => {
    fs.writeFileSync(path.join(dir, SCAN_ERASE), 'not json');
    const garbage = (await exchange()).report.failed!;
    assert.equal(nodeFailureReason(garbage), 'invalid-answer', garbage);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, SCAN_ERASE), `[${'"x",'.repeat(100)}"x"]`);
    const big = (await exchange({ maxAnswerBytes: 64 })).report.failed!;
    assert.equal(nodeFailureReason(big), 'invalid-answer', big);
  });

  it('a scanner configuration that is not the one written: config-mismatch', async () => {
    const configFile = path.join(dir, 'config.yaml');
    fs.writeFileSync(configFile, 'changed');
    const { report } = await exchange({ configFile, configSha256: '0'.repeat(64) });
    assert.equal(nodeFailureReason(report.failed!), 'config-mismatch', report.failed);
  });

  it('a scanner container that exited with an error: scanner-exit', () => {
    const finishedAt = new Date(Date.now() - 60_000).toISOString();
    const exit = scannerExit(
      {
        status: {
          containerStatuses: [
            { name: 'scanner', state: { terminated: { exitCode: 2, reason: 'Error', finishedAt } } },
          ],
        },
      } as Parameters<typeof scannerExit>[0],
      'scanner',
      new Date(),
      5,
    );
    assert.ok(exit && 'reason' in exit, 'the node fails');
    assert.equal(nodeFailureReason(exit.reason), 'scanner-exit', exit.reason);
  });
});

describe('reading scanFailed', () => {
  it('absent is undefined; a link, a folder or too many bytes is an error', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { readScanFailed } = await import('../../../src/core/noderemove/vuln-scan/pipes.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scanfailed-'));
    try {
      assert.equal(readScanFailed(dir), undefined);
      fs.writeFileSync(path.join(dir, 'target'), '[]');
      fs.symlinkSync(path.join(dir, 'target'), path.join(dir, 'scanFailed'));
      assert.throws(() => readScanFailed(dir), /scanFailed cannot be read: ELOOP/);
      fs.rmSync(path.join(dir, 'scanFailed'));
      fs.mkdirSync(path.join(dir, 'scanFailed'));
      assert.throws(() => readScanFailed(dir), /scanFailed is not a regular file/);
      fs.rmSync(path.join(dir, 'scanFailed'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'scanFailed'), 'x'.repeat(101));
      assert.throws(() => readScanFailed(dir, 100), /scanFailed is more than 100 bytes/);
      fs.writeFileSync(path.join(dir, 'scanFailed'), '[]');
      assert.equal(readScanFailed(dir, 100), '[]');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
