// ImageFsInfo and a threshold run of `inv node-remove` against the run's real containerd (both
// runtimes): the image file system's mount point and bytes from CRI, its capacity from statfs,
// `imageFs` in the JSON report, below-threshold under the high mark. Dry runs only: this
// containerd is shared by the other files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measureImageFs } from '../../src/core/noderemove/trigger/image-fs.js';
import { randomBytes } from 'node:crypto';
import { connect, criAvailable, criEndpoint, RUNTIMES, useRuntime, waitForImages } from '../support/cri.js';
import { addImages, type BuiltImage } from '../support/oci.js';
import { runNodeRemove } from './helpers.js';

for (const runtime of RUNTIMES)
  describe(`inv node-remove --image-fs-above against a real containerd [${runtime}]`, function () {
    before(() => useRuntime(runtime));
    after(() => useRuntime('containerd'));
    let state: string;
    let img: BuiltImage | undefined;
    before(async function () {
      if (!criAvailable()) this.skip();
      state = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-imagefs-'));
      // One unused image of its own, so a prune has a candidate.
      const tag = randomBytes(3).toString('hex');
      [img] = await addImages([{ refs: [`docker.io/invtest${tag}/fs:1`], distinct: `fs-${tag}` }]);
      const cri = await connect();
      try {
        await waitForImages(cri, [img!.id]);
        // containerd counts its snapshots' bytes in the background (every 10 s by default): a
        // fresh runtime answers 0 until the first count, and a threshold run then sees 0%.
        const deadline = Date.now() + 60_000;
        while (((await cri.imageFsInfo())[0]?.usedBytes ?? 0) === 0) {
          if (Date.now() > deadline) throw new Error('ImageFsInfo reported 0 bytes used for 60 s');
          await new Promise((r) => setTimeout(r, 250));
        }
      } finally {
        cri.close();
      }
    });
    after(async () => {
      if (state) fs.rmSync(state, { recursive: true, force: true });
      if (img) {
        const cri = await connect();
        await cri.removeImage(img.id).catch(() => undefined);
        cri.close();
      }
    });

    it('measures the image file system: ImageFsInfo bytes and mount point, statfs capacity', async () => {
      const cri = await connect();
      try {
        const fsi = await cri.imageFsInfo();
        assert.ok(fsi.length >= 1 && fsi[0]!.mountpoint.startsWith('/'), JSON.stringify(fsi));
        const u = await measureImageFs(() => cri.imageFsInfo());
        assert.equal(u.mountPoint, fsi[0]!.mountpoint);
        assert.ok(u.capacity > 0 && u.used <= u.capacity && u.available <= u.capacity, JSON.stringify(u));
        await assert.rejects(
          measureImageFs(() => cri.imageFsInfo(), { statPath: '/', hostPath: '/nowhere' }),
          /not under imageFsPath \/nowhere/,
        );
      } finally {
        cri.close();
      }
    });

    it('reports imageFs and keeps everything under the high mark; at the mark it would remove', async () => {
      const args = ['--images', '*', '--dry-run', '-o', 'json', '--state-dir', state];
      const below = await runNodeRemove(criEndpoint(), [
        ...args,
        '--image-fs-above',
        '100',
        '--image-fs-down-to',
        '99',
      ]);
      assert.equal(below.code, 0, below.stderr);
      const report = below.json as unknown as {
        imageFs: { used: number; capacity: number; mountPoint: string; usedAfter: number };
        results: { outcome: string; reason: string; unusedForSeconds?: number }[];
      };
      assert.ok(report.imageFs.capacity > 0 && report.imageFs.mountPoint.startsWith('/'));
      assert.equal(report.imageFs.usedAfter, report.imageFs.used);
      assert.ok(!report.results.some((r) => r.outcome === 'would-remove'));
      const kept = report.results.filter((r) => r.outcome === 'below-threshold');
      assert.ok(kept.length > 0, 'the unused images are kept, below the threshold');
      assert.match(kept[0]!.reason, /^image file system at [0-9.]+%, under 100%$/);
      assert.equal(fs.statSync(path.join(state, 'unused-images.json')).mode & 0o777, 0o600);

      const above = await runNodeRemove(criEndpoint(), [
        ...args,
        '--image-fs-above',
        '0.000001',
        '--image-fs-down-to',
        '0',
      ]);
      assert.equal(above.code, 0, above.stderr);
      const r2 = above.json as unknown as typeof report;
      // Every candidate either would go or is kept once the low mark is reached: listed sizes
      // count shared layers once per image, so on a runtime holding other files' images the
      // estimate can reach 0% before the last candidate.
      const outcomes = r2.results.map((r) => r.outcome);
      const goes = outcomes.filter((o) => o === 'would-remove').length;
      const stopped = outcomes.filter((o) => o === 'low-mark-reached').length;
      const why = JSON.stringify({ below: report.results.map((r) => r.outcome), above: outcomes });
      assert.ok(goes >= 1, why);
      assert.equal(goes + stopped, kept.length, why);
      assert.ok(r2.imageFs.usedAfter < r2.imageFs.used);
      assert.ok(r2.results.every((r) => r.outcome !== 'would-remove' || r.unusedForSeconds !== undefined));
    });

    it('refuses a path on another file system, whatever its size, and removes nothing by threshold', async function () {
      // A tmpfs holding as many bytes as the images take: a size comparison cannot tell it from
      // the image file system; its device can.
      const cri = await connect();
      const used = await cri.imageFsInfo().finally(() => cri.close());
      const bytes = used[0]!.usedBytes;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-otherfs-'));
      const size = Math.ceil((bytes * 2 + 4 * 1024 * 1024) / 4096) * 4096;
      if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status !== 0) {
        fs.rmSync(dir, { recursive: true, force: true });
        this.skip(); // mounting needs root, as the runtimes here do
      }
      try {
        fs.writeFileSync(path.join(dir, 'filler'), Buffer.alloc(bytes));
        const c2 = await connect();
        try {
          await assert.rejects(
            measureImageFs(() => c2.imageFsInfo(), { statPath: dir }),
            new RegExp(
              `^Error: ${dir} is on another file system \\(device 0:\\d+\\) than the runtime's images at /`,
            ),
          );
          await assert.rejects(
            measureImageFs(() => c2.imageFsInfo(), { statPath: path.join(dir, 'gone') }),
            /cannot stat .*gone \(ENOENT\): the image file system cannot be identified/,
          );
        } finally {
          c2.close();
        }
        const r = await runNodeRemove(criEndpoint(), [
          ...['--images', '*', '--dry-run', '-o', 'json', '--state-dir', state],
          ...['--image-fs-path', dir, '--image-fs-above', '0.000001', '--image-fs-down-to', '0'],
        ]);
        const report = r.json as unknown as {
          imageFs?: unknown;
          warnings: string[];
          results: { outcome: string; error: string }[];
        };
        assert.ok(!report.results.some((x) => x.outcome === 'would-remove'), r.stdout);
        assert.equal(report.imageFs, undefined);
        assert.ok(
          report.warnings.some((w) =>
            /usage unknown, nothing removed by threshold: .* on another file system/.test(w),
          ),
          JSON.stringify(report.warnings),
        );
        assert.ok(
          report.results.some(
            (x) => x.outcome === 'failed' && /usage unknown: .*another file system/.test(x.error),
          ),
          r.stdout,
        );
        assert.notEqual(r.code, 0, 'a run that could not measure is no success');
      } finally {
        spawnSync('umount', [dir]);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses threshold flags on named targets', async () => {
      const r = await runNodeRemove(criEndpoint(), ['--images', 'busybox:1', '--unused-for', '7d']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /apply to a \* prune only/);
    });
  });
