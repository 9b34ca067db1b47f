// Scan mode end to end on real nodes: the erase controllers create worker Pods with the test
// scanner (test/scanner/main.go, built by scripts/test-scanner.mjs) as a second container from
// the administrator's `scanners:`, real kubelets run both on each node's containerd, the scanner
// talks to `inv node-remove` over Eraser's pipes in the Pod's emptyDir. The scanner only
// narrows the * candidates; a scanner that answers garbage or hangs removes nothing.
//
// To run another scanner image here (e.g. the Trivy adapter), import it into the nodes and
// write its `scanners:` entry with `scannerConfig()` below (INV_SCAN_TEST_* are only this
// test's knobs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { repoRoot } from '../support/paths.js';
import { importToNodes, nodeImageIds, NodeEraseEnv, results } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

interface ScannerImage {
  ref: string;
  file: string;
}

/** Imports the test scanner's image into every node (the kubelet never pulls it). */
export async function importTestScanner(c: WholeCluster): Promise<ScannerImage> {
  const ts = (await import(path.join(repoRoot, 'scripts', 'test-scanner.mjs'))) as {
    buildTestScanner(): ScannerImage & { id: string };
  };
  const oci = (await import(path.join(repoRoot, 'scripts', 'oci-archive.mjs'))) as {
    importArchive(o: { address: string; file: string; snapshotter?: string }): void;
  };
  const img = ts.buildTestScanner();
  for (let i = 0; i < c.nodes.length; i++) {
    const criDir = path.join(c.dir, `node-${i + 1}`, 'cri');
    const snapshotter = fs.readFileSync(path.join(criDir, 'snapshotter'), 'utf8').trim();
    oci.importArchive({
      address: c.nodes[i]!.criEndpoint.replace(/^unix:\/\//, ''),
      file: img.file,
      snapshotter,
    });
    const cri = await nodeCri(c, i);
    try {
      await until(`test scanner on node ${i + 1}`, async () =>
        (await cri.listImages()).some((x) => x.id === img.id),
      );
    } finally {
      cri.close();
    }
  }
  return img;
}

/** A `scanners:` block for inv-erase-config. */
export const scannerConfig = (name: string, image: string, env: Record<string, string>, total = '30s') =>
  [
    'scanners:',
    `  ${name}:`,
    `    image: ${image}`,
    '    env:',
    ...Object.entries(env).map(([k, v]) => `      - {name: ${k}, value: ${JSON.stringify(v)}}`),
    '    config:',
    `      timeout: {total: ${total}}`,
  ].join('\n');

interface WorkerPod {
  status?: { containerStatuses?: { name?: string; state?: { terminated?: { message?: string } } }[] };
}
const summary = (pod: WorkerPod | undefined) =>
  JSON.parse(
    pod?.status?.containerStatuses?.find((s) => s.name === 'remover')?.state?.terminated?.message ?? '{}',
  ) as {
    scan?: { c: number; v: number; k: number; s: string; f?: string };
    results?: { i: string; o: string; v?: unknown }[];
  };

describe('erase --vulnerable on real nodes (a scanner container beside the worker)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let scanner: ScannerImage;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    scanner = await importTestScanner(c);
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
  });
  after(async () => {
    await env?.teardown();
  });

  it('removes the vulnerable unused image, keeps the clean one, reports a vulnerable running image as vulnerable-kept; unknown scanner refused', async () => {
    const t = env.tag;
    const n1 = c.nodes[0]!.name;
    const ref = (what: string) => `docker.io/library/e2e-scan-${what}-${t}:1`;
    const [vuln, clean, running, excluded] = await importToNodes(
      c,
      [0],
      ['vuln', 'clean', 'running', 'excluded'].map((w) => ({ refs: [ref(w)], distinct: `scan-${w}-${t}` })),
    );
    await env.runPod(n1, ref('running'));
    await env.config(
      [
        scannerConfig('test', scanner.ref, {
          INV_TEST_SCANNER_VULNERABLE: [ref('vuln'), ref('excluded')].join(','),
          INV_TEST_SCANNER_EXTRA_IDS: running!.id,
        }),
        `allowPruneAll: true`,
      ].join('\n'),
    );
    await env.rest.request('POST', `/api/v1/namespaces/${env.configNamespace}/configmaps`, {
      body: {
        metadata: { name: 'keep-scan', labels: { 'imageinventory.dev/exclusion-list': 'true' } },
        data: { 'excluded.json': JSON.stringify([ref('excluded')]) },
      },
    });
    const rejected = await env.erase({
      images: [PRUNE_ALL],
      scan: { scanner: 'nope' },
      nodeSelector: `kubernetes.io/hostname=${n1}`,
    });
    await assert.rejects(
      env.wait(rejected),
      /scanner "nope" is not configured by the administrator \(inv-erase-config scanners: test\)/,
    );

    const dry = await env.wait(
      await env.erase({
        images: [PRUNE_ALL],
        dryRun: true,
        scan: { scanner: 'test' },
        nodeSelector: `kubernetes.io/hostname=${n1}`,
      }),
    );
    assert.equal(dry.status?.phase, 'Completed', dry.status?.message);
    const dryPods = await env.workers(dry.metadata.name);
    const ds = summary(dryPods.get(n1) as WorkerPod);
    const byId = Object.fromEntries((ds.results ?? []).map((r) => [r.i, r]));
    assert.equal(byId[vuln!.id]?.o, 'would-remove', JSON.stringify(ds));
    assert.deepEqual(byId[vuln!.id]?.v, [3, 'HIGH', ['CVE-2099-0001', 'CVE-2099-0002', 'CVE-2099-0003']]);
    assert.equal(byId[clean!.id]?.o, 'clean');
    assert.equal(byId[running!.id]?.o, 'vulnerable-kept');
    // Excluded: never a candidate, so the scanner never saw it (it names it only by name).
    assert.equal(byId[excluded!.id]?.o, 'excluded');
    assert.equal(ds.scan?.v, 1);
    assert.equal(ds.scan?.s, 'HIGH');
    assert.ok((await nodeImageIds(c, 0)).has(vuln!.id), 'a dry run removes nothing');

    const job = await env.wait(
      await env.erase({
        images: [PRUNE_ALL],
        scan: { scanner: 'test' },
        nodeSelector: `kubernetes.io/hostname=${n1}`,
      }),
    );
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    assert.equal(results(job)[n1]?.removed, 1, JSON.stringify(results(job)[n1]));
    const ids = await nodeImageIds(c, 0);
    assert.ok(!ids.has(vuln!.id), 'the vulnerable unused image is gone');
    for (const kept of [clean, running, excluded]) assert.ok(ids.has(kept!.id), `${kept!.refs[0]} stays`);
    // The scanner got its config in Eraser's shape, the CRI socket and NODE_NAME, and finished.
    const pod = (await env.workers(job.metadata.name)).get(n1) as WorkerPod & { metadata: { name: string } };
    const st = pod.status?.containerStatuses?.find((s) => s.name === 'scanner')?.state?.terminated as
      { exitCode?: number } | undefined;
    assert.equal(st?.exitCode, 0);
  });

  for (const [mode, why, total] of [
    ['garbage', /scan failed, nothing removed on this node: .*not JSON/, '3s'],
    ['hang', /scan failed, nothing removed on this node: .*never answered/, '3s'],
    // inv's own deadline is far off: the controller sees the scanner's exit and stops the worker.
    ['crash', /the scanner exited with code 1 .*crashing on purpose.*the worker was stopped/, '10m'],
  ] as const)
    it(`a scanner that ${mode === 'hang' ? 'hangs' : mode === 'crash' ? 'crashes' : 'answers garbage'} removes nothing; the node fails with the reason`, async () => {
      const t = env.tag;
      const n1 = c.nodes[0]!.name;
      const [vuln] = await importToNodes(
        c,
        [0],
        [{ refs: [`docker.io/library/e2e-scanf-${mode}-${t}:1`], distinct: `scanf-${mode}-${t}` }],
      );
      await env.config(
        scannerConfig(
          'test',
          scanner.ref,
          { INV_TEST_SCANNER_MODE: mode, INV_TEST_SCANNER_VULNERABLE: vuln!.refs[0]! },
          total,
        ),
      );
      const job = await env.wait(
        await env.erase({
          images: [PRUNE_ALL],
          scan: { scanner: 'test' },
          nodeSelector: `kubernetes.io/hostname=${n1}`,
        }),
      );
      assert.equal(job.status?.phase, 'Failed', job.status?.message);
      const r = results(job)[n1]!;
      assert.equal(r.outcome, 'Failed');
      assert.match(r.reason, why);
      assert.ok((await nodeImageIds(c, 0)).has(vuln!.id), 'nothing removed');
    });
});
