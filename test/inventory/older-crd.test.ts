// The Image CRD lost its status subresource (one write per new Image), but Helm never upgrades
// the CRDs of a chart's crds/: a new inv meets the older CRD, which drops the status of a create.
// On a private API server (the CRD is changed under the test, which must not reach the run's
// shared server), writing as the daemon's ServiceAccount with the ClusterRole of deploy/: a scan
// against the older CRD still writes every status, through /status, updates go there too, what
// another tool put on an Image stays, and once the CRD is upgraded under a running store, its
// writes follow (one each) and every status written before is still at the same path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { ImageStore } from '../../src/core/inventory/image-store.js';
import { imageResourceName } from '../../src/core/inventory/naming.js';
import { scanCluster } from '../../src/core/inventory/scan.js';
import { installCrds, readCrds } from '../../src/core/kube/crd-install.js';
import { IMAGE_CRD, servesSubresource } from '../../src/core/kube/crds.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import { isNotFound, isWrite, KubeRest } from '../../src/core/kube/rest.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { serviceAccountToken, writeTokenKubeconfig } from '../support/service-account.js';
import { applyObjects, bundle, SA, SYSTEM_NS } from '../watch/deploy-helpers.js';
import { waitFor } from '../support/cri.js';

interface CrdDoc {
  metadata: { name: string };
  spec: { versions: Record<string, unknown>[] };
}

const imageCrd = () => readCrds().find((c) => c.metadata.name === IMAGE_CRD.name) as unknown as CrdDoc;

/** The Image CRD as inv shipped it before: the same, with a status subresource. */
function olderImageCrd(): CrdDoc {
  const crd = imageCrd();
  return {
    ...crd,
    spec: { ...crd.spec, versions: crd.spec.versions.map((v) => ({ ...v, subresources: { status: {} } })) },
  };
}

