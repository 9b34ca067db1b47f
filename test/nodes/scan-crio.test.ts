// Scan mode end to end on a cluster of CRI-O nodes (the `crio` run of npm test): the erase
// controllers run worker Pods whose scanner container is inv's default scanner image, configured
// by the administrator with runtimeName: crio, so it gets each node's CRI-O store mounted
// read-only and judges every candidate from it with Trivy v0.74.0 and the test DB. On both nodes:
// the vulnerable unused image goes, the clean one stays (`clean`), the vulnerable image a Pod runs
// stays (`vulnerable-kept`); an image whose layer files were removed from node 1's store is
// `scan-failed` there with the reason (kept, node Failed) and removed on node 2, where it is whole.
// On a containerd cluster the file skips.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { repoRoot } from '../support/paths.js';
import type { ImageInput } from '../support/oci.js';
import {
  CLEAN_BASH,
  VULNERABLE_BASH,
  debianImage,
  invScannerImage,
  testDbCache,
  type ScannerImage,
} from '../support/scan.js';
import { importToNodes, nodeImageIds, NodeEraseEnv, results } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

interface CrioModule {
  importArchiveFile(dir: string, file: string): Promise<string[]>;
}

const criDir = (c: WholeCluster, i: number) => path.join(c.dir, `node-${i + 1}`, 'cri');
const isCrio = (c: WholeCluster) =>
  fs.readFileSync(path.join(criDir(c, 0), 'runtime'), 'utf8').trim() === 'crio';

/** Pulls the scanner image into every CRI-O node (from scripts/crio.mjs's loopback registry). */
async function importScanner(c: WholeCluster, img: ScannerImage): Promise<void> {
  const crio = (await import(path.join(repoRoot, 'scripts', 'crio.mjs'))) as CrioModule;
  for (let i = 0; i < c.nodes.length; i++) {
    await crio.importArchiveFile(criDir(c, i), img.file);
    const cri = await nodeCri(c, i);
    try {
      const id = img.id.replace(/^sha256:/, '');
      await until(`${img.ref} on node ${i + 1}`, async () =>
        (await cri.listImages()).some((x) => x.id === id),
      );
    } finally {
      cri.close();
    }
  }
}

describe("erase --vulnerable on CRI-O nodes: inv node-scan judges the images in each node's store", function () {
  this.timeout(600_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let tmp: string;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(1_200_000);
    if (!isCrio(c)) this.skip();
    if (fs.readFileSync(path.join(criDir(c, 0), 'snapshotter'), 'utf8').trim() !== 'overlay') this.skip();
    const inv = await invScannerImage();
    await importScanner(c, inv);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scan-crio-'));
    const dbHost = await testDbCache(fs.mkdtempSync(path.join(tmp, 'trivy-')));
    env = await new NodeEraseEnv(c).setup();
    await env.config(
      [
        'allowUnprotected: true',
        'scanners:',
        '  trivy:',
        `    image: ${inv.ref}`,
        '    runtimeName: crio',
        // Where every node's CRI-O keeps its store, inside that node's mount namespace.
        `    storageHostPath: ${path.join(path.dirname(c.runtimeSocket), 'storage')}`,
        `    cacheHostPath: ${dbHost}`,
        '    config:',
        '      cacheDir: /var/lib/trivy',
        '      skipDBUpdate: true',
        '      timeout: {total: 5m, perImage: 2m}',
      ].join('\n'),
    );
    env.startControllers();
  });
  after(async () => {
    await env?.teardown();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A Debian-like image with a files layer of its own, so that damaging it harms no other. */
  const image = (role: string): ImageInput => {
    const img = debianImage(
      [`docker.io/library/e2e-crio-${role}-${env.tag}:1`],
      role === 'clean' ? CLEAN_BASH : VULNERABLE_BASH,
      `crio-${role}-${env.tag}`,
    );
    return { ...img, files: [...(img.files ?? []), { path: 'etc/inv-own', data: `${role}-${env.tag}\n` }] };
  };

  it('vulnerable unused removed, clean and running kept, a damaged layer scan-failed with its reason', async () => {
    const [n1, n2] = c.nodes.map((n) => n.name) as [string, string];
    const [vuln, clean, running, damaged] = await importToNodes(
      c,
      [0, 1],
      ['vuln', 'clean', 'running', 'damaged'].map(image),
    );
    await env.runPod(n1, running!.refs[0]!);
    // Node 1's copy of `damaged` loses its own layer's unpacked files.
    const store = path.join(criDir(c, 0), 'storage');
    const images = JSON.parse(fs.readFileSync(path.join(store, 'overlay-images', 'images.json'), 'utf8')) as {
      id: string;
      layer: string;
    }[];
    const top = images.find((x) => x.id === damaged!.id)!.layer;
    fs.rmSync(path.join(store, 'overlay', top, 'diff'), { recursive: true });

    const job = await env.wait(await env.erase({ images: [PRUNE_ALL], scan: { scanner: 'trivy' } }), 540_000);
    const r = results(job);
    const why = `${job.status?.message} ${JSON.stringify(r)}`;
    assert.equal(job.status?.phase, 'Failed', why);
    assert.equal(r[n1]!.outcome, 'Failed', why);
    assert.match(
      r[n1]!.reason,
      /^1 image could not be scanned \(kept unless deleteFailedImages\): CRI-O's store cannot give the image: layer \w+: its files cannot be read \(ENOENT/,
    );
    assert.equal(r[n1]!.scanFailures?.['unreadable-image'], 1, why);

    // Per image, from each worker's own report.
    const rows = new Map<string, Map<string, { o: string; e?: string }>>();
    for (const [node, pod] of await env.workers(job.metadata.name)) {
      const message = pod.status?.containerStatuses?.find((x) => x.name === 'remover')?.state?.terminated
        ?.message;
      const list =
        (JSON.parse(message ?? '{}') as { results?: { i: string; o: string; e?: string }[] }).results ?? [];
      rows.set(node, new Map(list.map((x) => [x.i, x])));
    }
    const outcome = (node: string, id: string) => rows.get(node)?.get(id)?.o;
    for (const [i, node] of [n1, n2].entries()) {
      const ids = await nodeImageIds(c, i);
      assert.ok(!ids.has(vuln!.id), `the vulnerable unused image is gone from ${node}`);
      assert.ok(ids.has(clean!.id) && ids.has(running!.id), `clean and running stay on ${node}`);
      assert.equal(outcome(node, clean!.id), 'clean', why);
      assert.equal(outcome(node, running!.id), 'vulnerable-kept', why);
      assert.ok((r[node]!.vulnerable ?? 0) >= 1, why);
    }
    assert.equal(r[n1]!.highestSeverity, 'CRITICAL', why);
    // The damaged copy is kept where it cannot be read; the whole one goes.
    assert.equal(outcome(n1, damaged!.id), 'scan-failed', why);
    assert.match(rows.get(n1)!.get(damaged!.id)!.e ?? '', /its files cannot be read/);
    assert.ok((await nodeImageIds(c, 0)).has(damaged!.id), 'the damaged image stays on node 1');
    assert.ok(!(await nodeImageIds(c, 1)).has(damaged!.id), 'and goes from node 2, where it is whole');
  });
});
