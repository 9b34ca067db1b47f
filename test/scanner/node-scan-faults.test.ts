// inv node-scan against hostile inputs, each bounded in time: a Trivy that hangs (killed at
// timeout.perImage), one that prints garbage or dies, a candidate list that is garbage, a
// configuration with an unknown key, a remover that never completes. The "Trivy" here is a local
// script standing in for a broken binary; the real Trivy is in trivy-scan.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';
import { eraserConfigYaml, readAnswer, sendComplete, writeCandidates } from '../support/scan.js';
import { parseScanFailures, SCAN_FAILED_FILE } from '../../src/core/contract/scan-failures.js';

describe('inv node-scan with a broken Trivy, a garbage list, a bad configuration', function () {
  this.timeout(60_000);
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-node-scan-faults-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A stand-in Trivy: a shell script whose behaviour depends on the reference it is given. */
  const fakeTrivy = () => {
    const file = path.join(tmp, 'trivy');
    fs.writeFileSync(
      file,
      [
        '#!/bin/sh',
        'for last; do :; done',
        'case "$last" in',
        '  *hang*) exec sleep 60 ;;',
        '  *garbage*) echo "this is not json" ;;',
        '  *crash*) echo "FATAL boom" >&2; exit 3 ;;',
        `  *vuln*) echo '{"Results":[{"Vulnerabilities":[{"VulnerabilityID":"CVE-2099-0009","Severity":"LOW"}]}]}' ;;`,
        `  *) echo '{"Results":[]}' ;;`,
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    return file;
  };

  function start(settings: Record<string, unknown> | string, extraArgs: string[] = []) {
    const shared = fs.mkdtempSync(path.join(tmp, 'shared-'));
    const config = path.join(shared, '..', `config-${path.basename(shared)}.yaml`);
    fs.writeFileSync(config, typeof settings === 'string' ? settings : eraserConfigYaml(settings));
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, 'bin', 'run.js'),
        'node-scan',
        `--config=${config}`,
        '--shared-dir',
        shared,
        '--cri-socket',
        path.join(tmp, 'no.sock'),
        '--trivy',
        fakeTrivy(),
        ...extraArgs,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    return { shared, exited, stderr: () => stderr, kill: () => child.kill('SIGKILL') };
  }

  const img = (name: string) => ({
    image_id: `sha256:${name.padEnd(64, '0')}`,
    names: [`docker.io/t/${name}:1`],
  });

  it('a hung Trivy is killed at perImage, a garbage or crashing one fails that image only; failed images are kept', async () => {
    const s = start({ timeout: { total: '1m', perImage: '1s' } });
    try {
      const t0 = Date.now();
      writeCandidates(s.shared, [img('hang'), img('garbage'), img('crash'), img('vuln'), img('fine')]);
      const answer = await readAnswer(s.shared, 30_000);
      assert.ok(Date.now() - t0 < 20_000, 'the hung scan did not hold the node');
      assert.deepEqual(
        answer.map((a) => [a.names?.[0], a.inv?.status]),
        [['docker.io/t/vuln:1', 'vulnerable']],
      );
      await sendComplete(s.shared);
      assert.equal(await s.exited, 0, s.stderr());
      const failed = s
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"msg":"scan failed"'))
        .map((l) => (JSON.parse(l) as { reason: string }).reason);
      assert.equal(failed.length, 3);
      assert.match(failed[0]!, /did not finish within 1s/);
      assert.match(failed[1]!, /not JSON/);
      assert.match(failed[2]!, /exited 3: FATAL boom/);
      // inv's extension file, written before the answer: each failed image with a reason code.
      const list = parseScanFailures(fs.readFileSync(path.join(s.shared, SCAN_FAILED_FILE), 'utf8'));
      assert.deepEqual(
        list.map((f) => [f.image_id, f.reason]),
        [
          [img('hang').image_id, 'timeout'],
          [img('garbage').image_id, 'bad-report'],
          [img('crash').image_id, 'scanner-error'],
        ],
      );
      assert.match(list[2]!.message, /exited 3: FATAL boom/);
    } finally {
      s.kill();
    }
  });

  it('timeout.total ends the scanning: what is left counts as failed, and the answer still goes out', async () => {
    const s = start({ timeout: { total: '2s', perImage: '1m' }, deleteFailedImages: true });
    try {
      writeCandidates(s.shared, [img('hang'), img('vuln')]);
      const answer = await readAnswer(s.shared, 30_000);
      assert.deepEqual(
        answer.map((a) => a.inv?.status),
        ['scan-failed', 'scan-failed'],
      );
      await sendComplete(s.shared);
      assert.equal(await s.exited, 0, s.stderr());
    } finally {
      s.kill();
    }
  });

  it('a garbage candidate list: nothing answered, exit 1 with the reason', async () => {
    const s = start({});
    try {
      fs.writeFileSync(path.join(s.shared, 'collectScan'), '{"not": "a list"');
      assert.equal(await s.exited, 1);
      assert.ok(!fs.existsSync(path.join(s.shared, 'scanErase')));
      assert.match(s.stderr(), /image list is not JSON/);
    } finally {
      s.kill();
    }
  });

  it('an unknown key in the configuration: exit 2 naming it, before reading anything', async () => {
    const s = start({ cachedir: '/tmp' });
    assert.equal(await s.exited, 2);
    assert.match(s.stderr(), /unknown key \\"cachedir\\"/);
  });

  it('a remover that never completes: exit 1 after --finish-timeout, the answer written', async () => {
    const s = start({}, ['--finish-timeout', '1s']);
    try {
      writeCandidates(s.shared, [img('vuln')]);
      assert.equal(await s.exited, 1);
      assert.equal((await readAnswer(s.shared, 1000)).length, 1);
      assert.match(s.stderr(), /eraseCompleteScan did not appear in time/);
    } finally {
      s.kill();
    }
  });
});
