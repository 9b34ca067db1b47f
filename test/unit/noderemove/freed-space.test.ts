// Pure: freed space as the runtime measures it, beside the listed sizes' estimate; the worker's
// wait for a figure taken after its removals (its clock and the runtime's answers injected); the
// reasons it is not measured, against the CRDs, the report's schema and the docs that list them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  freedDiffers,
  measuredText,
  NOT_MEASURED,
  readFreed,
} from '../../../src/core/contract/freed-space.js';
import { freedSince, readUsage } from '../../../src/core/noderemove/freed-space.js';
import { countResults, resultFromPod } from '../../../src/core/contract/results.js';
import type { CriFilesystemUsage } from '../../../src/core/cri/messages.js';
import { repoRoot } from '../../support/paths.js';

const MB = 1_000_000;
const fsu = (used: number, atMs: number): CriFilesystemUsage[] => [
  {
    mountpoint: '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs',
    usedBytes: used,
    timestamp: atMs * 1e6,
  },
];
const fmt = (n: number) => `${n / MB} MB`;

describe('erase: freed space measured', () => {
  it('reads the summary: before minus after; usage that grew is not measured (usage-grew), not 0; a reason; nothing else', () => {
    assert.deepEqual(readFreed([500 * MB, 497 * MB]), { bytesMeasured: 3 * MB });
    assert.deepEqual(readFreed([9, 9]), { bytesMeasured: 0 });
    assert.deepEqual(readFreed([5, 9]), { freedNotMeasured: 'usage-grew' });
    assert.deepEqual(readFreed('not-refreshed'), { freedNotMeasured: 'not-refreshed' });
    assert.equal(readFreed('made-up'), undefined);
    assert.equal(readFreed([1.5, 1]), undefined);
    assert.equal(readFreed(undefined), undefined);
  });

  it('a node result keeps the estimate and the measurement side by side', () => {
    const message = JSON.stringify({
      node: 'n',
      counts: { removed: 607 },
      bytes: 1200 * MB,
      fm: [900 * MB, 898 * MB],
    });
    const r = resultFromPod('n', { phase: 'Succeeded', exitCode: 0, message });
    assert.equal(r.bytes, 1200 * MB);
    assert.equal(r.bytesMeasured, 2 * MB);
  });

  it('a node whose usage grew during the run counts as not measured, and its estimate is not set against a 0', () => {
    const node = (name: string, fm: [number, number]) =>
      resultFromPod(name, {
        phase: 'Succeeded',
        exitCode: 0,
        message: JSON.stringify({ node: name, counts: { removed: 1 }, bytes: 50 * MB, fm }),
      });
    const grew = node('a', [900 * MB, 930 * MB]);
    assert.equal(grew.bytesMeasured, undefined);
    assert.equal(grew.freedNotMeasured, 'usage-grew');
    assert.equal(grew.bytes, 50 * MB);
    const c = countResults([grew, node('b', [900 * MB, 860 * MB])]);
    assert.deepEqual([c.bytesMeasured, c.bytesMeasuredEstimate, c.freedNotMeasured], [40 * MB, 50 * MB, 1]);
    assert.equal(
      measuredText(50 * MB, { freedNotMeasured: 'usage-grew' }, fmt),
      " (not measured: the runtime's image file system usage grew during the run (what was written meanwhile outweighs what was freed))",
    );
  });

  it('the reasons written by hand elsewhere are these: the ImageJob CRDs, the EraseReport schema, docs/node-remove.md', () => {
    /** The enum of the first `freedNotMeasured` property of string type, searched depth first. */
    const reasonEnum = (o: unknown): unknown[] | undefined => {
      if (!o || typeof o !== 'object') return undefined;
      const p = (o as { properties?: Record<string, { type?: string; enum?: unknown[] }> }).properties;
      if (p?.freedNotMeasured?.type === 'string') return p.freedNotMeasured.enum;
      for (const v of Object.values(o)) {
        const r = reasonEnum(v);
        if (r) return r;
      }
      return undefined;
    };
    const reasons = Object.keys(NOT_MEASURED);
    for (const f of [
      'crds/erase.imageinventory.dev_imagejobs.yaml',
      'deploy/crds/erase.imageinventory.dev_imagejobs.yaml',
      'charts/inv/crds/erase.imageinventory.dev_imagejobs.yaml',
    ])
      assert.deepEqual(reasonEnum(parse(fs.readFileSync(path.join(repoRoot, f), 'utf8'))), reasons, f);
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'docs/schemas/EraseReport.json'), 'utf8'));
    assert.deepEqual(reasonEnum(schema), reasons);
    const doc = fs.readFileSync(path.join(repoRoot, 'docs/node-remove.md'), 'utf8');
    for (const r of reasons) assert.ok(doc.includes(`\`${r}\``), `docs/node-remove.md names ${r}`);
  });

  it('reports a large difference, in either direction, and not a small one', () => {
    assert.ok(freedDiffers(1200 * MB, 2 * MB));
    assert.ok(freedDiffers(10 * MB, 60 * MB));
    assert.ok(!freedDiffers(100 * MB, 90 * MB));
    assert.ok(!freedDiffers(3 * MB, 0));
    assert.equal(
      measuredText(1200 * MB, { bytesMeasured: 2 * MB }, fmt),
      ', measured 2 MB (the listed sizes count a shared layer once per image)',
    );
    assert.equal(measuredText(100 * MB, { bytesMeasured: 95 * MB }, fmt), ', measured 95 MB');
    assert.match(
      measuredText(100 * MB, { freedNotMeasured: 'not-image-bytes' }, fmt),
      /^ \(not measured: .*layers/,
    );
  });

  it('a figure below the largest image is not the images (CRI-O counts its metadata)', async () => {
    assert.deepEqual(await readUsage(async () => fsu(40_000, 1), 2 * MB), { notMeasured: 'not-image-bytes' });
    assert.deepEqual(await readUsage(async () => [], 0), { notMeasured: 'no-image-fs' });
    assert.deepEqual(await readUsage(async () => Promise.reject(new Error('unimplemented')), 0), {
      notMeasured: 'no-image-fs',
    });
  });

  it('waits for a figure taken after the removals (containerd caches), within its bound', async () => {
    let clock = 1000;
    const answers = [fsu(500, 900), fsu(500, 990), fsu(470, 1004)];
    const info = async () => answers.shift() ?? fsu(470, 1004);
    const opts = { now: () => clock, sleep: async (ms: number) => void (clock += ms), waitMs: 30_000 };
    assert.deepEqual(await freedSince(info, { used: 500, atMs: 900 }, 1000, opts), [500, 470]);
    clock = 1000;
    const stale = async () => fsu(500, 900);
    assert.equal(await freedSince(stale, { used: 500, atMs: 900 }, 1000, opts), 'not-refreshed');
    assert.ok(clock >= 31_000 && clock < 32_000, `gave up after the bound (${clock})`);
    // A runtime that stamps no time measures on request: its first answer counts.
    assert.deepEqual(await freedSince(async () => fsu(10, 0), { used: 50, atMs: 0 }, 1000, opts), [50, 10]);
    assert.equal(await freedSince(info, { notMeasured: 'no-image-fs' }, 1000, opts), 'no-image-fs');
  });
});
