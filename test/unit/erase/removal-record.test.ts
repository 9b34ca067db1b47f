// The removal record's pure parts: the worker's log read into rows (bounded, untrusted), rows cut
// into parts under the byte bound, the retention's choice (age, objects, bytes, oldest first),
// its configuration, the history's filters and merge, and its table within 80 columns.
import assert from 'node:assert/strict';
import {
  parseWorkerLog,
  RECORD_IMAGES_PER_NODE,
  recordParts,
  type RecordRow,
} from '../../../src/core/contract/removal-record.js';
import { recordsToPrune } from '../../../src/core/erase/api/record-prune.js';
import { recordObjects } from '../../../src/core/erase/api/record.js';
import { parseConfig, ConfigError } from '../../../src/core/erase/config/config.js';
import { DEFAULT_RECORD_RETENTION } from '../../../src/core/erase/config/record-retention.js';
import { mergeParts } from '../../../src/core/erase-request/history.js';
import { historyDocument } from '../../../src/core/erase-request/history-report.js';
import { completeHistoryOptions } from '../../../src/cli/erase/history-options.js';
import { renderHistory } from '../../../src/cli/erase/render-history.js';
import { visibleLength } from '../../../src/cli/output/table.js';
import { pendingResult } from '../../../src/core/contract/results.js';

const report = (n: number) =>
  JSON.stringify(
    {
      node: 'n1',
      results: Array.from({ length: n }, (_, i) => ({
        target: '*',
        imageId: `sha256:${String(i).padStart(64, '0')}`,
        aliases: [`docker.io/library/app-${i}:1`, `sha256:${String(i).padStart(64, '0')}`],
        size: 1000 + i,
        outcome: i % 2 ? 'would-remove' : 'in-use',
        error: '',
        reason: i % 2 ? '' : 'used by a container',
      })),
    },
    null,
    2,
  );

