// The install bundle (deploy/), read as files: the CRD copies match crds/ and are listed in the
// kustomization, the Deployment runs `inv watch --leader-elect` with probes, requests and a
// restricted security context, the Dockerfile is pinned and non-root, and kustomize renders it.
// The daemon running with nothing more than the shipped RBAC: deploy-rbac.test.ts.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../support/paths.js';
import { bundle, deployDir, kustomization, SA, SYSTEM_NS, type Obj } from './deploy-helpers.js';

describe('deploy/ install bundle', function () {
  this.timeout(120_000);

  it('ships copies of every CRD in crds/, identical to the originals, and lists them', () => {
    const originals = fs.readdirSync(path.join(repoRoot, 'crds')).filter((f) => /\.ya?ml$/.test(f));
    const resources = kustomization().resources;
    for (const f of originals) {
      const copy = path.join(deployDir, 'crds', f);
      assert.ok(
        fs.existsSync(copy),
        `deploy/crds/${f} is missing: cp crds/${f} deploy/crds/ and list it in deploy/kustomization.yaml`,
      );
      assert.equal(
        fs.readFileSync(copy, 'utf8'),
        fs.readFileSync(path.join(repoRoot, 'crds', f), 'utf8'),
        `deploy/crds/${f} differs from crds/${f}: cp crds/${f} deploy/crds/`,
      );
      assert.ok(resources.includes(`crds/${f}`), `crds/${f} is not listed in deploy/kustomization.yaml`);
    }
    for (const r of resources)
      assert.ok(fs.existsSync(path.join(deployDir, r)), `deploy/${r} does not exist`);
  });

  it('runs `inv watch --leader-elect` with probes, requests and a restricted security context', () => {
    const all = bundle();
    const dep = all.find((o) => o.kind === 'Deployment') as unknown as k8s.V1Deployment;
    const pod = dep.spec!.template.spec!;
    const c = pod.containers[0]!;
    assert.deepEqual(c.args?.slice(0, 2), ['watch', '--leader-elect']);
    assert.ok(c.livenessProbe?.httpGet?.path === '/healthz' && c.readinessProbe?.httpGet?.path === '/readyz');
    assert.ok(c.resources?.requests?.cpu && c.resources.requests.memory);
    assert.equal(pod.securityContext?.runAsNonRoot, true);
    assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault');
    assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
    assert.deepEqual(c.securityContext?.capabilities?.drop, ['ALL']);
    assert.equal(pod.serviceAccountName, SA);
    const leArg = c.args?.find((a) => a.startsWith('--leader-elect-namespace='));
    assert.equal(leArg, `--leader-elect-namespace=${SYSTEM_NS}`);
    for (const kind of [
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'NetworkPolicy',
    ]) {
      assert.ok(
        all.some((o) => o.kind === kind),
        `${kind} missing from the bundle`,
      );
    }
    // The Dockerfile: built on the official Node LTS image pinned by digest; the runtime stage is
    // `scratch` holding the stripped node, its libraries and the bundle (as the worker image);
    // non-root numeric user matching the Pod's.
    const dockerfile = fs.readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    // Scan mode's scanner image adds two named stages before the default one: Trivy built from
    // the Go module proxy (`trivy-build`, the Go toolchain image at an exact version) and
    // `trivy-scanner` (scratch). The default image stays the last stage.
    const stages = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gm)].map((m) => [m[1]!, m[2]]);
    // Every stage that is not scratch is pinned by digest: a rebuilt tag cannot change the build.
    for (const [from] of stages)
      assert.ok(
        from === 'scratch' || /^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/.test(from!),
        `${from} is not pinned`,
      );
    const froms = stages
      .filter(([, name]) => name !== 'trivy-build' && name !== 'trivy-scanner')
      .map(([f]) => f!);
    assert.ok(
      froms.length >= 2 &&
        froms.slice(0, -1).every((f) => /^node:(20|22|24)-[\w.-]+@sha256:[0-9a-f]{64}$/.test(f)) &&
        froms.at(-1) === 'scratch' &&
        stages.at(-1)![1] === undefined,
      `FROM lines: ${froms.join(', ')}`,
    );
    assert.ok(
      stages.some(
        ([f, name]) => name === 'trivy-build' && /^golang:\d+\.\d+\.\d+-\w+@sha256:[0-9a-f]{64}$/.test(f!),
      ),
      'Trivy is built with an exact Go version',
    );
    assert.match(dockerfile, /strip --strip-all/);
    assert.match(dockerfile, /dist\/bundle/);
    // The worker's compile cache, made and found as scripts/worker-image.mjs does it.
    assert.match(dockerfile, /node scripts\/compile-cache\.mjs \/rootfs\/usr\/bin\/node \/rootfs\/app/);
    assert.match(dockerfile, /NODE_COMPILE_CACHE=\/app\/\.node-compile-cache NODE_COMPILE_CACHE_PORTABLE=1/);
    assert.doesNotMatch(dockerfile, /node_modules \.\/node_modules|COPY --from=\w+ \/app\/node_modules/);
    const user = /^USER\s+(\d+)/m.exec(dockerfile)?.[1];
    assert.equal(Number(user), pod.securityContext?.runAsUser);
  });

  it('renders with kustomize (kubectl kustomize deploy/)', function () {
    const r = spawnSync('kubectl', ['kustomize', deployDir], { encoding: 'utf8' });
    if (r.error) this.skip(); // no kubectl on this machine
    assert.equal(r.status, 0, r.stderr);
    const kinds = parseAllDocuments(r.stdout).map((d) => (d.toJS() as Obj).kind);
    assert.ok(kinds.includes('Deployment') && kinds.includes('CustomResourceDefinition'));
  });
});
