// The Kubernetes releases the tests build (scripts/k8s-versions.mjs) match what builds them and
// what runs them: each release's go.mod requires that k8s.io/kubernetes and replaces every
// k8s.io staging module with the same release's v0.<minor>.<patch>; the default is the newest
// and is test/cluster/go.mod's; and scripts/test.mjs has a run on every older release.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

interface Versions {
  DEFAULT_K8S_VERSION: string;
  K8S_VERSIONS: string[];
  K8S_BUILDS: Record<string, { modfile?: string; tags: string[]; components: string[] }>;
  selectedK8sVersion(env: Record<string, string | undefined>): string;
}

const load = async () => (await import(path.join(repoRoot, 'scripts', 'k8s-versions.mjs'))) as Versions;
const clusterDir = path.join(repoRoot, 'test', 'cluster');

describe('the Kubernetes releases the tests build', () => {
  it('the default is the newest, built from test/cluster/go.mod', async () => {
    const v = await load();
    assert.equal(v.DEFAULT_K8S_VERSION, v.K8S_VERSIONS[0]);
    assert.equal(v.K8S_BUILDS[v.DEFAULT_K8S_VERSION]!.modfile, undefined);
    assert.deepEqual(Object.keys(v.K8S_BUILDS).sort(), [...v.K8S_VERSIONS].sort());
    const minor = (s: string) => Number(s.split('.')[1]);
    const sorted = [...v.K8S_VERSIONS].sort((a, b) => minor(b) - minor(a));
    assert.deepEqual(v.K8S_VERSIONS, sorted, 'newest first');
  });

  it("each release's go.mod requires it and replaces the staging modules with the same release", async () => {
    const v = await load();
    for (const version of v.K8S_VERSIONS) {
      const { modfile } = v.K8S_BUILDS[version]!;
      const file = path.join(clusterDir, modfile ?? 'go.mod');
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, new RegExp(`^\\s*k8s\\.io/kubernetes ${version.replace(/\./g, '\\.')}$`, 'm'), file);
      assert.ok(fs.existsSync(file.replace(/\.mod$/, '.sum')), `${file}: its go.sum`);
      const staging = `v0.${version.slice(3)}`;
      const replaces = [...text.matchAll(/^\s*(k8s\.io\/[\w-]+) => (k8s\.io\/[\w-]+) (\S+)$/gm)];
      assert.ok(replaces.length >= 30, `${file}: the staging replace list`);
      for (const [, from, to, at] of replaces) {
        assert.equal(to, from, `${file}: ${from}`);
        assert.equal(at, staging, `${file}: ${from}`);
      }
    }
  });

  it('INV_K8S_VERSION picks a release, and a release the tests do not build is refused', async () => {
    const v = await load();
    assert.equal(v.selectedK8sVersion({}), v.DEFAULT_K8S_VERSION);
    assert.equal(v.selectedK8sVersion({ INV_K8S_VERSION: 'v1.35.4' }), 'v1.35.4');
    assert.throws(
      () => v.selectedK8sVersion({ INV_K8S_VERSION: 'v1.34.3' }),
      /v1\.37\.2, v1\.36\.3, v1\.35\.4/,
    );
  });

  it('npm test has a run on every older release', async () => {
    const v = await load();
    const runs = fs.readFileSync(path.join(repoRoot, 'scripts', 'test.mjs'), 'utf8');
    for (const version of v.K8S_VERSIONS.slice(1))
      assert.ok(runs.includes(`INV_K8S_VERSION: '${version}'`), version);
  });
});
