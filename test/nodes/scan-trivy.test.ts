// Scan mode end to end with the real scanners on the whole local cluster: the erase controllers
// run worker Pods whose scanner container is inv's default scanner image (inv node-scan with
// Trivy v0.74.0 at /trivy), or Eraser v1.4.1's own Trivy scanner built from its source, from the
// administrator's `scanners:`. Trivy reads each node's containerd store through the CRI socket
// and the test vulnerability DB (Trivy's format, from YAML fixtures) from the scanner's
// cacheHostPath. On both nodes: the vulnerable unused image goes, the clean one stays, a running
// vulnerable one stays and is reported, an excluded one stays, the image of a Deployment scaled
// to zero stays under inventory protection and goes with --no-protect-inventory (as does the
// running image on the node that does not run it); Eraser's scanner gives the same removals.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { repoRoot } from '../support/paths.js';
import {
  CLEAN_BASH,
  VULNERABLE_BASH,
  debianImage,
  eraserScannerImage,
  invScannerImage,
  testDbCache,
  type ScannerImage,
} from '../support/scan.js';
import { runCli } from '../cli/run-cli.js';
import { importToNodes, nodeImageIds, NodeEraseEnv, results } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

/** Imports a scanner image archive into every node. */
async function importScanner(c: WholeCluster, img: ScannerImage): Promise<void> {
  const oci = (await import(path.join(repoRoot, 'scripts', 'oci-archive.mjs'))) as {
    importArchive(o: { address: string; file: string; snapshotter?: string }): void;
  };
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
      await until(`${img.ref} on node ${i + 1}`, async () =>
        (await cri.listImages()).some((x) => x.id === img.id),
      );
    } finally {
      cri.close();
    }
  }
}

// What Trivy itself must not do here, for Eraser's scanner (which passes its environment on to
// Trivy): download a DB, check its version, send telemetry, write a layer cache into the shared
// host folder (both "nodes" of this cluster are one host).
const ERASER_TRIVY_ENV = {
  TRIVY_SKIP_DB_UPDATE: 'true',
  TRIVY_SKIP_JAVA_DB_UPDATE: 'true',
  TRIVY_OFFLINE_SCAN: 'true',
  TRIVY_SKIP_VERSION_CHECK: 'true',
  TRIVY_DISABLE_TELEMETRY: 'true',
  TRIVY_CACHE_BACKEND: 'memory',
};

