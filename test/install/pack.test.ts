// `npm pack` makes a package that installs globally with nothing else (it has no dependencies:
// the program is the production bundle, scripts/bundle.mjs), runs `inv --help` and
// `inv scan -f` from the install, and takes at most 11 MB installed. The install goes to a
// temporary prefix (`npm i -g --prefix`), offline: a registry is never asked for anything.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';

/** Bytes of the files under `dir` (what `du --apparent-size` counts). */
function treeBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += treeBytes(p);
    else if (e.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

describe('the npm package, installed globally', function () {
  this.timeout(180_000);
  let tmp: string;
  let prefix: string;
  let installed: string;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-npm-'));
    prefix = path.join(tmp, 'prefix');
    // The bundle from the current dist/src (npm pack's prepack would run the whole build).
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'bundle.mjs')], { stdio: 'ignore' });
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
        cwd: repoRoot,
        encoding: 'utf8',
      }),
    ) as { filename: string }[];
    execFileSync(
      'npm',
      [
        'i',
        '-g',
        '--prefix',
        prefix,
        '--offline',
        '--no-audit',
        '--no-fund',
        path.join(tmp, packed[0]!.filename),
      ],
      { cwd: tmp, encoding: 'utf8' },
    );
    installed = path.join(prefix, 'lib', 'node_modules', 'inv');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const inv = (args: string[]) =>
    spawnSync(path.join(prefix, 'bin', 'inv'), args, {
      cwd: tmp,
      encoding: 'utf8',
      // The installed program must not find the checkout's node_modules through NODE_PATH.
      env: { ...process.env, NODE_PATH: '', KUBECONFIG: path.join(tmp, 'no-kubeconfig') },
    });

  it('installs with no dependencies and takes at most 11 MB', () => {
    assert.ok(!fs.existsSync(path.join(installed, 'node_modules')), 'no node_modules inside the package');
    const bytes = treeBytes(installed);
    process.stderr.write(`      (installed: ${(bytes / 1e6).toFixed(2)} MB)\n`);
    assert.ok(bytes <= 11e6, `installed size ${bytes} bytes`);
  });

  it('carries every docs page its help texts, hints and manifests point at', () => {
    // `see docs/inventory.md` in a flag's help must lead somewhere on a machine with no checkout.
    const named = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(js|yaml|json)$/.test(e.name))
          for (const m of fs.readFileSync(p, 'utf8').matchAll(/docs\/[\w./-]+\.(?:md|json)/g))
            named.add(m[0]);
      }
    };
    for (const d of ['dist', 'crds', 'deploy']) walk(path.join(installed, d));
    assert.ok(named.size > 0, 'the package names docs pages');
    const missing = [...named].filter((f) => !fs.existsSync(path.join(installed, f)));
    assert.deepEqual(missing, []);
  });

  it('runs inv --help, inv --version and the kubectl plugin name', () => {
    const help = inv(['--help']);
    assert.equal(help.status, 0, help.stderr);
    for (const c of ['scan', 'node-remove', 'watch', 'erase', 'completion'])
      assert.match(help.stdout, new RegExp(`\\b${c}\\b`));
    assert.doesNotMatch(help.stdout, /\bautocomplete\b/, 'one completion command: completion');
    const v = inv(['--version']);
    assert.match(v.stdout, /^inv\/\d+\.\d+\.\d+ /);
    const k = spawnSync(path.join(prefix, 'bin', 'kubectl-inv'), ['scan', '--help'], { encoding: 'utf8' });
    assert.equal(k.status, 0, k.stderr);
  });

  it('runs every command’s --help', () => {
    for (const c of [
      'check',
      'erase',
      'images',
      'install',
      'node-remove',
      'scan',
      'uninstall',
      'version',
      'watch',
    ]) {
      const r = inv([c, '--help']);
      assert.equal(r.status, 0, `${c} --help: ${r.stderr}`);
      assert.match(r.stdout, /USAGE/);
    }
  });

  it('runs inv scan -f on the examples, offline, like the checkout does', () => {
    const args = ['scan', '-f', path.join(repoRoot, 'examples'), '-o', 'json'];
    const r = inv(args);
    assert.equal(r.status, 0, r.stderr);
    const checkout = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
      encoding: 'utf8',
    });
    assert.deepEqual(JSON.parse(r.stdout), JSON.parse(checkout.stdout));
  });

  it('writes the installed manifests from the package (inv install --dry-run)', () => {
    const r = inv(['install', '--daemon', '--dry-run']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /CustomResourceDefinition|customresourcedefinition/i);
  });
});
