// Ctrl-C on a real pseudo-terminal (test/support/pty.ts): whatever the command is doing (a
// spinner over a server that never answers, a confirmation prompt), ^C ends it within a second
// with exit 130 and one line saying it was interrupted; piped, the same. The erase cases (a job
// left running in the cluster) are in test/erase/cli/interrupt.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { EXIT_INTERRUPTED } from '../../src/cli/process/exit-codes.js';
import { repoRoot } from '../support/paths.js';
import { CTRL_C, runOnPty } from '../support/pty.js';
import { silentApiServer, type SilentApiServer } from '../support/servers/silent-apiserver.js';

describe('Ctrl-C (real pseudo-terminal)', function () {
  this.timeout(60_000);
  let hung: SilentApiServer;
  before(async () => {
    hung = await silentApiServer();
  });
  after(async () => {
    await hung.close();
  });

  for (const cols of [80, 200]) {
    it(`stops a hung \`scan -A\` while its spinner shows, within a second, exit 130 (${cols} columns)`, async () => {
      const r = await runOnPty(['scan', '-A', '--kubeconfig', hung.kubeconfig, '--request-timeout', '10m'], {
        cols,
        // The spinner has drawn at least once: the terminal is in whatever mode ora left it.
        steps: [{ wait: 'Scanning|Listing|Reading|⠋|⠙|⠹', send: CTRL_C }],
        timeoutMs: 20_000,
      });
      assert.equal(r.stepsDone, 1, r.output);
      assert.equal(r.exitCode, EXIT_INTERRUPTED, r.output);
      assert.ok(r.exitedAtMs - r.sentAtMs[0]! < 1000, `exited ${r.exitedAtMs - r.sentAtMs[0]!} ms after ^C`);
      assert.match(r.output, /^interrupted/m);
      assert.doesNotMatch(r.output, /AbortError|at .*\.js:\d+/);
      // The cursor the spinner hid is shown again.
      assert.ok(r.raw.lastIndexOf('\u001b[?25h') > r.raw.lastIndexOf('\u001b[?25l'));
    });
  }

  it('piped (no terminal): SIGINT ends a hung scan with exit 130 and the interrupted line', async () => {
    const p = spawn(
      process.execPath,
      [
        path.join(repoRoot, 'bin', 'run.js'),
        'scan',
        '-A',
        '--kubeconfig',
        hung.kubeconfig,
        '--request-timeout',
        '10m',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Wait until a request reached the server (the command is past start-up and waiting).
    const before = hung.requests();
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (hung.requests() > before) {
          clearInterval(t);
          resolve();
        }
      }, 50);
    });
    const sent = Date.now();
    p.kill('SIGINT');
    const code = await new Promise<number | null>((r) => p.on('close', (c) => r(c)));
    assert.equal(code, EXIT_INTERRUPTED, stderr);
    assert.ok(Date.now() - sent < 1000);
    assert.match(stderr, /^interrupted/m);
  });
});
