// `inv node-remove --images '*' --scan-dir` on a containerd of its own, with the test scanner
// (test/scanner/main.go, a static Go binary speaking Eraser's contract with real named pipes) as
// a real process beside it: the scanner only narrows the * candidates; each way a scanner can
// fail removes nothing, within inv's own deadline.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectCri, type CriClient } from '../../src/core/cri/index.js';
import { criAvailable, runPod, waitForImages, type RunningPod } from '../support/cri.js';
import { buildImagesArchive, importImage } from '../support/oci.js';
import { repoRoot } from '../support/paths.js';
import { runNodeRemove } from './helpers.js';

interface CriScript {
  up(dir: string, opts?: { runtime?: string }): Promise<{ endpoint: string; address: string }>;
  down(dir: string): Promise<void>;
}
interface ScannerBuild {
  binary: string;
}

describe("inv node-remove --scan-dir: a real scanner process over Eraser's pipes (dedicated containerd)", function () {
  this.timeout(60_000);
  let script: CriScript;
  let dir = '';
  let endpoint: string;
  let cri: CriClient;
  let scannerBin = '';
  const pods: RunningPod[] = [];
  const procs: ChildProcess[] = [];
  const refs = {
    vuln: 'docker.io/library/scan-vuln:1',
    clean: 'docker.io/library/scan-clean:1',
    running: 'docker.io/library/scan-running:1',
    excluded: 'localhost:5000/keep/scan:1',
  };
  let id: Record<keyof typeof refs, string>;

  before(async function () {
    this.timeout(120_000);
    if (!criAvailable()) this.skip();
    const ts = (await import(path.join(repoRoot, 'scripts', 'test-scanner.mjs'))) as {
      buildTestScanner(): ScannerBuild;
    };
    scannerBin = ts.buildTestScanner().binary;
    script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scan-'));
    endpoint = (await script.up(path.join(dir, 'cri'))).endpoint;
    cri = await connectCri({ endpoint, timeoutMs: 10_000 });
    const file = path.join(dir, 'images.tar');
    const built = await buildImagesArchive(
      file,
      Object.entries(refs).map(([k, ref]) => ({ refs: [ref], distinct: `scan-${k}` })),
    );
    await importImage(file, endpoint.replace(/^unix:\/\//, ''));
    await waitForImages(
      cri,
      built.map((b) => b.id),
    );
    id = Object.fromEntries(Object.keys(refs).map((k, i) => [k, built[i]!.id])) as typeof id;
    pods.push(await runPod(cri, refs.running));
  });

  after(async () => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    for (const p of pods) await p.cleanup();
    cri?.close();
    if (dir) {
      await script.down(path.join(dir, 'cri'));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Starts the scanner on a fresh shared folder; resolves its exit code and stderr. */
  function scanner(mode: string, env: Record<string, string> = {}) {
    const shared = fs.mkdtempSync(path.join(dir, 'shared-'));
    const p = spawn(scannerBin, ['--shared-dir', shared], {
      env: {
        PATH: process.env.PATH,
        INV_TEST_SCANNER_MODE: mode,
        INV_TEST_SCANNER_VULNERABLE: `${refs.vuln},${refs.running},${refs.excluded}`,
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    procs.push(p);
    let stderr = '';
    p.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
      p.on('exit', (code) => resolve({ code, stderr })),
    );
    return { shared, done, proc: p };
  }

  const scanRun = (shared: string, extra: string[] = []) =>
    runNodeRemove(endpoint, [
      '--images',
      '*',
      '--exclude',
      'localhost:5000/keep/*',
      '--scan-dir',
      shared,
      '-o',
      'json',
      ...extra,
    ]);

  const byId = (r: Awaited<ReturnType<typeof runNodeRemove>>) =>
    Object.fromEntries((r.json?.results ?? []).filter((x) => x.imageId).map((x) => [x.imageId, x.outcome]));

  it('dry run: the named unused image would go, the clean one stays, named kept images are vulnerable-kept; an unknown name is a warning', async () => {
    const s = scanner('ok', { INV_TEST_SCANNER_EXTRA_IDS: `${id.running},sha256:${'e'.repeat(64)}` });
    const r = await scanRun(s.shared, ['--dry-run']);
    assert.equal(r.code, 0, r.stderr);
    const o = byId(r);
    assert.equal(o[id.vuln], 'would-remove');
    assert.equal(o[id.clean], 'clean');
    // The running image was sent so that it is reported; the scanner named it: kept, and said so.
    assert.equal(o[id.running], 'vulnerable-kept');
    assert.equal(o[id.excluded], 'excluded', 'never a candidate, never named by ID: untouched');
    const vuln = r.json!.results.find((x) => x.imageId === id.vuln) as { vulnerability?: unknown };
    assert.deepEqual(vuln.vulnerability, {
      status: 'vulnerable',
      cveCount: 3,
      highestSeverity: 'HIGH',
      cves: ['CVE-2099-0001', 'CVE-2099-0002', 'CVE-2099-0003'],
    });
    const scan = (r.json as unknown as { scan: Record<string, unknown> }).scan;
    assert.equal(scan.vulnerable, 1);
    assert.equal(scan.kept, 1);
    assert.equal(scan.highestSeverity, 'HIGH');
    assert.match(
      r.json!.warnings.join('\n'),
      /named 1 image\(s\) this node does not have, ignored: sha256:eee/,
    );
    const exit = await s.done;
    assert.equal(exit.code, 0, exit.stderr);
    // Handed over: the candidates (vuln, clean) and the kept images worth a report (the running
    // one, and whatever the runtime pins), never the excluded one (still 'excluded' above).
    assert.ok((scan.candidates as number) >= 3, JSON.stringify(scan));
    assert.match(exit.stderr, /received \d+ image\(s\)/);
    assert.match(exit.stderr, /complete/);
  });

  for (const [mode, why] of [
    ['crash', /never answered/],
    ['garbage', /not JSON/],
    ['oversize', /more than 16777216 bytes/],
    ['silent', /never answered \(no scanErase\)/],
    ['empty', /never answered/],
  ] as const) {
    it(`fails closed when the scanner ${mode === 'silent' ? 'never answers' : `is ${mode}`}: nothing removed, the reason`, async () => {
      const before = (await cri.listImages()).length;
      const s = scanner(mode);
      const started = Date.now();
      // Oversize must end at the size limit, not at the deadline.
      const r = await scanRun(s.shared, ['--scan-timeout', mode === 'oversize' ? '30s' : '2s']);
      assert.equal(r.code, 1, r.stderr);
      const failed = r.json!.results.find((x) => x.outcome === 'failed');
      assert.match(failed?.error ?? '', /^scan failed, nothing removed on this node: /);
      assert.match(failed!.error, why);
      assert.ok(!r.json!.results.some((x) => x.outcome === 'removed'));
      assert.equal((await cri.listImages()).length, before, 'nothing removed');
      assert.ok(Date.now() - started < 15_000, 'within the deadline');
      // The scanner was told to finish, or has died: it never outlives the run for long.
      if (mode !== 'silent') await s.done;
      else s.proc.kill('SIGKILL');
    });
  }

  it('a hanging scanner is cut at --scan-timeout, nothing removed', async () => {
    const s = scanner('hang');
    const started = Date.now();
    const r = await scanRun(s.shared, ['--scan-timeout', '1500ms']);
    const ms = Date.now() - started;
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.json!.results[0]!.error, /never answered/);
    assert.ok(ms >= 1500 && ms < 15_000, `${ms} ms`);
    s.proc.kill('SIGKILL');
  });

  it("Eraser's plain list (no extension) and an answer written as a file both work; the named image is removed", async () => {
    const plain = scanner('plain', { INV_TEST_SCANNER_VULNERABLE: 'nothing-here:1' });
    let r = await scanRun(plain.shared);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(byId(r)[id.vuln], 'clean');
    assert.equal((await plain.done).code, 0);

    const file = scanner('file');
    r = await scanRun(file.shared);
    assert.equal(r.code, 0, r.stderr);
    const o = byId(r);
    assert.equal(o[id.vuln], 'removed');
    assert.equal(o[id.clean], 'clean');
    const ids = new Set((await cri.listImages()).map((i) => i.id));
    assert.ok(!ids.has(id.vuln), 'the vulnerable unused image is gone');
    assert.ok(ids.has(id.clean) && ids.has(id.running) && ids.has(id.excluded), 'the rest stays');
    assert.equal((await file.done).code, 0);
  });
});
