/* eslint-disable no-control-regex -- the raw terminal output is matched for escape sequences */
// `inv scan -A` shows its progress on a terminal (issue 32): on a real pseudo-terminal of 80
// columns against the real API server, the spinner's line says how many namespaces are scanned
// ("Scanned 12/40 namespaces (last: ...)"), never wider than the terminal, with no colour under
// NO_COLOR; piped, stderr has no spinner and no progress line at all. ^C during such a scan:
// scan-interrupt.test.ts (SIGINT) and interrupt.test.ts (a ^C typed on the terminal).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { forEachConcurrent } from '../../src/core/concurrency.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, kubeconfigPath } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import { runOnPty } from '../support/pty.js';

const NAMESPACES = 20;

describe('inv scan -A: progress on a terminal, none when piped (real API server)', function () {
  this.timeout(60_000);
  let rest: KubeRest;
  // A long name, so that the progress line would pass 80 columns if it were not cut.
  const prefix = `progress-${Date.now().toString(36)}-a-namespace-name-long-enough-to-overflow`;
  const names = Array.from({ length: NAMESPACES }, (_, i) => `${prefix}-${i}`);

  before(async () => {
    rest = new KubeRest(adminConfig());
    await installCrds(rest);
    // A suspended CronJob each: no Pod, so no wait for the default ServiceAccount.
    await forEachConcurrent(names, 8, async (ns) => {
      await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
      await rest.request('POST', `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
        body: {
          metadata: { name: 'c' },
          spec: {
            schedule: '0 0 1 1 *',
            suspend: true,
            jobTemplate: {
              spec: {
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    containers: [{ name: 'c', image: `registry.example/${ns}:1` }],
                  },
                },
              },
            },
          },
        },
      });
    });
  });

  after(async () => {
    await forEachConcurrent(names, 8, async (ns) => {
      await rest.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    });
    rest.close();
  });

  it('on an 80-column terminal: a progress line with counts, fitted, without colour under NO_COLOR', async () => {
    const r = await runOnPty(['scan', '-A', '--dry-run', '--kubeconfig', kubeconfigPath()], {
      cols: 80,
      env: { NO_COLOR: '1' },
      timeoutMs: 50_000,
    });
    assert.equal(r.exitCode, 0, r.output);
    const progress = [...r.raw.matchAll(/Scanned (\d+)\/(\d+) namespaces/g)];
    assert.ok(progress.length > 0, `no progress line on the terminal:\n${r.raw.slice(0, 2000)}`);
    const total = Number(progress[0]![2]);
    assert.ok(total >= NAMESPACES, `total ${total}`);
    for (const m of progress) assert.ok(Number(m[1]) >= 1 && Number(m[1]) <= total, m[0]);
    // Every piece the spinner draws (between cursor moves and line ends) fits 80 columns.
    for (const piece of r.raw.split(/\x1b\[[0-9;?]*[A-Za-z]|\r|\n/))
      if (piece.includes('Scanned')) assert.ok([...piece].length <= 80, `wider than 80: ${piece}`);
    // NO_COLOR: no SGR sequence at all; the spinner hid the cursor and showed it again.
    assert.doesNotMatch(r.raw, /\x1b\[[0-9;]*m/);
    assert.ok(r.raw.lastIndexOf('\x1b[?25h') > r.raw.lastIndexOf('\x1b[?25l'));
    // The spinner's line is gone: the terminal shows the table, not a left-over frame.
    assert.doesNotMatch(r.output, /Scanned \d+\/\d+/);
  });

  it('piped: no spinner and no progress line on stderr', async () => {
    // The same several-namespace scan, named with -n so that it reads only this test's namespaces.
    const p = spawn(
      process.execPath,
      [
        path.join(repoRoot, 'bin', 'run.js'),
        'scan',
        ...names.flatMap((n) => ['-n', n]),
        '--dry-run',
        '--kubeconfig',
        kubeconfigPath(),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => p.on('close', (c) => r(c)));
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`${names[0]}`));
    assert.doesNotMatch(stderr, /Scann|\x1b/);
  });
});
