// Pods of an undeclared kind and a declared source kind, on real nodes with the real
// controller-manager (its garbage collector follows the ownerReferences), scheduler and kubelets.
// Two CRDs of the test's own, of the same shape (spec.template): Runner, declared nowhere, owns
// two running Pods; Keeper is declared in a SourceKinds file. `inv scan` credits both Pods'
// images under Runner, the kind their ownerReferences name. Once the Pods are gone, a `*` prune
// keeps the image a Keeper still names (reason: referenced by Keeper) and removes the one only
// the Runner's own template names: an undeclared kind's template is not a reference.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { ScanProtection } from '../../src/core/erase/worker/inventory-protection.js';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { SourceKinds } from '../../src/core/inventory/source-kinds.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { runCli } from '../cli/run-cli.js';
import { kubectl, nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { importToNodes, NodeEraseEnv, nodeImageIds, results } from './helpers.js';
import { reportFromLogs } from '../support/worker-logs.js';
import { useWholeCluster } from '../support/suite-hooks.js';

const crd = (group: string, kind: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { kind, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
});

describe('Pods of an undeclared kind and a declared kind on the whole cluster (real nodes)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let dir: string;
  let group: string;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    env = await new NodeEraseEnv(c).setup();
    // CRDs are cluster-wide: a group of this run's own.
    group = `k${env.tag}.e2e.imageinventory.dev`;
    await installCrds(env.rest, [crd(group, 'Runner'), crd(group, 'Keeper')] as never);
    for (const plural of ['runners', 'keepers'])
      await until(`${plural} served`, async () =>
        env.rest
          .list(`/apis/${group}/v1/namespaces/${env.namespace}/${plural}`)
          .then(() => true)
          .catch(() => false),
      );
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-kinds-'));
    fs.writeFileSync(
      path.join(dir, 'kinds.yaml'),
      [
        'apiVersion: cli.imageinventory.dev/v1',
        'kind: SourceKinds',
        'kinds:',
        `  - group: ${group}`,
        '    version: v1',
        '    kind: Keeper',
        '    plural: keepers',
        '    podTemplates: [spec.template]',
      ].join('\n'),
    );
    // The prune learns the declared kinds as the daemon gives them (its cache's kinds): here a
    // fresh scan of the cluster with the same file.
    const declared = parseSourceKinds(fs.readFileSync(path.join(dir, 'kinds.yaml'), 'utf8'), 'kinds.yaml');
    env.startControllers({ protection: new ScanProtection(env.rest, new SourceKinds(declared)) });
  });
  after(async () => {
    await env?.teardown();
    if (group) {
      const r = await kubectl(c, ['delete', 'crd', `runners.${group}`, `keepers.${group}`, '--wait=false']);
      assert.equal(r.code, 0, r.stderr);
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('credits the Pods under their owner kind; the prune keeps only what the declared kind references', async () => {
    const t = env.tag;
    const ns = env.namespace;
    const node = c.nodes[0]!.name;
    const ref = (what: string) => `docker.io/library/e2e-kinds-${what}-${t}:1`;
    const [kept, gone] = await importToNodes(
      c,
      [0, 1],
      [
        { refs: [ref('kept')], distinct: `kept-${t}` },
        { refs: [ref('gone')], distinct: `gone-${t}` },
      ],
    );
    const template = (image: string) => ({
      spec: { containers: [{ name: 'c', image, imagePullPolicy: 'Never', command: ['/bin/sleep', '3600'] }] },
    });
    const post = <T>(p: string, body: unknown) => env.rest.request<T>('POST', p, { body });
    // The Runner's own template names the image its Pods run; undeclared, it is not read.
    const runner = await post<{ metadata: { uid: string } }>(`/apis/${group}/v1/namespaces/${ns}/runners`, {
      apiVersion: `${group}/v1`,
      kind: 'Runner',
      metadata: { name: 'build' },
      spec: { template: template(ref('gone')) },
    });
    await post(`/apis/${group}/v1/namespaces/${ns}/keepers`, {
      apiVersion: `${group}/v1`,
      kind: 'Keeper',
      metadata: { name: 'web' },
      spec: { template: template(ref('kept')) },
    });
    // The Pods the Runner's controller would create: controlled by it, running on a real node.
    const owner = {
      apiVersion: `${group}/v1`,
      kind: 'Runner',
      name: 'build',
      uid: runner.metadata.uid,
      controller: true,
    };
    for (const [name, image] of [
      ['build-a', ref('kept')],
      ['build-b', ref('gone')],
    ] as const)
      await post(`/api/v1/namespaces/${ns}/pods`, {
        metadata: { name, ownerReferences: [owner] },
        spec: {
          nodeName: node,
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 0,
          ...template(image).spec,
        },
      });
    await until('both Pods Running', async () => {
      const pods = await env.rest.list<{ status?: { phase?: string } }>(`/api/v1/namespaces/${ns}/pods`);
      return pods.items.filter((p) => p.status?.phase === 'Running').length === 2;
    });

    const scan = () => {
      const kinds = path.join(dir, 'kinds.yaml');
      const r = runCli(['scan', '-n', ns, '--source-kinds', kinds, '--kubeconfig', c.kubeconfig]);
      assert.equal(r.status, 0, r.stderr);
    };
    const images = async () =>
      new Map(
        (await env.rest.list<ImageResource>(imagesPath(ns))).items.map((i) => [
          i.spec?.image,
          (i.status?.kinds ?? '').split(',').sort().join(','),
        ]),
      );
    scan();
    let imgs = await images();
    assert.equal(imgs.get(ref('gone')), 'Runner', 'the running Pod credits its owner kind');
    assert.equal(imgs.get(ref('kept')), 'Keeper,Runner', 'the declared kind and the Pod both credit it');

    const del = await kubectl(c, ['-n', ns, 'delete', 'pods', 'build-a', 'build-b', '--wait=true']);
    assert.equal(del.code, 0, del.stderr);
    // An exited container still holds its image (kept as in use): the kubelet's container
    // garbage collection (once a minute) removes those of deleted Pods.
    const cri = await nodeCri(c, 0);
    try {
      await until(
        "the Pods' containers removed by the kubelet",
        async () => !(await cri.listContainers()).some((x) => x.labels['io.kubernetes.pod.namespace'] === ns),
        150_000,
        500,
      );
    } finally {
      cri.close();
    }
    scan();
    imgs = await images();
    assert.equal(imgs.get(ref('gone')), undefined, 'no Pod and no declared kind: no Image');
    assert.equal(imgs.get(ref('kept')), 'Keeper');
    // The recorded Images protect what they name on their own: delete them, so the prune's
    // answer comes from the workloads alone (the declared kind, read by its protection).
    await env.rest.request('DELETE', imagesPath(ns));
    await until('the Images gone', async () => (await images()).size === 0);

    const jobObj = await env.wait(await env.erase({ images: [PRUNE_ALL] }), 180_000);
    assert.equal(jobObj.status?.phase, 'Completed', jobObj.status?.message);
    for (const i of [0, 1]) {
      const ids = await nodeImageIds(c, i);
      assert.ok(ids.has(kept!.id), `the Keeper's image kept on node ${i + 1}`);
      assert.ok(!ids.has(gone!.id), `the undeclared Runner's image removed from node ${i + 1}`);
    }
    assert.ok(Object.values(results(jobObj)).every((r) => r.protected >= 1));
    // The worker's report names the declared kind as the reason.
    const workers = await env.workers(jobObj.metadata.name);
    for (const pod of workers.values()) {
      const logs = await kubectl(c, ['-n', ns, 'logs', pod.metadata.name]);
      assert.equal(logs.code, 0, logs.stderr);
      const report = reportFromLogs<{
        results: { imageId: string; outcome: string; reason: string }[];
      }>(logs.stdout);
      const row = report.results.find((x) => x.imageId === kept!.id);
      assert.deepEqual([row?.outcome, row?.reason], ['protected', `referenced by Keeper in ${ns}`]);
    }
  });
});
