// node-remove on CRI-O v1.34.0 (built from Go modules, scripts/crio.mjs), a private instance of
// its own: CRI-O's own answers (image IDs without the "sha256:" prefix, repo digests, its pause
// image and pinned_images reported `pinned`, ImageFsInfo's mount point) and every keep rule of a
// `*` prune (in use, pinned, sandbox, excluded, protected) against the real runtime.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectCri, type CriClient } from '../../src/core/cri/index.js';
import { packProtectedSet } from '../../src/core/contract/protected-set.js';
import { criAvailable, runPod, type RunningPod } from '../support/cri.js';
import type { BuiltImage, ImageInput } from '../support/oci.js';
import { repoRoot } from '../support/paths.js';
import { runNodeRemove } from './helpers.js';

interface CriScript {
  up(
    dir: string,
    opts?: { runtime?: string; pinned?: string[]; timeoutMs?: number },
  ): Promise<{ endpoint: string; address: string; dir: string }>;
  down(dir: string): Promise<void>;
}
interface CrioScript {
  importImages(dir: string, images: ImageInput[]): Promise<BuiltImage[]>;
}

describe('CRI-O: its image IDs, repo digests, pinned images and every keep rule', function () {
  // The first run builds CRI-O (about 3 min on 2 cores, cached after).
  this.timeout(15 * 60_000);
  let script: CriScript;
  let crio: CrioScript;
  let tmp = '';
  let dir = '';
  let endpoint = '';
  let cri: CriClient;
  let pod: RunningPod | undefined;
  const built: Record<string, BuiltImage> = {};

  before(async function () {
    if (!criAvailable()) this.skip();
    script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
    crio = (await import(path.join(repoRoot, 'scripts', 'crio.mjs'))) as CrioScript;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-crio-'));
    dir = path.join(tmp, 'cri');
    endpoint = (
      await script.up(dir, { runtime: 'crio', pinned: ['inv.test/pinned:*'], timeoutMs: 12 * 60_000 })
    ).endpoint;
    const names = ['app', 'inuse', 'pinned', 'excluded', 'protected'];
    const images = await crio.importImages(
      dir,
      names.map((n) => ({ refs: [`inv.test/${n}:1`], distinct: `crio-${n}`, digestRefs: false })),
    );
    names.forEach((n, i) => (built[n] = images[i]!));
    cri = await connectCri({ endpoint, timeoutMs: 10_000 });
  });
  after(async () => {
    await pod?.cleanup();
    cri?.close();
    if (dir) await script.down(dir);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('answers as cri-o 1.34.0 on runtime.v1, with bare hex image IDs and repo digests', async () => {
    assert.equal(cri.runtime.runtimeName, 'cri-o');
    assert.equal(cri.runtime.runtimeVersion, '1.34.0');
    assert.equal(cri.apiVersion, 'v1');
    const app = (await cri.listImages()).find((i) => i.repoTags.includes('inv.test/app:1'));
    assert.ok(app, 'the pulled image is listed');
    // containerd answers "sha256:<hex>"; CRI-O the bare hex of the same config digest.
    assert.equal(app.id, built.app!.id.replace(/^sha256:/, ''));
    assert.deepEqual(app.repoDigests, [`inv.test/app@${built.app!.manifestDigest}`]);
  });

  it('ImageFsInfo names a mount point under its storage root', async () => {
    const fsi = await cri.imageFsInfo();
    assert.ok(fsi.length >= 1, JSON.stringify(fsi));
    assert.ok(fsi[0]!.mountpoint.startsWith(path.join(dir, 'storage')), JSON.stringify(fsi));
  });

  it('a threshold run counts the listed sizes, since CRI-O counts only its image metadata', async () => {
    const [fsi] = await cri.imageFsInfo();
    const images = await cri.listImages();
    const largest = Math.max(...images.map((i) => i.size));
    assert.ok(fsi!.usedBytes < largest, `ImageFsInfo ${fsi!.usedBytes} bytes, largest image ${largest}`);
    // A high mark between what CRI-O counts and what its images take.
    const st = fs.statfsSync(fsi!.mountpoint);
    const high = ((largest / (st.blocks * st.bsize)) * 100).toPrecision(6);
    const state = path.join(tmp, 'state');
    fs.mkdirSync(state);
    const r = await runNodeRemove(endpoint, [
      ...['--images', '*', '--dry-run', '-o', 'json', '--state-dir', state],
      ...['--image-fs-above', high, '--image-fs-down-to', '0'],
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.json!.results.some((x) => x.outcome === 'would-remove'),
      JSON.stringify(r.json!.results.map((x) => x.outcome)),
    );
    assert.ok(
      r.json!.warnings.some((w) =>
        /counts \d+ bytes at .*overlay-images, less than its largest image/.test(w),
      ),
    );
  });

  it('scan mode: on a CRI-O socket without its store mounted, the built-in scanner exits 2 at once, saying what to set', () => {
    const shared = path.join(tmp, 'shared');
    fs.mkdirSync(shared);
    const config = path.join(tmp, 'scanner.yaml');
    fs.writeFileSync(config, '');
    const env = { ...process.env };
    delete env.ERASER_RUNTIME_NAME;
    const r = spawnSync(
      process.execPath,
      [
        ...[path.join(repoRoot, 'bin', 'run.js'), 'node-scan', '--config', config],
        ...['--shared-dir', shared, '--cri-socket', endpoint.replace(/^unix:\/\//, '')],
      ],
      { encoding: 'utf8', env, timeout: 30_000 },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /the node runs CRI-O, whose images are read from its store, but cannot read CRI-O's image store at \/run\/inv\/crio-storage: .*set the scanner's runtimeName: crio \(and storageHostPath/,
    );
  });

  it('removes an image named by its repo digest', async () => {
    const byDigest = `inv.test/app@${built.app!.manifestDigest}`;
    const r = await runNodeRemove(endpoint, ['--images', byDigest, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.json!.results.map((x) => [x.target, x.outcome]),
      [[byDigest, 'removed']],
    );
    assert.equal(await cri.imageStatus('inv.test/app:1'), null);
  });

  it('a * prune keeps what is in use, pinned (pause and pinned_images), excluded and protected', async () => {
    pod = await runPod(cri, 'inv.test/inuse:1');
    const prot = path.join(tmp, 'protected');
    fs.mkdirSync(prot);
    const chunks = packProtectedSet(new Map([['inv.test/protected:1', 'default/protected']]));
    chunks.forEach((c, i) => fs.writeFileSync(path.join(prot, `protected-${i}.json`), c));
    const r = await runNodeRemove(endpoint, [
      '--images',
      '*',
      '--exclude',
      'inv.test/excluded:*',
      '--protected-dir',
      prot,
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const byTag = Object.fromEntries(
      r.json!.results.map((x) => [x.aliases.find((a) => a.includes(':') && !a.includes('@')), x.outcome]),
    );
    assert.deepEqual(byTag, {
      // The running sandbox uses it; below, with no sandbox left, it is kept as pinned.
      'inv.test/pause:1': 'in-use',
      'inv.test/pinned:1': 'pinned',
      'inv.test/inuse:1': 'in-use',
      'inv.test/excluded:1': 'excluded',
      'inv.test/protected:1': 'protected',
    });
    const left = (await cri.listImages()).flatMap((i) => i.repoTags).sort();
    assert.deepEqual(left, [
      'inv.test/excluded:1',
      'inv.test/inuse:1',
      'inv.test/pause:1',
      'inv.test/pinned:1',
      'inv.test/protected:1',
    ]);
    // Once nothing runs them any more, the in-use image goes and the pause image stays, pinned.
    await pod.cleanup();
    const again = await runNodeRemove(endpoint, ['--images', '*', '-o', 'json']);
    assert.equal(again.code, 0, again.stderr);
    const tagOf = (x: { aliases: string[] }) => x.aliases.find((a) => a.includes(':') && !a.includes('@'));
    assert.deepEqual(Object.fromEntries(again.json!.results.map((x) => [tagOf(x), x.outcome])), {
      'inv.test/pause:1': 'pinned',
      'inv.test/pinned:1': 'pinned',
      'inv.test/inuse:1': 'removed',
      'inv.test/excluded:1': 'removed',
      'inv.test/protected:1': 'removed',
    });
  });
});
