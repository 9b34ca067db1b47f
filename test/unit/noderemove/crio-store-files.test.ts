// Local files only: a containers/storage overlay store laid out by hand (the layout
// src/core/scanner/crio-store.ts reads), and what the scanner makes of it when its own folders are
// hostile: a symbolic link above a layer's file leading out of the layer, or an index larger than
// its bound, or one that grows past its bound while it is read. The store a real CRI-O writes is tested in test/scanner/crio-store.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { readStoreImage, UnreadableImage, type StoreImage } from '../../../src/core/scanner/crio-store.js';
import { startStoreRegistry } from '../../../src/core/scanner/store-registry.js';
import { layerTar } from '../../../src/core/scanner/tar-split.js';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** One layer: raw segments and files in order, as tar-split records them. */
type Part = { raw: string } | { file: string; data: string };

/** A one-layer image in a new store under `root`; returns the image's id and the layer's diff folder. */
function makeStore(root: string, parts: Part[]): { id: string; diff: string } {
  const layer = sha256(`layer-${root}`);
  const tar = Buffer.concat(parts.map((p) => Buffer.from('raw' in p ? p.raw : p.data)));
  const lines = parts.map((p) =>
    'raw' in p
      ? JSON.stringify({ type: 2, payload: Buffer.from(p.raw).toString('base64') })
      : JSON.stringify({ type: 1, name: p.file, size: Buffer.byteLength(p.data) }),
  );
  const config = Buffer.from(
    JSON.stringify({ rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(tar)}`] } }),
  );
  const id = sha256(config);
  const diff = path.join(root, 'overlay', layer, 'diff');
  fs.mkdirSync(diff, { recursive: true });
  for (const p of parts)
    if ('file' in p) {
      fs.mkdirSync(path.dirname(path.join(diff, p.file)), { recursive: true });
      fs.writeFileSync(path.join(diff, p.file), p.data);
    }
  fs.mkdirSync(path.join(root, 'overlay-layers'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'overlay-layers', 'layers.json'),
    JSON.stringify([{ id: layer, 'diff-digest': `sha256:${sha256(tar)}`, 'diff-size': tar.length }]),
  );
  fs.writeFileSync(
    path.join(root, 'overlay-layers', `${layer}.tar-split.gz`),
    zlib.gzipSync(`${lines.join('\n')}\n`),
  );
  fs.mkdirSync(path.join(root, 'overlay-images', id), { recursive: true });
  fs.writeFileSync(path.join(root, 'overlay-images', 'images.json'), JSON.stringify([{ id, layer }]));
  fs.writeFileSync(
    path.join(root, 'overlay-images', id, `=${Buffer.from(`sha256:${id}`).toString('base64')}`),
    config,
  );
  return { id, diff };
}

async function tarOf(image: StoreImage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const b of layerTar(image.layers[0]!)) chunks.push(b);
  return Buffer.concat(chunks);
}

const PARTS: Part[] = [
  { raw: 'header-of-etc/os-release;' },
  { file: 'etc/os-release', data: 'ID=test\n' },
  { raw: 'header-of-usr/lib/inv/own;' },
  { file: 'usr/lib/inv/own', data: 'own file\n' },
  { raw: 'end-of-archive' },
];

describe("scanner: CRI-O's store on local files, its layers' folders hostile", () => {
  let tmp = '';
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-crio-files-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("rebuilds a layer's tar byte for byte; a store reached through the administrator's symbolic link is read", async () => {
    const real = path.join(tmp, 'real-store');
    const { id } = makeStore(real, PARTS);
    fs.symlinkSync(real, path.join(tmp, 'mounted'));
    const image = await readStoreImage(path.join(tmp, 'mounted'), id);
    const tar = await tarOf(image);
    assert.equal(`sha256:${sha256(tar)}`, image.layers[0]!.diffDigest);
  });

  it('refuses a file reached through a symbolic link to a folder outside the layer, even when the last component is a plain file', async () => {
    const { id, diff } = makeStore(path.join(tmp, 'store'), PARTS);
    const outside = path.join(tmp, 'host-etc');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'os-release'), 'ID=host\n');
    fs.rmSync(path.join(diff, 'etc'), { recursive: true });
    fs.symlinkSync(outside, path.join(diff, 'etc'));
    const image = await readStoreImage(path.join(tmp, 'store'), id);
    await assert.rejects(
      tarOf(image),
      (e: Error) =>
        e instanceof UnreadableImage &&
        /: \S+\/diff\/etc\/os-release leads outside the layer's files through a symbolic link \(to \S+host-etc\/os-release\)/.test(
          e.message,
        ),
    );
  });

  it('refuses a layer whose diff folder is itself a symbolic link, and a link deeper than one level', async () => {
    const { id, diff } = makeStore(path.join(tmp, 'store'), PARTS);
    const elsewhere = path.join(tmp, 'elsewhere');
    fs.cpSync(diff, elsewhere, { recursive: true });
    fs.rmSync(diff, { recursive: true });
    fs.symlinkSync(elsewhere, diff);
    await assert.rejects(tarOf(await readStoreImage(path.join(tmp, 'store'), id)), /through a symbolic link/);

    const deep = makeStore(path.join(tmp, 'deep'), PARTS);
    fs.renameSync(path.join(deep.diff, 'usr', 'lib'), path.join(tmp, 'lib-elsewhere'));
    fs.symlinkSync(path.join(tmp, 'lib-elsewhere'), path.join(deep.diff, 'usr', 'lib'));
    await assert.rejects(
      tarOf(await readStoreImage(path.join(tmp, 'deep'), deep.id)),
      /usr\/lib\/inv\/own leads outside the layer's files through a symbolic link/,
    );
  });

  it('a refused file is the reason the served image failed, as a missing file is', async () => {
    const { id, diff } = makeStore(path.join(tmp, 'store'), PARTS);
    fs.renameSync(path.join(diff, 'usr'), path.join(tmp, 'usr-elsewhere'));
    fs.symlinkSync(path.join(tmp, 'usr-elsewhere'), path.join(diff, 'usr'));
    const image = await readStoreImage(path.join(tmp, 'store'), id);
    const registry = await startStoreRegistry();
    try {
      const served = registry.serve(image, 1 << 20);
      const url = `http://${served.ref.split('@')[0]!.replace(/^([^/]+)\/(.*)$/, '$1/v2/$2')}/blobs/${image.layers[0]!.diffDigest}`;
      await new Promise<void>((resolve) => {
        http
          .get(url, (res) => {
            res.resume();
            res.on('close', () => resolve());
          })
          .on('error', () => resolve());
      });
      assert.match(
        served.error() ?? '',
        /usr\/lib\/inv\/own leads outside the layer's files through a symbolic link/,
      );
    } finally {
      await registry.close();
    }
  });

  it('an index over its bound is refused; a configuration that grows past its bound while read is refused there, not read whole', async () => {
    const { id } = makeStore(path.join(tmp, 'store'), PARTS);
    const layers = path.join(tmp, 'store', 'overlay-layers', 'layers.json');
    fs.truncateSync(layers, 64 * 1024 * 1024 + 1);
    await assert.rejects(
      readStoreImage(path.join(tmp, 'store'), id),
      (e: Error) =>
        e instanceof UnreadableImage && /layers\.json: it is larger than 67108864 bytes$/.test(e.message),
    );

    // A FIFO's size is 0 when looked at; what comes through it is 20 MB.
    const other = makeStore(path.join(tmp, 'other'), PARTS);
    const config = path.join(
      tmp,
      'other',
      'overlay-images',
      other.id,
      `=${Buffer.from(`sha256:${other.id}`).toString('base64')}`,
    );
    fs.rmSync(config);
    const made = spawn('mkfifo', [config], { stdio: 'ignore' });
    await new Promise((resolve) => made.on('exit', resolve));
    const writer = spawn('sh', ['-c', 'exec head -c 20000000 /dev/zero > "$0"', config], { stdio: 'ignore' });
    try {
      await assert.rejects(
        readStoreImage(path.join(tmp, 'other'), other.id),
        /: its configuration: it is larger than 8388608 bytes$/,
      );
    } finally {
      writer.kill();
    }
  });
});
