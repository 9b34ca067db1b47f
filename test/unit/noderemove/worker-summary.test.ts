// The worker's wire contract (contract/worker-summary.ts) against its other statements: the
// JSON schema of `inv erase -o json` and docs/erase.md's table name exactly its outcomes, and a summary the worker writes
// is read back, row by row and count by count, by the controller's and the requester's readers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OUTCOME_COUNTS, OUTCOMES } from '../../../src/core/contract/worker-summary.js';
import { resultFromPod } from '../../../src/core/contract/results.js';
import { podImages } from '../../../src/core/erase-request/report.js';
import { terminationSummary } from '../../../src/core/noderemove/summary.js';
import type { Report, Result } from '../../../src/core/noderemove/types.js';
import { repoRoot } from '../../support/paths.js';

function outcomeEnum(o: unknown): string[] | undefined {
  if (!o || typeof o !== 'object') return undefined;
  const p = (o as { properties?: Record<string, { enum?: string[] }> }).properties;
  if (p?.outcome?.enum && p.target) return p.outcome.enum;
  for (const v of Object.values(o)) {
    const r = outcomeEnum(v);
    if (r) return r;
  }
  return undefined;
}

describe('erase: the worker summary contract (pure)', () => {
  it("docs/erase.md's outcomes table lists the contract's outcomes, in order, counted as it counts them", () => {
    const page = fs.readFileSync(path.join(repoRoot, 'docs/erase.md'), 'utf8');
    const from = page.indexOf('**Outcomes.**');
    assert.ok(from >= 0, 'docs/erase.md has its "Outcomes" paragraph');
    // The table under it: up to the first blank line after its rows.
    const text = page.slice(from, page.indexOf('\n\n', page.indexOf('\n|', from)));
    const rows = [...text.matchAll(/^\| `([a-z-]+)` \| *(\w*) *\|/gm)].map((m) => ({
      outcome: m[1]!,
      counts: m[2] || null,
    }));
    assert.deepEqual(
      rows.map((r) => r.outcome),
      [...OUTCOMES],
    );
    for (const { outcome, counts } of rows)
      assert.equal(counts, OUTCOME_COUNTS[outcome as keyof typeof OUTCOME_COUNTS], outcome);
  });

  it("the EraseReport schema's image outcomes are the contract's", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'docs/schemas/EraseReport.json'), 'utf8'));
    assert.deepEqual([...outcomeEnum(schema)!].sort(), [...OUTCOMES].sort());
  });

  it('every outcome written by a worker is read back and counted as the contract says', () => {
    const results: Result[] = OUTCOMES.map((o, i) => ({
      target: `t${i}`,
      imageId: `sha256:${String(i).padStart(64, '0')}`,
      aliases: [],
      size: 0,
      outcome: o,
      error: '',
      detail: '',
    }));
    const report: Report = {
      node: 'n',
      runtime: { name: 'containerd', version: '2', apiVersion: 'v1' },
      results,
    };
    const message = terminationSummary(report, 1 << 20);
    const rows = podImages({
      metadata: { name: 'p' },
      status: { containerStatuses: [{ state: { terminated: { exitCode: 0, message } } }] },
    } as never)!;
    assert.deepEqual(
      rows.images.map((r) => r.outcome),
      [...OUTCOMES],
    );
    const node = resultFromPod('n', { phase: 'Succeeded', exitCode: 0, message });
    const want = { removed: 0, inUse: 0, excluded: 0, failed: 0, protected: 0 };
    for (const o of OUTCOMES) if (OUTCOME_COUNTS[o]) want[OUTCOME_COUNTS[o]!]++;
    assert.deepEqual(
      {
        removed: node.removed,
        inUse: node.inUse,
        excluded: node.excluded,
        failed: node.failed,
        protected: node.protected,
      },
      want,
    );
  });

  it('an outcome this version does not know reads as failed, naming it', () => {
    const message = JSON.stringify({ counts: {}, results: [{ t: 'x', i: '', o: 'vaporized' }] });
    const rows = podImages({
      metadata: { name: 'p' },
      status: { containerStatuses: [{ state: { terminated: { exitCode: 0, message } } }] },
    } as never)!;
    assert.deepEqual(rows.images[0], {
      target: 'x',
      image: '',
      names: [],
      size: 0,
      outcome: 'failed',
      detail: 'unknown outcome "vaporized"',
    });
  });
});