describe('erase --vulnerable with Trivy on real nodes (inv node-scan, and Eraser v1.4.1 scanner)', function () {
  this.timeout(600_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let tmp: string;
  let dbHost: string;
  let brokenHost: string;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(1_200_000);
    const [inv, eraser] = [await invScannerImage(), await eraserScannerImage()];
    await importScanner(c, inv);
    await importScanner(c, eraser);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scan-e2e-'));
    // The scanners' cacheHostPath: the test DB (only read: Trivy's layer cache stays in memory).
    dbHost = await testDbCache(fs.mkdtempSync(path.join(tmp, 'trivy-')));
    // A cache whose trivy.db Trivy cannot open (its metadata says it is fresh).
    brokenHost = await testDbCache(fs.mkdtempSync(path.join(tmp, 'trivy-broken-')));
    fs.writeFileSync(path.join(brokenHost, 'db', 'trivy.db'), 'not a bolt database'.repeat(400));
    env = await new NodeEraseEnv(c).setup();
    await env.config(
      [
        'allowUnprotected: true',
        'scanners:',
        '  trivy:',
        `    image: ${inv.ref}`,
        `    cacheHostPath: ${dbHost}`,
        '    config:',
        '      cacheDir: /var/lib/trivy',
        '      skipDBUpdate: true',
        '      timeout: {total: 5m, perImage: 2m}',
        '  trivy-broken-db:',
        `    image: ${inv.ref}`,
        `    cacheHostPath: ${brokenHost}`,
        '    config:',
        '      cacheDir: /var/lib/trivy',
        '      skipDBUpdate: true',
        '      timeout: {total: 5m, perImage: 2m}',
        '  eraser:',
        `    image: ${eraser.ref}`,
        `    cacheHostPath: ${dbHost}`,
        '    env:',
        ...Object.entries(ERASER_TRIVY_ENV).map(([k, v]) => `      - {name: ${k}, value: "${v}"}`),
        '    config:',
        '      cacheDir: /var/lib/trivy',
        '      timeout: {total: 5m, perImage: 2m}',
      ].join('\n'),
    );
    env.startControllers();
  });
  after(async () => {
    await env?.teardown();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Vulnerable and clean Debian-like images of role `what`, distinct per test. */
  const images = (scanner: string, roles: string[]) =>
    roles.map((role) =>
      debianImage(
        [`docker.io/library/e2e-trivy-${scanner}-${role}-${env.tag}:1`],
        role === 'clean' ? CLEAN_BASH : VULNERABLE_BASH,
        `${scanner}-${role}-${env.tag}`,
      ),
    );

  /**
   * The job Completed, or failed only because the scanner could not judge other images on the
   * nodes (images other test files left, which Trivy cannot read: each such candidate is
   * scan-failed and fails its node, as it should); this test's own images were judged.
   */
  const judged = async (job: Awaited<ReturnType<typeof env.wait>>, ids: string[]) => {
    const r = results(job);
    const why = `${job.status?.message} ${JSON.stringify(r)}`;
    if (job.status?.phase === 'Completed') return;
    assert.equal(job.status?.phase, 'Failed', why);
    for (const n of Object.values(r))
      assert.ok(n.outcome === 'Succeeded' || /could not be scanned/.test(n.reason), why);
    for (const pod of (await env.workers(job.metadata.name)).values()) {
      const message = pod.status?.containerStatuses?.find((x) => x.name === 'remover')?.state?.terminated
        ?.message;
      const rows = (JSON.parse(message ?? '{}') as { results?: { i: string; o: string }[] }).results ?? [];
      for (const id of ids)
        assert.ok(!rows.some((x) => x.i === id && x.o === 'scan-failed'), `${id} was judged: ${message}`);
    }
  };

  for (const scanner of ['trivy', 'eraser'] as const)
    it(`${scanner}: the vulnerable unused image goes; clean, running, excluded and inventory-protected ones stay`, async () => {
      const ns = env.namespace;
      const [n1, n2] = c.nodes.map((n) => n.name) as [string, string];
      const roles = ['vuln', 'clean', 'running', 'excluded', 'scaled'];
      const [vuln, clean, running, excluded, scaled] = await importToNodes(c, [0, 1], images(scanner, roles));
      const ref = (b: typeof vuln) => b!.refs[0]!;
      await env.runPod(n1, ref(running));
      await env.rest.request('POST', `/api/v1/namespaces/${env.configNamespace}/configmaps`, {
        body: {
          metadata: { name: `keep-${scanner}`, labels: { 'imageinventory.dev/exclusion-list': 'true' } },
          data: { 'excluded.json': JSON.stringify([ref(excluded)]) },
        },
      });
      await env.rest.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
        body: {
          metadata: { name: `scaled-${scanner}` },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: `scaled-${scanner}` } },
            template: {
              metadata: { labels: { app: `scaled-${scanner}` } },
              spec: { containers: [{ name: 'c', image: ref(scaled), imagePullPolicy: 'Never' }] },
            },
          },
        },
      });

      const job = await env.wait(await env.erase({ images: [PRUNE_ALL], scan: { scanner } }), 540_000);
      const r = results(job);
      await judged(job, [vuln!.id, clean!.id]);
      for (const [i, node] of [n1, n2].entries()) {
        const ids = await nodeImageIds(c, i);
        assert.ok(!ids.has(vuln!.id), `the vulnerable unused image is gone from ${node}`);
        for (const kept of [clean, excluded, scaled])
          assert.ok(ids.has(kept!.id), `${ref(kept)} stays on ${node}`);
        assert.ok(r[node]!.vulnerable! >= 1, JSON.stringify(r[node]));
      }
      // The running image: kept where it runs, and reported: the scanner is handed the images in
      // use and protected too (never removable), so the vulnerable running image is
      // vulnerable-kept on its node, and on the other node, where its Pod's reference protects it.
      for (const i of [0, 1])
        assert.ok((await nodeImageIds(c, i)).has(running!.id), 'the running image stays');
      assert.ok((r[n1]!.vulnerableKept ?? 0) >= 1 && (r[n2]!.vulnerableKept ?? 0) >= 1, JSON.stringify(r));
      if (scanner === 'trivy') {
        // inv's extension: the CVE details reach the node's result.
        assert.equal(r[n1]!.highestSeverity, 'CRITICAL');
        assert.ok(r[n1]!.cves! >= 3, JSON.stringify(r[n1]));
      }

      // Without inventory protection the Deployment's image is a candidate, and vulnerable.
      const open = await env.wait(
        await env.erase({ images: [PRUNE_ALL], scan: { scanner }, protectInventory: false }),
        540_000,
      );
      await judged(open, [scaled!.id]);
      for (const i of [0, 1]) {
        const ids = await nodeImageIds(c, i);
        assert.ok(
          !ids.has(scaled!.id),
          `--no-protect-inventory removes the scaled-to-zero image (node ${i + 1})`,
        );
        assert.ok(ids.has(clean!.id) && ids.has(excluded!.id), 'clean and excluded still stay');
      }
      // Unprotected, the running image goes where nothing runs it, and stays where it runs.
      assert.ok((await nodeImageIds(c, 0)).has(running!.id), 'the running image stays on its node');
      assert.ok(!(await nodeImageIds(c, 1)).has(running!.id), 'and goes where nothing runs it');
    });

  it('a DB Trivy cannot open: every candidate scan-failed and kept, the nodes and the job Failed, erase status exits 1', async () => {
    const [n1, n2] = c.nodes.map((n) => n.name) as [string, string];
    const [vuln, clean] = await importToNodes(c, [0, 1], images('broken', ['vuln', 'clean']));
    const req = await env.erase({ images: [PRUNE_ALL], scan: { scanner: 'trivy-broken-db' } });
    const job = await env.wait(req, 540_000);
    const r = results(job);
    assert.equal(job.status?.phase, 'Failed', `${job.status?.message} ${JSON.stringify(r)}`);
    for (const [i, node] of [n1, n2].entries()) {
      assert.equal(r[node]!.outcome, 'Failed', JSON.stringify(r[node]));
      assert.match(
        r[node]!.reason,
        /^\d+ images? could not be scanned \(kept unless deleteFailedImages\): Trivy exited 1: .*DB error/,
      );
      assert.ok((r[node]!.scanFailed ?? 0) >= 2, JSON.stringify(r[node]));
      assert.ok((r[node]!.scanFailures?.db ?? 0) >= 2, JSON.stringify(r[node]));
      assert.equal(r[node]!.removed, 0);
      const ids = await nodeImageIds(c, i);
      for (const kept of [vuln, clean]) assert.ok(ids.has(kept!.id), `${kept!.refs[0]} stays on ${node}`);
    }
    // The worker's own report, per image: scan-failed with Trivy's words, never clean.
    const pods = await env.workers(job.metadata.name);
    const message = pods.get(n1)?.status?.containerStatuses?.find((x) => x.name === 'remover')?.state
      ?.terminated?.message;
    const summary = JSON.parse(message ?? '{}') as { results?: { i: string; o: string; e?: string }[] };
    const row = summary.results?.find((x) => x.i === vuln!.id);
    assert.equal(row?.o, 'scan-failed', message);
    assert.match(row?.e ?? '', /DB error/);
    assert.ok(!summary.results?.some((x) => x.o === 'clean'), message);
    // The CLI's exit status says so too.
    const cli = runCli(['erase', 'status', job.metadata.name, '--kubeconfig', c.kubeconfig]);
    assert.equal(cli.status, 1, cli.stdout + cli.stderr);
    assert.match(cli.stdout + cli.stderr, /could not be scanned/);
  });
});
