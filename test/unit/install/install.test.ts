// Pure parts of install, check and the missing-CRD errors: recognising a missing CRD from a
// 404, the kubectl-style names and REST paths of bundle objects, the kustomize subset that
// reads deploy/, and the check report.
import assert from 'node:assert/strict';
import { renderChecks } from '../../../src/cli/check/render-check.js';
import { applyOrder, PART_OF, PART_OF_LABEL, readBundle } from '../../../src/core/install/bundle.js';
import {
  describeForeign,
  foreignObject,
  ForeignObjectsError,
  notOurs,
  writtenByInv,
} from '../../../src/core/install/ownership.js';
import { othersManage } from '../../../src/core/install/uninstall.js';
import { displayName, bundlePath as objectPath, type KubeObject } from '../../../src/core/kube/apply.js';
import { installObjects, isViewAggregation } from '../../../src/core/install/install.js';
import { deploymentImage, followDaemon } from '../../../src/core/install/worker-image.js';
import { DEFAULT_CONFIG, parseConfig } from '../../../src/core/erase/config/config.js';
import { asCrdMissing, CrdMissingError, IMAGE_CRD } from '../../../src/core/kube/crds.js';
import { KubeApiError } from '../../../src/core/kube/rest.js';

const err = (code: number, reason: string, path: string) => new KubeApiError(code, reason, 'x', 'GET', path);

describe('missing CRDs', () => {
  it('turns a bare 404 on one of our types into the CRD it is about', () => {
    assert.equal(
      asCrdMissing(err(404, '', '/apis/imageinventory.dev/v1alpha1/namespaces/shop/images'))?.message,
      'the Image CRD (images.imageinventory.dev) is not installed in this cluster; run `inv install`',
    );
    assert.equal(
      asCrdMissing(err(404, '', '/apis/erase.imageinventory.dev/v1alpha1/imagelists'))?.message,
      'the ImageList CRD (imagelists.erase.imageinventory.dev) is not installed in this cluster; run `inv install`',
    );
    assert.equal(
      asCrdMissing(err(404, '', '/apis/erase.imageinventory.dev/v1alpha1/imagejobs/j1'))?.crd.kind,
      'ImageJob',
    );
  });

  it('leaves an absent object (a Status with reason NotFound) and other groups alone', () => {
    assert.equal(
      asCrdMissing(err(404, 'NotFound', '/apis/imageinventory.dev/v1alpha1/namespaces/a/images/x')),
      undefined,
    );
    assert.equal(asCrdMissing(err(404, '', '/apis/apps/v1/deployments')), undefined);
    assert.equal(asCrdMissing(err(403, '', '/apis/imageinventory.dev/v1alpha1/images')), undefined);
    assert.equal(asCrdMissing(new Error('boom')), undefined);
    const e = new CrdMissingError(IMAGE_CRD);
    assert.equal(asCrdMissing(e), e);
  });
});

