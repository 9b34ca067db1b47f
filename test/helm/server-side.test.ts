// Helm 4 applies server-side, and what that changes for the chart's users, on a real API server:
// helm's fields are recorded as applied; a field someone changed with kubectl (here a client-side
// patch of inv-erase-config, as `kubectl edit` makes) is theirs, so the next `helm upgrade` stops
// with a conflict naming them instead of putting the values back, and --force-conflicts takes it
// back; the CRDs Helm installed from crds/ (which it never upgrades) take the docs' CRD upgrade
// without a warning, and it drops what the new CRDs no longer have (the Image CRD's status
// subresource). A private API server, as the install creates cluster-wide objects.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { KubeRest } from '../../src/core/kube/rest.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { chartDir, helm, IMAGE_VALUES, warnings, type Run } from '../support/helm.js';
import { kubectlBin } from '../support/paths.js';
import { IMAGE_CRD, OUR_CRDS, servesSubresource } from '../../src/core/kube/crds.js';
import { readCrds } from '../../src/core/kube/crd-install.js';

const CONFIG = '/api/v1/namespaces/image-inventory-system/configmaps/inv-erase-config';
interface Managed {
  metadata: { managedFields: { manager: string; operation: string }[] };
  data: Record<string, string>;
}
const managers = (o: Managed) => o.metadata.managedFields.map((f) => `${f.manager}:${f.operation}`);

describe('Helm 4 applies server-side: upgrades after a kubectl edit, CRD upgrades', function () {
  this.timeout(300_000);
  let server: FreshApiServer;
  let rest: KubeRest;
  const run = (args: string[]) =>
    helm([...args, '--namespace', 'default', '--kubeconfig', server.kubeconfig]);
  const ok = (what: string, r: Run) => {
    assert.equal(r.code, 0, `${what}:\n${r.stdout}${r.stderr}`);
    assert.deepEqual(warnings(r), [], `${what} warned`);
    return r;
  };
  const upgrade = (...extra: string[]) => run(['upgrade', 'inv', chartDir, '--reuse-values', ...extra]);

  before(async () => {
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
    ok('helm install', await run(['install', 'inv', chartDir, ...IMAGE_VALUES]));
  });
  after(async () => {
    rest?.close();
    await server?.stop();
  });

  it("records helm's fields as applied (server-side), on the templates and on crds/", async () => {
    assert.deepEqual(managers(await rest.request<Managed>('GET', CONFIG)), ['helm:Apply']);
    const crd = await rest.request<Managed>(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/images.imageinventory.dev',
    );
    assert.ok(managers(crd).includes('helm:Apply'), managers(crd).join(', '));
  });

  it('a kubectl edit of inv-erase-config: the next upgrade stops, naming the conflict', async () => {
    await rest.request('PATCH', CONFIG, {
      body: { data: { 'config.yaml': 'jobTimeout: 1h\n' } },
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'kubectl-edit' },
    });
    const r = await upgrade();
    assert.notEqual(r.code, 0, 'helm upgrade should fail');
    assert.match(r.stderr, /conflict with "kubectl-edit"[^\n]*\.data\.config\.yaml/);
    assert.equal((await rest.request<Managed>('GET', CONFIG)).data['config.yaml'], 'jobTimeout: 1h\n');
  });

  it('helm upgrade --force-conflicts puts the values back, and helm owns them again', async () => {
    ok('helm upgrade --force-conflicts', await upgrade('--force-conflicts'));
    const cm = await rest.request<Managed>('GET', CONFIG);
    assert.match(cm.data['config.yaml']!, /^jobTimeout: 30m$/m);
    assert.deepEqual(managers(cm), ['helm:Apply']);
  });

  it("the docs' CRD upgrade applies over the CRDs Helm installed, without a warning", async () => {
    // The Image CRD as an older chart had it, which Helm installed: with a status subresource.
    const image = readCrds().find((c) => c.metadata.name === IMAGE_CRD.name) as unknown as {
      spec: { versions: object[] };
    };
    await rest.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${IMAGE_CRD.name}`, {
      query: { fieldManager: 'helm', force: true },
      contentType: 'application/apply-patch+yaml',
      body: {
        ...image,
        spec: {
          ...image.spec,
          versions: image.spec.versions.map((v) => ({ ...v, subresources: { status: {} } })),
        },
      },
    });
    // Discovery follows a CRD change in its own time: wait until the subresource is served.
    for (let end = Date.now() + 30_000; !(await servesSubresource(rest, IMAGE_CRD, 'status'));) {
      assert.ok(Date.now() < end, 'the status subresource is served after the patch');
      await new Promise((r) => setTimeout(r, 200));
    }
    // docs/install.md and the chart's README: Helm never upgrades crds/, so users apply them.
    const r = await new Promise<Run>((resolve) =>
      execFile(
        kubectlBin,
        [
          'apply',
          '--server-side',
          '--force-conflicts',
          '-f',
          path.join(chartDir, 'crds'),
          '--kubeconfig',
          server.kubeconfig,
        ],
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      ),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '', 'kubectl warned');
    assert.equal(r.stdout.trim().split('\n').length, OUR_CRDS.length, r.stdout);
    const after = await rest.request<{ spec: { versions: { subresources?: unknown }[] } }>(
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${IMAGE_CRD.name}`,
    );
    assert.deepEqual(
      after.spec.versions.map((v) => v.subresources),
      [undefined],
      'the status subresource is gone',
    );
  });
});
