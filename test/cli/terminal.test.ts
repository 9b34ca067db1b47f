// What a person sees on a real terminal at 80 and 200 columns, and what a pipe gets: tables
// fitted to the width (long values cut with …, nothing wraps), whole values when piped or with
// -o wide, and `inv watch` logging text on a terminal but JSON lines when piped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';
import { kubeconfigPath } from '../support/kube.js';
import { runOnPty, watchOnPty } from './pty.js';
import { runCli } from './run-cli.js';

const MIGRATE =
  'ghcr.io/acme/migrate:v2@sha256:4c1e6a1b0d6ec2d58e74b1e8f4a8d07b7dd4e1b5e1a7f66a2f4c8b9e0d3a2f11';
const lines = (s: string) => s.split('\n').filter((l) => l !== '');

describe('on a terminal (pseudo-terminal)', () => {
  for (const columns of [80, 200]) {
    it(`inv scan -f fits ${columns} columns: no line wraps, long refs cut only when needed`, () => {
      const r = runOnPty(['scan', '-f', 'examples'], { columns });
      assert.equal(r.status, 0, r.output);
      const table = lines(r.output).filter((l) => !l.startsWith('warning:'));
      for (const l of table) assert.ok(l.length <= columns, `${l.length} > ${columns}: ${l}`);
      assert.match(table[0]!, /^IMAGE {3,}KINDS {3,}STATUS$/);
      if (columns === 80) assert.ok(table.some((l) => /^ghcr\.io\/acme\/migrate:v2@sha256:\S*… /.test(l)));
      else
        assert.ok(
          table.some((l) => l.startsWith(`${MIGRATE}   `)),
          'whole at 200 columns',
        );
    });

    it(`inv images --offline fits ${columns} columns`, () => {
      const r = runOnPty(['images', '--offline', '-f', 'examples'], { columns });
      assert.equal(r.status, 0, r.output);
      for (const l of lines(r.output)) assert.ok(l.length <= columns, `${l.length} > ${columns}: ${l}`);
      // Every example is in one namespace: on a terminal, that column collapses into one line.
      assert.equal(lines(r.output)[0], 'NAMESPACES: inv-demo (every row)');
      assert.match(lines(r.output)[1]!, /^IMAGE {3,}USERS {3}KINDS$/);
    });
  }

  it('-o wide shows whole values even at 80 columns; piped output is never cut', () => {
    const wide = runOnPty(['scan', '-f', 'examples', '-o', 'wide'], { columns: 80 });
    assert.ok(wide.output.includes(MIGRATE));
    assert.match(lines(wide.output)[0]!, /STATUS {3}NAME$/);
    const piped = runCli(['scan', '-f', 'examples'], { env: { COLUMNS: '80' } });
    assert.ok(piped.stdout.includes(`${MIGRATE}   Job`));
    assert.doesNotMatch(piped.stdout, /…/);
  });

  it('inv watch logs text on a terminal and JSON lines when piped; --log-format overrides', async () => {
    const daemon = [
      'watch',
      '--kubeconfig',
      kubeconfigPath(),
      '--health-probe-bind-address',
      '0',
      '--metrics-bind-address',
      '0',
    ];
    const tty = await watchOnPty(daemon, { columns: 120, done: /\n|INFO/ });
    const first = lines(tty)[0]!;
    assert.match(first, /^\S+ INFO +\S/, first);
    const json = await watchOnPty([...daemon, '--log-format', 'json'], { columns: 120, done: /\}\n/ });
    assert.doesNotThrow(() => JSON.parse(lines(json)[0]!));
    // Piped: stderr is a pipe, so JSON lines.
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...daemon], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let err = '';
      const t = setTimeout(() => reject(new Error(`no log line: ${err}`)), 30_000);
      child.stderr.on('data', (b: Buffer) => {
        err += b.toString();
        const i = err.indexOf('\n');
        if (i >= 0) {
          clearTimeout(t);
          resolve(err.slice(0, i));
        }
      });
    });
    child.kill('SIGTERM');
    assert.equal((JSON.parse(line) as { level: string }).level !== undefined, true, line);
  });
});
