// How inv meets kubectl and oclif users: the kubectl-inv plugin entry point, run by the
// same-release kubectl the tests build; "did you mean" from our command_not_found hook; one
// shell completion command, `inv completion` (test/cli/completion*.test.ts load its scripts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kubeconfigPath } from '../support/kube.js';
import { kubectlBin, repoRoot } from '../support/paths.js';
import { runCli } from './run-cli.js';

describe('kubectl plugin and oclif plugins', function () {
  this.timeout(120_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-plugins-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('kubectl inv', () => {
    // What `npm install -g` does: a kubectl-inv link in a bin directory on the PATH.
    const binDir = path.join(tmp, 'bin');
    fs.mkdirSync(binDir);
    fs.symlinkSync(path.join(repoRoot, 'bin', 'kubectl-inv'), path.join(binDir, 'kubectl-inv'));
    const kubectl = (args: string[]) =>
      spawnSync(kubectlBin, args, {
        cwd: tmp,
        encoding: 'utf8',
        env: {
          ...process.env,
          NO_COLOR: '1',
          PATH: [binDir, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
        },
      });

    it('is found by `kubectl plugin list`', () => {
      const r = kubectl(['plugin', 'list']);
      assert.match(r.stdout, new RegExp(`^${path.join(binDir, 'kubectl-inv')}$`, 'm'), r.stderr);
    });

    it('runs inv commands: `kubectl inv scan` offline, `kubectl inv version` against the cluster', () => {
      const scan = kubectl(['inv', 'scan', '-f', path.join(repoRoot, 'examples'), '-o', 'json']);
      assert.equal(scan.status, 0, scan.stderr);
      assert.equal((JSON.parse(scan.stdout) as { kind: string }).kind, 'ScanReport');
      const v = kubectl(['inv', 'version', '--kubeconfig', kubeconfigPath()]);
      assert.equal(v.status, 0, v.stderr);
      assert.match(v.stdout, /^Client: inv 0\.1\.0 /);
      assert.match(v.stdout, /^Server: v1\.\d+\.\d+ /m);
    });
  });

  describe('kubectl inv --help', () => {
    it('says `kubectl inv` in its usage and examples when run as the plugin', () => {
      const binDir = path.join(tmp, 'bin-help');
      fs.mkdirSync(binDir);
      fs.symlinkSync(path.join(repoRoot, 'bin', 'kubectl-inv'), path.join(binDir, 'kubectl-inv'));
      const r = spawnSync(kubectlBin, ['inv', 'erase', '--help'], {
        cwd: tmp,
        encoding: 'utf8',
        env: {
          ...process.env,
          NO_COLOR: '1',
          PATH: [binDir, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
        },
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^ {2}\$ kubectl inv erase /m);
      assert.match(r.stdout, /^ {4}\$ kubectl inv erase --images /m);
      assert.doesNotMatch(r.stdout, /\$ inv /);
      // Run as inv, it stays inv.
      assert.match(runCli(['erase', '--help']).stdout, /^ {2}\$ inv erase /m);
    });
  });

  describe('oclif plugins', () => {
    it('a mistyped command exits 127 with one error naming the closest commands, as kubectl does', () => {
      const r = runCli(['scna', '-n', 'shop']);
      assert.equal(r.status, 127);
      assert.equal(
        r.stderr,
        'error: unknown command "scna" for "inv"\nDid you mean this?\n\tscan\nRun \'inv help\' for the list of commands.\n',
      );
      assert.equal(r.stdout, '');
      // The same on a terminal: no question that a script could hang on.
      const tty = spawnSync('script', ['-qec', `${process.execPath} bin/run.js scna`, '/dev/null'], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 30_000,
      });
      assert.equal(tty.status, 127);
      assert.match(tty.stdout, /error: unknown command "scna" for "inv"\r?\nDid you mean this\?\r?\n\tscan/);
    });

    it("lists one completion command, kubectl's: completion (no oclif autocomplete)", () => {
      const help = runCli(['--help']);
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /^\s+completion\s/m);
      assert.doesNotMatch(help.stdout, /autocomplete/);
      const r = runCli(['autocomplete']);
      assert.equal(r.status, 127, r.stderr);
      const bash = runCli(['completion', 'bash']);
      assert.equal(bash.status, 0, bash.stderr);
      assert.match(bash.stdout, /__complete/);
    });
  });
});
