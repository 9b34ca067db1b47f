// The install bundle (deploy/), read as files: the CRD copies match crds/ and are listed in the
// kustomization, the Deployment runs `inv watch --leader-elect` with probes, requests and a
// restricted security context as the image's own non-root user, and kustomize renders it.
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

  it('runs `inv watch --leader-elect` with probes, requests and a restricted security context', async () => {
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
    // The image (scripts/inv-image.mjs, what `npm run image` pushes and the tests deploy) runs as
    // the numeric non-root user the Pod's security context names. Its content:
    // test/nodes/install/worker-image.test.ts; pushed to a registry: test/install/image-push.test.ts.
    const image = (await import(path.join(repoRoot, 'scripts', 'inv-image.mjs'))) as { IMAGE_USER: string };
    assert.equal(image.IMAGE_USER, `${pod.securityContext?.runAsUser}:${pod.securityContext?.runAsGroup}`);
  });

  it('renders with kustomize (kubectl kustomize deploy/)', function () {
    const r = spawnSync('kubectl', ['kustomize', deployDir], { encoding: 'utf8' });
    if (r.error) this.skip(); // no kubectl on this machine
    assert.equal(r.status, 0, r.stderr);
    const kinds = parseAllDocuments(r.stdout).map((d) => (d.toJS() as Obj).kind);
    assert.ok(kinds.includes('Deployment') && kinds.includes('CustomResourceDefinition'));
  });
});