describe('Images on an Image CRD that still has its status subresource (real API server)', function () {
  this.timeout(120_000);
  let server: FreshApiServer;
  /** The administrator: the CRDs, the workloads, another tool's edits, reads. */
  let admin: KubeRest;
  /** inv, as the daemon's ServiceAccount: every scan and store write, counted in `calls`. */
  let rest: KubeRest;
  let calls: string[] = [];
  const ns = 'older-crd';
  before(async function () {
    this.timeout(120_000);
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    admin = new KubeRest(kc);
    await installCrds(admin, [olderImageCrd()] as unknown as ReturnType<typeof readCrds>);
    await ensureNamespace(admin, ns);
    const rbac = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']);
    await applyObjects(
      admin,
      bundle().filter((o) => rbac.has(o.kind)),
    );
    const token = await serviceAccountToken(admin, SYSTEM_NS, SA);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-older-crd-'));
    const sa = new k8s.KubeConfig();
    sa.loadFromFile(writeTokenKubeconfig(kc, token, path.join(dir, 'kubeconfig')));
    rest = new KubeRest(sa);
    rest.onRequest = (method, p) => calls.push(`${method} ${p}`);
  });
  after(async () => {
    rest?.close();
    admin?.close();
    await server?.stop();
  });

  const writes = () => calls.filter((c) => isWrite(c.split(' ')[0]!));
  const kinds = async () =>
    Object.fromEntries(
      (await admin.list<ImageResource>(imagesPath(ns))).items.map((i) => [i.spec?.image, i.status?.kinds]),
    );
  const deploy = (name: string, images: string[]) =>
    admin.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
          },
        },
      },
    });

  it('writes the status of new Images through /status, and updates there', async () => {
    assert.equal(await servesSubresource(rest, IMAGE_CRD, 'status'), true);
    await deploy('web', ['example.com/web:1', 'example.com/sidecar:1']);
    calls = [];
    let r = await scanCluster(rest, { namespaces: [ns] });
    assert.deepEqual(r.failures, []);
    assert.equal(r.results[0]!.counts.created, 2);
    // The create's status was dropped by the API server: a second write per Image.
    assert.equal(r.results[0]!.writes, 4);
    assert.equal(writes().filter((c) => c.endsWith('/status')).length, 2);
    assert.deepEqual(await kinds(), {
      'example.com/web:1': 'Deployment',
      'example.com/sidecar:1': 'Deployment',
    });

    // A status change: one apply of /status (after one discovery GET).
    await admin.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'example.com/web:1' }] },
      },
    });
    calls = [];
    r = await scanCluster(rest, { namespaces: [ns] });
    assert.deepEqual(r.failures, []);
    assert.equal(r.results[0]!.counts.updated, 1);
    assert.equal(r.results[0]!.writes, 1);
    assert.deepEqual(writes(), [`PATCH ${imagesPath(ns, imageResourceName('example.com/web:1'), 'status')}`]);
    assert.equal(calls.filter((c) => c === 'GET /apis/imageinventory.dev/v1alpha1').length, 1);
    assert.equal((await kinds())['example.com/web:1'], 'Deployment,Pod');

    // A spec change and a status change together: the spec on the object, the status on /status;
    // what another tool put on the Image stays.
    const sidecar = imageResourceName('example.com/sidecar:1');
    await admin.request('PATCH', imagesPath(ns, sidecar), {
      contentType: 'application/merge-patch+json',
      body: {
        metadata: { annotations: { 'backup.example.com/last': 'now' }, labels: { tier: 'gold' } },
        spec: { image: 'example.com/edited:1' },
      },
    });
    await admin.request('PATCH', imagesPath(ns, sidecar, 'status'), {
      contentType: 'application/merge-patch+json',
      body: { status: { kinds: 'Job' } },
    });
    r = await scanCluster(rest, { namespaces: [ns] });
    assert.deepEqual(r.failures, []);
    assert.equal(r.results[0]!.writes, 2);
    assert.deepEqual(await kinds(), {
      'example.com/web:1': 'Deployment,Pod',
      'example.com/sidecar:1': 'Deployment',
    });
    const kept = await admin.get<{ metadata: { annotations?: object; labels?: Record<string, string> } }>(
      imagesPath(ns, sidecar),
    );
    assert.deepEqual(kept.metadata.annotations, { 'backup.example.com/last': 'now' });
    assert.equal(kept.metadata.labels?.tier, 'gold');
  });

  it('follows the CRD when it is upgraded under a running store: one write each, the old status kept', async () => {
    const store = new ImageStore(rest);
    const name = imageResourceName('example.com/web:1');
    const read = () => admin.get<ImageResource>(imagesPath(ns, name));
    // The store learns that the CRD has the subresource.
    let cur = await read();
    assert.equal(await store.ensure(ns, name, 'example.com/web:1', { kinds: 'Pod' }, cur), 1);
    assert.equal((await read()).status?.kinds, 'Pod');

    await installCrds(admin, [imageCrd()] as unknown as ReturnType<typeof readCrds>);
    // Both discovery and the handler of /status (a 404 once the subresource is gone) follow it.
    await waitFor(
      'the status subresource gone',
      async () =>
        !(await servesSubresource(admin, IMAGE_CRD, 'status')) &&
        (await admin.get(imagesPath(ns, name, 'status')).then(
          () => false,
          (e: unknown) => isNotFound(e),
        )),
    );
    // Every status written before is where readers look for it.
    assert.deepEqual(await kinds(), { 'example.com/web:1': 'Pod', 'example.com/sidecar:1': 'Deployment' });

    // The store's /status write finds no subresource (404): it asks discovery again and applies
    // the status to the object itself.
    cur = await read();
    calls = [];
    const status = { kinds: 'Deployment,Pod', users: ['Deployment/web'], userCount: 1 };
    assert.equal(await store.ensure(ns, name, 'example.com/web:1', status, cur), 2);
    assert.deepEqual(writes(), [`PATCH ${imagesPath(ns, name, 'status')}`, `PATCH ${imagesPath(ns, name)}`]);
    const got = await read();
    assert.deepEqual(got.status, status);
    // From then on, one write per change.
    calls = [];
    assert.equal(await store.ensure(ns, name, 'example.com/web:1', { kinds: 'Pod' }, got), 1);
    assert.deepEqual(writes(), [`PATCH ${imagesPath(ns, name)}`]);
    assert.equal((await read()).status?.kinds, 'Pod');

    // And a scan: one write per new Image, one per changed Image.
    await deploy('api', ['example.com/api:1', 'example.com/worker:1']);
    calls = [];
    const r = await scanCluster(rest, { namespaces: [ns] });
    assert.deepEqual(r.failures, []);
    assert.equal(r.results[0]!.counts.created, 2);
    assert.deepEqual(
      writes().filter((c) => c.startsWith('POST')),
      [`POST ${imagesPath(ns)}`, `POST ${imagesPath(ns)}`],
    );
    assert.equal(
      r.results[0]!.counts.updated,
      1,
      'the Image the store set to Pod goes back to Deployment,Pod',
    );
    assert.equal(r.results[0]!.writes, 3);
    assert.equal((await kinds())['example.com/api:1'], 'Deployment');
  });
});
