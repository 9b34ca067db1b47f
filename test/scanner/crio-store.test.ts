// Scan mode's default scanner on a real CRI-O (v1.34.0, built from Go modules, a private
// instance): `inv node-scan` reads each candidate from CRI-O's own store (containers/storage,
// overlay driver), read-only, and Trivy (v0.74.0, the test DB) judges it. The test plays the
// collector/remover side of Eraser's contract. Besides vulnerable and clean: a layer whose files
// were removed, a layer missing one file, a per-image byte limit, a store of another driver, and
// no store at all. And what Eraser's Trivy scanner does on CRI-O: Trivy's Podman source pointed
// at CRI-O's socket.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { criAvailable } from '../support/cri.js';
import type { BuiltImage, ImageInput } from '../support/oci.js';
import { repoRoot } from '../support/paths.js';
import {
  CLEAN_BASH,
  TEST_CVES,
  VULNERABLE_BASH,
  debianImage,
  runNodeScan,
  testDbCache,
  trivyBinary,
  type ContractImage,
} from '../support/scan.js';

interface CriScript {
  up(dir: string, opts?: { runtime?: string; timeoutMs?: number }): Promise<{ address: string }>;
  down(dir: string): Promise<void>;
}
interface CrioScript {
  importImages(dir: string, images: ImageInput[]): Promise<BuiltImage[]>;
}

/** A Debian-like image with a files layer of its own (no other image shares it). */
const ownImage = (ref: string, bash: string, tag: string): ImageInput => {
  const img = debianImage([ref], bash, tag);
  return { ...img, files: [...(img.files ?? []), { path: 'etc/inv-own', data: `${tag}\n` }] };
};

interface Failure {
  image_id: string;
  reason: string;
  message: string;
}