describe('removal record', () => {
  it('reads every row of the report in a log that has warnings before it', () => {
    const log = `warning: something odd\nwarning: another\n${report(3)}\n`;
    const p = parseWorkerLog(log);
    assert.equal(p.problem, '');
    assert.equal(p.rows.length, 3);
    assert.deepEqual(p.rows[0], {
      id: `sha256:${'0'.repeat(64)}`,
      names: ['docker.io/library/app-0:1'],
      outcome: 'in-use',
      size: 1000,
      target: '*',
      reason: 'used by a container',
    });
    assert.equal(p.rows[1]!.reason, undefined);
  });

  it('keeps 5,000 rows of a node and counts the rest', () => {
    const p = parseWorkerLog(report(RECORD_IMAGES_PER_NODE + 7));
    assert.equal(p.rows.length, RECORD_IMAGES_PER_NODE);
    assert.equal(p.beyond, 7);
  });

  it('says why when the log holds no report, or a broken one, and drops rows it cannot read', () => {
    assert.match(parseWorkerLog('error: runtime unreachable\n').problem, /no report/);
    assert.match(parseWorkerLog('{\n  "results": [\n').problem, /not JSON/);
    const odd = parseWorkerLog(
      '{\n"results": [{"outcome": "exploded"}, 7, {"outcome": "removed", "size": -1}]}',
    );
    assert.deepEqual(odd.rows, [{ id: '', names: [], outcome: 'removed', size: 0, target: '' }]);
  });

  it('cuts rows into parts under the byte bound, never an empty part, always one', () => {
    const rows = parseWorkerLog(report(1000)).rows;
    const parts = recordParts(rows, 32 * 1024);
    assert.ok(parts.length > 1);
    assert.deepEqual(parts.flat(), rows);
    for (const p of parts) assert.ok(Buffer.byteLength(JSON.stringify(p)) <= 32 * 1024 + 2);
    assert.deepEqual(recordParts([]), [[]]);
    const objs = recordObjects({
      job: { name: 'j', uid: 'u', list: 'l', dryRun: true },
      pod: 'j-abc',
      result: { ...pendingResult('n1'), outcome: 'Succeeded' },
      finishedAt: new Date('2026-12-05T10:00:00.123Z'),
      log: { rows, beyond: 0, problem: '' },
    });
    assert.deepEqual(
      objs.map((o) => [o.metadata.name, o.spec.part, o.spec.parts, o.spec.recorded]),
      objs.map((_, i) => [`j-abc-r${i + 1}`, i + 1, objs.length, 1000]),
    );
    assert.equal(objs[0]!.spec.finishedAt, '2026-12-05T10:00:00Z');
  });

  it('prunes past the age, then the oldest past the object and byte bounds', () => {
    const now = new Date('2026-12-31T00:00:00Z');
    const day = 86_400_000;
    const rec = (name: string, daysAgo: number, bytes = 10) => ({
      name,
      finishedAt: now.getTime() - daysAgo * day,
      bytes,
    });
    const r = { retentionSeconds: 30 * 86400, maxObjects: 3, maxBytes: 1000 };
    assert.deepEqual(recordsToPrune([rec('new', 1), rec('old', 31), rec('mid', 10)], now, r), ['old']);
    assert.deepEqual(
      recordsToPrune([rec('a', 4), rec('b', 3), rec('c', 2), rec('d', 1), rec('e', 0)], now, r),
      ['a', 'b'],
    );
    assert.deepEqual(recordsToPrune([rec('a', 2, 600), rec('b', 1, 600)], now, r), ['a']);
    assert.deepEqual(recordsToPrune([{ name: 'x', finishedAt: NaN, bytes: 1 }, rec('y', 1)], now, r), ['x']);
  });

  it("is configured under the erase configuration's record key", () => {
    assert.deepEqual(parseConfig('').record, DEFAULT_RECORD_RETENTION);
    assert.deepEqual(parseConfig('record: {retention: 7d, maxObjects: 10, maxBytes: 1Mi}').record, {
      retentionSeconds: 7 * 86400,
      maxObjects: 10,
      maxBytes: 1024 ** 2,
    });
    assert.throws(() => parseConfig('record: {retention: 0s}'), ConfigError);
    assert.throws(() => parseConfig('record: {maxObjects: 0}'), /record.maxObjects/);
    assert.throws(() => parseConfig('record: {keep: 1}'), /record.keep: unknown key/);
  });

  it('history: options checked together, parts merged, the table within 80 columns', () => {
    const now = new Date('2026-12-05T12:00:00Z');
    const bad = completeHistoryOptions(undefined, { outcome: 'gone', since: 'yesterday' } as never, now);
    assert.equal(bad.problems.length, 2, bad.problems.join('\n'));
    const ok = completeHistoryOptions(undefined, { since: '24h', output: 'table' } as never, now);
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.options.filter.since?.toISOString(), '2026-12-04T12:00:00.000Z');

    const row = (i: number): RecordRow => ({
      id: `sha256:${String(i).padStart(64, 'a')}`,
      names: [`registry.example.com/team/a-rather-long-repository-name/app-${i}:v1.2.3`],
      outcome: 'removed',
      size: 123456,
      target: '*',
      reason: i ? '' : 'a long reason that someone wrote about why the image was kept on this node',
    });
    const spec = (part: number, rows: RecordRow[]) => ({
      job: 'nightly-s202612050200-abcde',
      jobUID: 'u',
      imageList: 'nightly',
      node: 'worker-node-with-a-long-name-01.example.internal',
      outcome: 'Succeeded',
      reason: '',
      dryRun: false,
      finishedAt: '2026-12-05T02:00:00Z',
      counts: {},
      part,
      parts: 3,
      recorded: 3,
      beyond: 0,
      unrecorded: '',
      rows,
    });
    const merged = mergeParts([spec(2, [row(1)]), spec(1, [row(0)])]);
    assert.equal(merged.length, 1);
    assert.deepEqual(
      merged[0]!.rows.map((r) => r.id),
      [row(0).id, row(1).id],
    );
    assert.equal(merged[0]!.missingParts, 1);
    const out = renderHistory(historyDocument(merged), now.getTime(), { width: 80 });
    for (const line of out.trimEnd().split('\n')) assert.ok(visibleLength(line) <= 80, line);
    assert.match(out, /^AGE\s+NODE\s+OUTCOME\s+SIZE\s+IMAGE\s+REASON/);
  });
});