describe('install bundle', () => {
  it('names and locates objects like kubectl', () => {
    const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' } };
    assert.equal(displayName(dep), 'deployment.apps/d');
    assert.equal(objectPath(dep), '/apis/apps/v1/namespaces/ns/deployments/d');
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } };
    assert.equal(displayName(ns), 'namespace/n');
    assert.equal(objectPath(ns), '/api/v1/namespaces/n');
    assert.throws(
      () => objectPath({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n' } }),
      /v1 Secret: not a kind of the install bundle/,
    );
    assert.throws(() => objectPath({ ...dep, metadata: { name: 'd' } }), /without metadata.namespace/);
  });

  it('labels every object, sets the image, and puts namespaces and CRDs first', () => {
    const objects = applyOrder(readBundle({ image: 'registry.example.com/inv:9' }));
    for (const o of objects)
      assert.equal(o.metadata.labels?.['app.kubernetes.io/part-of'], 'image-inventory');
    const kinds = objects.map((o) => o.kind);
    const firstOther = kinds.findIndex((k) => k !== 'Namespace' && k !== 'CustomResourceDefinition');
    assert.deepEqual(kinds.slice(0, firstOther).sort(), [
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'Namespace',
      'Namespace',
    ]);
    assert.equal(kinds.lastIndexOf('Namespace') < kinds.indexOf('CustomResourceDefinition'), true);
    const dep = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    assert.equal(dep.spec.template.spec.containers[0]!.image, 'registry.example.com/inv:9');
    const dflt = readBundle().find((o) => o.kind === 'Deployment') as unknown as typeof dep;
    assert.equal(dflt.spec.template.spec.containers[0]!.image, 'ghcr.io/imageinventory/inv:0.1.0');
  });

  const config = (objects: KubeObject[]) =>
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'inv-erase-config')!;
  const text = (o: KubeObject) => (o as unknown as { data: Record<string, string> }).data['config.yaml'];

  it('--image and --image-pull-secret set the daemon’s and the workers’ together in a new erase configuration', () => {
    const set = config(
      installObjects({
        daemon: true,
        image: 'registry.example.com/inv:9',
        imagePullSecrets: ['regcred', 'b'],
      }),
    );
    assert.equal(parseConfig(text(set)).worker.image, 'registry.example.com/inv:9');
    assert.deepEqual(parseConfig(text(set)).worker.imagePullSecrets, ['regcred', 'b']);
    const dep = installObjects({
      daemon: true,
      image: 'registry.example.com/inv:9',
      imagePullSecrets: ['regcred'],
    }).find((o) => o.kind === 'Deployment');
    assert.deepEqual(deploymentImage(dep), { image: 'registry.example.com/inv:9', pullSecrets: ['regcred'] });
    // Without either: the bundle as it ships (a dry run warns; a real install refuses first).
    assert.equal(
      parseConfig(text(config(installObjects({ daemon: true })))).worker.image,
      DEFAULT_CONFIG.worker.image,
    );
    assert.deepEqual(
      deploymentImage(installObjects({ daemon: true }).find((o) => o.kind === 'Deployment'))?.pullSecrets,
      [],
    );
  });

  it('without the daemon: the CRDs, the role that lets `view` read Images, the erase configuration and its namespace', () => {
    const names = (objects: KubeObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`);
    assert.deepEqual(names(installObjects({ daemon: false })), [
      'Namespace/image-inventory-system',
      'CustomResourceDefinition/images.imageinventory.dev',
      'CustomResourceDefinition/imagelists.erase.imageinventory.dev',
      'CustomResourceDefinition/imagejobs.erase.imageinventory.dev',
      'CustomResourceDefinition/imagejobrecords.erase.imageinventory.dev',
      'ClusterRole/image-inventory-view',
      'ConfigMap/inv-erase-config',
    ]);
    // `inv erase --standalone`: the CRDs alone.
    assert.ok(
      installObjects({ daemon: false, crdsOnly: true }).every((o) => o.kind === 'CustomResourceDefinition'),
    );
    // Read only, and only Images: the daemon writes them; the erase kinds are the administrator's.
    const role = installObjects({ daemon: false }).find(isViewAggregation) as unknown as {
      metadata: { labels: Record<string, string> };
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    };
    assert.deepEqual(role.rules, [
      { apiGroups: ['imageinventory.dev'], resources: ['images'], verbs: ['get', 'list', 'watch'] },
    ]);
    for (const to of ['view', 'edit', 'admin'])
      assert.equal(role.metadata.labels[`rbac.authorization.k8s.io/aggregate-to-${to}`], 'true', to);
  });

  it('over an existing erase configuration: settings that followed the daemon move with it, set-apart ones stay', () => {
    const existing = (yaml: string): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'inv-erase-config', namespace: 'image-inventory-system' },
        data: { 'config.yaml': yaml },
      }) as KubeObject;
    const old = { image: 'reg/inv:1', pullSecrets: ['regcred'] };
    const want = { image: 'reg/inv:2', pullSecrets: [] };
    // Followed the daemon: the image moves; the comment and the other keys stay.
    const moved = followDaemon(existing('# mine\njobTimeout: 1h\nworker:\n  image: reg/inv:1\n'), old, want);
    assert.equal(moved.note, undefined);
    assert.match(moved.text!, /^# mine\n/);
    assert.equal(parseConfig(moved.text).worker.image, 'reg/inv:2');
    assert.equal(parseConfig(moved.text).jobTimeoutSeconds, 3600);
    // Not set at all (kubectl apply -k deploy/): it follows too.
    assert.equal(
      parseConfig(followDaemon(existing('jobTimeout: 1h\n'), old, want).text).worker.image,
      'reg/inv:2',
    );
    // Set apart by the administrator: kept, and the note says what to change.
    const apart = followDaemon(existing('worker:\n  image: mirror/inv:1\n'), old, want);
    assert.equal(apart.text, undefined);
    assert.equal(
      apart.note,
      'kept as it is (yours): erase workers still run mirror/inv:1, not --image reg/inv:2; set worker.image in it: kubectl -n image-inventory-system edit configmap inv-erase-config',
    );
    // Pull secrets: compared only when given, and moved when they followed.
    const secrets = followDaemon(
      existing('worker:\n  image: reg/inv:2\n  imagePullSecrets: [regcred]\n'),
      old,
      {
        image: 'reg/inv:2',
        pullSecrets: ['other'],
      },
    );
    assert.deepEqual(parseConfig(secrets.text).worker.imagePullSecrets, ['other']);
    assert.deepEqual(
      followDaemon(existing('worker:\n  image: reg/inv:2\n'), old, { image: 'reg/inv:2', pullSecrets: [] }),
      {},
    );
  });
});

describe('check report', () => {
  it('prints one line per check, hints under failures, and the verdict', () => {
    const saved = process.env.NO_COLOR;
    process.env.NO_COLOR = '1';
    after(() => (saved === undefined ? delete process.env.NO_COLOR : (process.env.NO_COLOR = saved)));
    const text = renderChecks(
      [
        { group: 'kubernetes-api', name: 'can reach the API server', status: 'pass', detail: 'v1.34.3' },
        { group: 'crds', name: 'CRD a', status: 'fail', detail: 'missing', hint: 'run `inv install`' },
        { group: 'crds', name: 'CRD b', status: 'warn', detail: 'old' },
      ],
      'table',
    );
    assert.equal(
      text,
      [
        'kubernetes-api',
        '--------------',
        '√ can reach the API server: v1.34.3',
        '',
        'crds',
        '----',
        '× CRD a: missing',
        '    hint: run `inv install`',
        '‼ CRD b: old',
        '',
        'Status check results are ×',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(renderChecks([{ group: 'g', name: 'n', status: 'warn' }], 'json')) as {
      passed: boolean;
    };
    assert.equal(json.passed, true);
  });
});

describe('uninstall: whose namespace', () => {
  const ns = (managers: string[]) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'image-inventory-system', managedFields: managers.map((manager) => ({ manager })) },
  });
  it('deletes a namespace only inv has written; keeps one another manager wrote (it may predate install)', () => {
    assert.equal(othersManage(ns(['inv'])), undefined);
    assert.match(
      othersManage(ns(['inv', 'kubectl-create']))!,
      /also written by kubectl-create, not only by inv/,
    );
  });
});

describe('install and uninstall: whose object', () => {
  const role = (managers: string[], labels?: Record<string, string>) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: 'image-inventory-controller',
      labels,
      managedFields: managers.map((manager) => ({ manager, operation: 'Update' })),
    },
  });
  it('counts an object as inv’s by its field manager or its part-of label', () => {
    assert.equal(writtenByInv(role(['inv'])), true);
    assert.equal(writtenByInv(role(['kubectl-client-side-apply'], { [PART_OF_LABEL]: PART_OF })), true);
    assert.equal(writtenByInv(role(['kubectl-create'], { team: 'payments' })), false);
    assert.equal(writtenByInv(role([], { [PART_OF_LABEL]: 'payments' })), false);
    assert.equal(
      foreignObject(role(['inv-inventory'])) !== undefined,
      true,
      'another inv manager is not inv',
    );
  });

  it('names a foreign object with its kind, place and managers', () => {
    const f = foreignObject(
      role(['kubectl-create', 'kubectl-edit', 'kubectl-create'], { [PART_OF_LABEL]: 'payments' }),
    )!;
    assert.equal(
      describeForeign(f),
      'clusterrole.rbac.authorization.k8s.io/image-inventory-controller (ClusterRole, cluster-scoped): managed by kubectl-create, kubectl-edit, app.kubernetes.io/part-of=payments',
    );
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'image-inventory-system' },
    };
    assert.equal(
      describeForeign(foreignObject(cm)!),
      'configmap/c (ConfigMap, in namespace image-inventory-system): no field manager recorded',
    );
    assert.match(
      notOurs(cm)!,
      /^not installed by inv \(no field manager recorded; no label app\.kubernetes\.io\/part-of=image-inventory\)$/,
    );
    assert.equal(notOurs(role(['inv'])), undefined);
    // The API server writing a CRD's status says nothing about whose the CRD is.
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        name: 'images.imageinventory.dev',
        managedFields: [{ manager: 'helm' }, { manager: 'kube-apiserver', subresource: 'status' }],
      },
    };
    assert.match(describeForeign(foreignObject(crd)!), /: managed by helm$/);
  });

  it('the refusal names every object and says nothing was changed', () => {
    const e = new ForeignObjectsError([foreignObject(role(['a']))!, foreignObject(role(['b']))!]);
    assert.match(
      e.message,
      /^2 objects of the bundle already exist and were not written by inv; nothing was changed:\n {2}clusterrole/,
    );
    assert.match(e.message, /--force-conflicts/);
  });
});