describe("scan mode on CRI-O: inv node-scan reads the node's own store", function () {
  this.timeout(15 * 60_000);
  let script: CriScript;
  let tmp = '';
  let dir = '';
  let socket = '';
  let trivy = '';
  let cache = '';
  let vuln: BuiltImage, clean: BuiltImage, damaged: BuiltImage, lacking: BuiltImage;
  const tag = crypto.randomBytes(3).toString('hex');
  const candidate = (b: BuiltImage): ContractImage => ({
    image_id: b.id.replace(/^sha256:/, ''),
    names: b.refs.filter((r) => !r.includes('@')),
    digests: b.refs.filter((r) => r.includes('@')),
  });
  const scan = (store: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
    runNodeScan({
      dir: tmp,
      trivy,
      socket,
      settings: { cacheDir: cache, skipDBUpdate: true, timeout: { total: '5m', perImage: '2m' }, ...extra },
      candidates: [vuln, clean, damaged, lacking].map(candidate),
      args: ['--crio-store', store],
      env,
    });
  const failures = (shared: string) =>
    JSON.parse(fs.readFileSync(path.join(shared, 'scanFailed'), 'utf8')) as Failure[];

  before(async function () {
    if (!criAvailable()) this.skip();
    script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
    const crio = (await import(path.join(repoRoot, 'scripts', 'crio.mjs'))) as CrioScript;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-crio-scan-'));
    dir = path.join(tmp, 'cri');
    socket = (await script.up(dir, { runtime: 'crio', timeoutMs: 12 * 60_000 })).address;
    if (fs.readFileSync(path.join(dir, 'snapshotter'), 'utf8').trim() !== 'overlay') this.skip();
    trivy = await trivyBinary();
    cache = await testDbCache(fs.mkdtempSync(path.join(tmp, 'trivy-')));
    [vuln, clean, damaged, lacking] = (await crio.importImages(dir, [
      ownImage(`docker.io/inv-test/crio-vuln-${tag}:1`, VULNERABLE_BASH, `vuln-${tag}`),
      ownImage(`docker.io/inv-test/crio-clean-${tag}:1`, CLEAN_BASH, `clean-${tag}`),
      ownImage(`docker.io/inv-test/crio-damaged-${tag}:1`, VULNERABLE_BASH, `damaged-${tag}`),
      ownImage(`docker.io/inv-test/crio-lacking-${tag}:1`, VULNERABLE_BASH, `lacking-${tag}`),
    ])) as [BuiltImage, BuiltImage, BuiltImage, BuiltImage];
    // The damaged image: its own top layer's unpacked files are gone (a disk fault, a hand).
    const store = path.join(dir, 'storage');
    const images = JSON.parse(fs.readFileSync(path.join(store, 'overlay-images', 'images.json'), 'utf8')) as {
      id: string;
      layer: string;
    }[];
    const top = (b: BuiltImage) => images.find((i) => i.id === candidate(b).image_id)!.layer;
    fs.rmSync(path.join(store, 'overlay', top(damaged), 'diff'), { recursive: true });
    // The lacking image: one file of its own layer is gone, found only while the layer is served.
    fs.rmSync(path.join(store, 'overlay', top(lacking), 'diff', 'var', 'lib', 'dpkg', 'status'));
  });
  after(async () => {
    if (dir) await script.down(dir);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the vulnerable image is answered with its CVEs, the clean one is not, the damaged one is scan-failed; nothing in the store changes', async () => {
    const store = path.join(dir, 'storage');
    const before = spawnSync('find', [store, '-newer', path.join(store, 'overlay-images', 'images.json')], {
      encoding: 'utf8',
    }).stdout;
    const { answer, shared, stderr } = await scan(store);
    assert.deepEqual(
      answer.map((a) => a.image_id),
      [candidate(vuln).image_id],
      stderr.slice(-2000),
    );
    assert.equal(answer[0]!.inv?.highestSeverity, 'CRITICAL');
    for (const id of TEST_CVES) assert.ok(answer[0]!.inv?.cves?.includes(id), JSON.stringify(answer));
    const failed = failures(shared);
    assert.deepEqual(
      failed.map((f) => [f.image_id, f.reason]),
      [
        [candidate(damaged).image_id, 'unreadable-image'],
        [candidate(lacking).image_id, 'unreadable-image'],
      ],
    );
    assert.match(
      failed[0]!.message,
      /CRI-O's store cannot give the image: layer \w+: its files cannot be read \(ENOENT/,
    );
    assert.match(
      failed[1]!.message,
      /CRI-O's store cannot give the image: layer \w+: a file is missing from its files \(ENOENT: \S+var\/lib\/dpkg\/status\)/,
    );
    assert.match(stderr, /"runtime":"crio"/);
    const after = spawnSync('find', [store, '-newer', path.join(store, 'overlay-images', 'images.json')], {
      encoding: 'utf8',
    }).stdout;
    assert.equal(after, before, 'nothing in the store was written');
  });

  it('an image over maxImageSize is scan-failed, not scanned', async () => {
    const { answer, shared } = await scan(path.join(dir, 'storage'), { maxImageSize: '100Ki' });
    assert.deepEqual(answer, []);
    const failed = failures(shared);
    assert.equal(failed.length, 4);
    const byId = new Map(failed.map((f) => [f.image_id, f]));
    for (const b of [vuln, clean]) {
      assert.equal(byId.get(candidate(b).image_id)?.reason, 'unreadable-image');
      assert.match(
        byId.get(candidate(b).image_id)!.message,
        /its layers are \d+ bytes, more than the per-image limit of 102400 bytes \(maxImageSize\)/,
      );
    }
  });

  it("Eraser's way on CRI-O: Trivy's Podman source at CRI-O's socket finds no image (CRI-O answers Podman's request 404)", () => {
    // Eraser's scanner links podman/podman.sock to the CRI socket and runs --image-src podman;
    // Trivy looks for $XDG_RUNTIME_DIR/podman/podman.sock.
    const xdg = fs.mkdtempSync(path.join(tmp, 'xdg-'));
    fs.mkdirSync(path.join(xdg, 'podman'));
    fs.symlinkSync(socket, path.join(xdg, 'podman', 'podman.sock'));
    const trivyRun = (env: Record<string, string>) =>
      spawnSync(
        trivy,
        [
          ...['image', '--image-src', 'podman', '--format', 'json', '--cache-dir', cache],
          ...['--skip-db-update', '--skip-java-db-update', '--offline-scan', '--skip-version-check'],
          ...['--disable-telemetry', '--cache-backend', 'memory', '--scanners', 'vuln', vuln.refs[0]!],
        ],
        {
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '', HOME: tmp, ...env },
          cwd: tmp,
          timeout: 120_000,
        },
      );
    const r = trivyRun({ XDG_RUNTIME_DIR: xdg });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /unable to find the specified image .* in \["podman"\]/);
    assert.match(r.stderr, /unknown status code from Podman: 404/);
    const none = trivyRun({});
    assert.equal(none.status, 1, none.stderr);
    assert.match(none.stderr, /no podman socket found: stat podman\/podman\.sock/);
  });

  it('a store of another driver: each image scan-failed, naming the driver; no store at all: exit 2 before anything is read', async () => {
    const vfs = fs.mkdtempSync(path.join(tmp, 'vfs-store-'));
    fs.mkdirSync(path.join(vfs, 'vfs-images'));
    const { answer, shared } = await scan(vfs);
    assert.deepEqual(answer, []);
    const failed = failures(shared);
    assert.equal(failed.length, 4);
    for (const f of failed) {
      assert.equal(f.reason, 'unreadable-image');
      assert.match(f.message, /CRI-O's storage driver is vfs; inv's scanner reads only overlay stores/);
    }

    const config = path.join(tmp, 'empty.yaml');
    fs.writeFileSync(config, '');
    const r = spawnSync(
      process.execPath,
      [
        ...[path.join(repoRoot, 'bin', 'run.js'), 'node-scan', '--config', config],
        ...['--shared-dir', fs.mkdtempSync(path.join(tmp, 'shared-none-')), '--cri-socket', socket],
        ...['--crio-store', path.join(tmp, 'no-such-store')],
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /the node runs CRI-O, whose images are read from its store, but cannot read CRI-O's image store at \S+no-such-store: .*set the scanner's runtimeName: crio/,
    );
  });
});
