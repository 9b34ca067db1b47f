// Pure: freed space as the runtime measures it, beside the listed sizes' estimate; the worker's
// wait for a figure taken after its removals (its clock and the runtime's answers injected).
import assert from 'node:assert/strict';
import { freedDiffers, measuredText, readFreed } from '../../src/core/contract/freed-space.js';
import { freedSince, readUsage } from '../../src/core/noderemove/freed-space.js';
import { resultFromPod } from '../../src/core/contract/results.js';
import type { CriFilesystemUsage } from '../../src/core/cri/messages.js';

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
  it('reads the summary: before minus after, never below 0; a reason; nothing else', () => {
    assert.deepEqual(readFreed([500 * MB, 497 * MB]), { bytesMeasured: 3 * MB });
    assert.deepEqual(readFreed([5, 9]), { bytesMeasured: 0 });
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
