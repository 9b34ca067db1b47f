// Scan mode's default scanner on a real containerd, with real Trivy (v0.74.0, built from Go
// modules) and a vulnerability DB in Trivy's own format (scripts/trivy-testdb, from YAML
// fixtures): Trivy itself against the DB, then `inv node-scan` speaking Eraser's contract with
// the test playing inv node-remove's side (collectScan in, scanErase out, `complete`), then the
// scanner images as real containers: inv's, and Eraser's own Trivy scanner built from v1.4.1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CriClient } from '../../src/core/cri/index.js';
import * as pods from '../../src/core/cri/pods.js';
import { connect, criAddress, criAvailable, runPod, waitFor, waitForImages } from '../support/cri.js';
import { addImages, importImage, type BuiltImage } from '../support/oci.js';
import {
  CLEAN_BASH,
  TEST_CVES,
  VULNERABLE_BASH,
  debianImage,
  eraserConfigYaml,
  eraserScannerImage,
  invScannerImage,
  readAnswer,
  runNodeScan,
  sendComplete,
  testDbCache,
  trivyBinary,
  writeCandidates,
  type AnsweredImage,
  type ContractImage,
} from '../support/scan.js';

const VULN = 'docker.io/inv-test/scan-vulnerable:1';
const CLEAN = 'docker.io/inv-test/scan-clean:1';
const PLAIN = 'docker.io/inv-test/scan-plain:1';

