// What `inv install` applies ships inside the npm package and is the same as deploy/:
// the reader's output equals `kubectl kustomize deploy/` (the same-release kubectl the tests
// build), and a packed copy of the package, unpacked away from the checkout, installs the same
// objects.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readBundle } from '../../src/core/install/bundle.js';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { kubectlBin, repoRoot } from '../support/paths.js';

const kubectl = kubectlBin;
const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byKey = (objects: KubeObject[]) => new Map(objects.map((o) => [key(o), o]));

describe('the install bundle', function () {
  this.timeout(120_000);

  it('is exactly what `kubectl kustomize deploy/` renders', () => {
    const out = execFileSync(kubectl, ['kustomize', path.join(repoRoot, 'deploy')], { encoding: 'utf8' });
    const rendered = parseAllDocuments(out).map((d) => d.toJS() as KubeObject);
    const ours = readBundle();
    assert.equal(ours.length, rendered.length);
    const expected = byKey(rendered);
    for (const o of ours) assert.deepEqual(o, expected.get(key(o)), key(o));
  });

  it('ships in the npm package, and a packed copy installs the same objects without the checkout', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-pack-'));
    try {
      const packed = JSON.parse(
        execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
          cwd: repoRoot,
          encoding: 'utf8',
        }),
      ) as { filename: string; files: { path: string }[] }[];
      const files = packed[0]!.files.map((f) => f.path);
      for (const f of [
        'bin/run.js',
        'bin/kubectl-inv',
        'bin/kubectl_complete-inv',
        'crds/imageinventory.dev_images.yaml',
        'deploy/kustomization.yaml',
        'deploy/deployment.yaml',
        'deploy/crds/imageinventory.dev_images.yaml',
        'dist/bundle/run.js',
        'dist/bundle/commands/install.js',
        'dist/bundle/oclif.manifest.json',
      ])
        assert.ok(files.includes(f), `${f} is not in the package`);
      assert.ok(!files.some((f) => /^(dist\/(test|src)|test|src|node_modules)\//.test(f)));
      execFileSync('tar', ['-xzf', path.join(tmp, packed[0]!.filename), '-C', tmp]);
      const pkg = path.join(tmp, 'package');
      // No node_modules: the package is its bundle, its data and nothing else.
      const run = (dir: string) =>
        spawnSync(process.execPath, [path.join(dir, 'bin', 'run.js'), 'install', '--daemon', '--dry-run'], {
          cwd: tmp,
          encoding: 'utf8',
        });
      const fromPackage = run(pkg);
      assert.equal(fromPackage.status, 0, fromPackage.stderr);
      assert.equal(fromPackage.stdout, run(repoRoot).stdout);
      const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')) as {
        bin: Record<string, string>;
      };
      assert.deepEqual(manifest.bin, {
        inv: './bin/run.js',
        'kubectl-inv': './bin/kubectl-inv',
        'kubectl_complete-inv': './bin/kubectl_complete-inv',
      });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