describe('scan mode: Trivy and inv node-scan on a real containerd', function () {
  this.timeout(600_000);
  let cri: CriClient;
  let tmp: string;
  let trivy: string;
  let vuln: BuiltImage, clean: BuiltImage, plain: BuiltImage;
  const settings = (cacheDir: string, extra: Record<string, unknown> = {}) => ({
    cacheDir,
    skipDBUpdate: true,
    timeout: { total: '5m', perImage: '2m' },
    ...extra,
  });
  const asCandidate = (b: BuiltImage): ContractImage => ({
    image_id: b.id,
    names: b.refs.filter((r) => !r.includes('@')),
    digests: b.refs.filter((r) => r.includes('@')),
  });

  before(async function () {
    if (!criAvailable()) this.skip();
    cri = await connect();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scan-test-'));
    trivy = await trivyBinary();
    const built = await addImages([
      debianImage([VULN], VULNERABLE_BASH),
      debianImage([CLEAN], CLEAN_BASH),
      { refs: [PLAIN], distinct: 'scan-plain', digestRefs: true },
    ]);
    [vuln, clean, plain] = built as [BuiltImage, BuiltImage, BuiltImage];
    await waitForImages(cri, [vuln.id, clean.id, plain.id]);
  });

  after(async () => {
    for (const b of [vuln, clean, plain]) if (b) await cri?.removeImage(b.id).catch(() => undefined);
    cri?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A fresh folder under tmp. */
  const fresh = (name: string) => fs.mkdtempSync(path.join(tmp, `${name}-`));

  it("Trivy reads the test DB and finds the fixtures' advisories through containerd's socket", async () => {
    const cache = await testDbCache(fresh('cache'));
    const scan = (ref: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          trivy,
          [
            'image',
            '--format=json',
            '--quiet',
            '--cache-dir',
            cache,
            '--skip-db-update',
            '--skip-java-db-update',
            '--offline-scan',
            '--skip-version-check',
            '--scanners',
            'vuln',
            '--image-src',
            'containerd',
            ref,
          ],
          {
            env: { PATH: process.env.PATH, CONTAINERD_ADDRESS: criAddress(), CONTAINERD_NAMESPACE: 'k8s.io' },
            maxBuffer: 16 << 20,
            timeout: 120_000,
          },
          (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? -1) : 0, stdout, stderr }),
        );
      });
    const v = await scan(VULN);
    assert.equal(v.code, 0, v.stderr);
    const report = JSON.parse(v.stdout) as {
      Metadata: { OS: { Family: string; Name: string } };
      Results: { Vulnerabilities?: { VulnerabilityID: string; Severity: string; PkgName: string }[] }[];
    };
    assert.equal(report.Metadata.OS.Family, 'debian');
    assert.match(report.Metadata.OS.Name, /^12/);
    const found = report.Results.flatMap((r) => r.Vulnerabilities ?? []);
    assert.deepEqual(found.map((f) => f.VulnerabilityID).sort(), TEST_CVES);
    assert.deepEqual([...new Set(found.map((f) => f.PkgName))].sort(), ['bash', 'zlib1g']);
    const c = await scan(CLEAN);
    assert.equal(c.code, 0, c.stderr);
    const cleanReport = JSON.parse(c.stdout) as typeof report;
    assert.equal(cleanReport.Metadata.OS.Family, 'debian');
    assert.deepEqual(
      cleanReport.Results.flatMap((r) => r.Vulnerabilities ?? []),
      [],
    );
  });

  /** `inv node-scan` on this host against the run's containerd, with a fresh copy of the test DB. */
  const nodeScan = async (candidates: ContractImage[], extra: Record<string, unknown> = {}) =>
    runNodeScan({
      dir: tmp,
      trivy,
      socket: criAddress(),
      settings: settings(await testDbCache(fresh('cache')), extra),
      candidates,
    });

  it('inv node-scan answers with the vulnerable image only, with its CVE count, severity and ids', async () => {
    const { answer, stderr } = await nodeScan([vuln, clean, plain].map(asCandidate));
    // The busybox-only image has no `created` in its history, on which Trivy v0.74.0 crashes:
    // a real scan failure, so that image is kept.
    assert.match(stderr, new RegExp(`"msg":"scan failed","imageID":"${plain.id}"`));
    assert.deepEqual(answer, [
      {
        ...asCandidate(vuln),
        inv: { status: 'vulnerable', cveCount: 3, highestSeverity: 'CRITICAL', cves: TEST_CVES },
      },
    ]);
  });

  it("the requester's policy reaches Trivy: unfixed ignored, only CRITICAL counted", async () => {
    const { answer } = await nodeScan([vuln, clean].map(asCandidate), {
      vulnerabilities: { ignoreUnfixed: true, severities: ['CRITICAL'] },
    });
    assert.deepEqual(
      answer.map((a) => [a.image_id, a.inv]),
      [
        [
          vuln.id,
          { status: 'vulnerable', cveCount: 1, highestSeverity: 'CRITICAL', cves: ['CVE-2099-0001'] },
        ],
      ],
    );
    const none = await nodeScan([vuln].map(asCandidate), { vulnerabilities: { severities: ['LOW'] } });
    assert.deepEqual(none.answer, []);
  });

  it('an image Trivy cannot scan is kept, and sent as scan-failed only with deleteFailedImages', async () => {
    const ghost: ContractImage = {
      image_id: `sha256:${'0'.repeat(64)}`,
      names: ['docker.io/inv-test/absent:1'],
    };
    const kept = await nodeScan([ghost]);
    assert.deepEqual(kept.answer, []);
    assert.match(kept.stderr, /"msg":"scan failed"/);
    const sent = await nodeScan([ghost], { deleteFailedImages: true });
    assert.deepEqual(sent.answer, [{ ...ghost, inv: { status: 'scan-failed' } }]);
  });

  /**
   * Runs a scanner image as a real container on the run's containerd, laid out as a worker Pod
   * lays it out: the shared folder, the CRI socket at /run/cri/cri.sock, the config file, a
   * writable Trivy cache with the DB; Eraser's environment variables.
   */
  async function scannerContainer(
    imageRef: string,
    configPath: string,
    candidates: ContractImage[],
    extra: Record<string, unknown> = {},
    envs: Record<string, string> = {},
  ) {
    const shared = fresh('shared');
    const cache = await testDbCache(fresh('cache'));
    const config = path.join(fresh('config'), 'config.yaml');
    fs.writeFileSync(config, eraserConfigYaml(settings('/var/lib/trivy', extra)));
    const logs = fresh('logs');
    const pod = await runPod(cri, imageRef, {
      command: [],
      args: [`--config=${configPath}`],
      mounts: [
        { containerPath: '/run/eraser.sh/shared-data', hostPath: shared },
        { containerPath: '/run/cri/cri.sock', hostPath: criAddress() },
        { containerPath: configPath, hostPath: config, readonly: true },
        { containerPath: '/var/lib/trivy', hostPath: cache },
      ],
      envs: {
        CONTAINERD_NAMESPACE: 'k8s.io',
        ERASER_RUNTIME_NAME: 'containerd',
        NODE_NAME: 'test-node',
        ...envs,
      },
      runAsUser: 0,
      noWait: true,
      logDirectory: logs,
    });
    const log = () => {
      try {
        return fs.readFileSync(path.join(logs, 'main.log'), 'utf8').slice(-4000);
      } catch {
        return '(no log)';
      }
    };
    try {
      writeCandidates(shared, candidates);
      let answer: AnsweredImage[];
      try {
        answer = await readAnswer(shared, 240_000);
      } catch (e) {
        throw new Error(`${(e as Error).message}\n${log()}`);
      }
      await sendComplete(shared);
      const st = await waitFor(
        'the scanner container to exit',
        async () => {
          const s = await pods.containerStatus(cri, pod.containerId);
          return s.state === 'CONTAINER_EXITED' ? s : undefined;
        },
        60_000,
        200,
      );
      assert.equal(st.exitCode, 0, log());
      return answer;
    } finally {
      await pod.cleanup();
    }
  }

  it('the inv scanner image (inv node-scan, Trivy at /trivy) gives the same answer as a container', async () => {
    const image = await invScannerImage();
    await importImage(image.file);
    const answer = await scannerContainer(
      image.ref,
      '/run/inv/scanner/config.yaml',
      [vuln, clean, plain].map(asCandidate),
    );
    assert.deepEqual(
      answer.map((a) => [a.image_id, a.inv?.status, a.inv?.cveCount]),
      [[vuln.id, 'vulnerable', 3]],
    );
  });

  it("Eraser's own Trivy scanner (v1.4.1, built from source) runs unchanged and names the same image", async () => {
    const image = await eraserScannerImage();
    await importImage(image.file);
    // Eraser's scanner hands its environment to Trivy: keep Trivy off the network, as the
    // skipDBUpdate setting does for inv node-scan.
    const offline = {
      TRIVY_SKIP_DB_UPDATE: 'true',
      TRIVY_SKIP_JAVA_DB_UPDATE: 'true',
      TRIVY_OFFLINE_SCAN: 'true',
      TRIVY_SKIP_VERSION_CHECK: 'true',
      TRIVY_DISABLE_TELEMETRY: 'true',
    };
    const run = (extra: Record<string, unknown>) =>
      scannerContainer(
        image.ref,
        '/config/controller_manager_config.yaml',
        [vuln, clean, plain].map(asCandidate),
        extra,
        offline,
      );
    // With the policy inv writes into every scanner's configuration: Eraser's shape, without
    // inv's extension, and the same removal.
    assert.deepEqual(await run({ deleteFailedImages: false, deleteEOLImages: false }), [asCandidate(vuln)]);
    // With Eraser's own defaults (deleteFailedImages: true) it also names the image Trivy could
    // not scan: what inv's defaults keep.
    assert.deepEqual(await run({}), [asCandidate(vuln), asCandidate(plain)]);
  });
});
