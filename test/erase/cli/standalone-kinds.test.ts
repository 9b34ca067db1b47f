// `inv erase --standalone` protects what the daemon's prune would: the source kinds declared in
// the daemon's ConfigMap inv-source-kinds (in the configuration namespace), or in --source-kinds.
// Against the real API server (a CRD of the test's own, declared), real containerd and the real
// `inv node-remove` (the kubelet harness runs it): an image only a declared object at rest
// references is protected; without the declaration it would be removed; an unreadable
// declaration refuses the run before anything is written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SOURCE_KINDS_CONFIGMAP, SOURCE_KINDS_KEY } from '../../../src/core/inventory/declared-kinds.js';
import { installCrds } from '../../../src/core/kube/crd-install.js';
import { addImages } from '../../support/oci.js';
import { kubeconfigPath } from '../../support/kube.js';
import { invAsync } from '../../support/inv-async.js';
import { EraseEnv, eraseEnvPerTest } from '../helpers.js';

const inv = (args: string[]) => invAsync(args);

const keeperCrd = (group: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `keepers.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { kind: 'Keeper', plural: 'keepers', singular: 'keeper', listKind: 'KeeperList' },
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

describe('inv erase --standalone reads the declared source kinds', function () {
  this.timeout(180_000);
  let env: EraseEnv;
  let group = '';
  let dir = '';
  eraseEnvPerTest((e) => (env = e), {
    afterTeardown: async () => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  });
  after(async () => {
    if (!group) return;
    const { KubeRest } = await import('../../../src/core/kube/rest.js');
    const { adminConfig } = await import('../../support/kube.js');
    const rest = new KubeRest(adminConfig());
    await rest
      .request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/keepers.${group}`)
      .catch(() => undefined);
    rest.close();
  });

  it('ConfigMap inv-source-kinds or --source-kinds: a declared object at rest keeps its image', async () => {
    const t = env.tag;
    const ns = env.namespace;
    group = `k${t}.standalone.imageinventory.dev`;
    await installCrds(env.rest, [keeperCrd(group)] as never);
    const keepers = `/apis/${group}/v1/namespaces/${ns}/keepers`;
    for (
      let i = 0;
      !(await env.rest.list(keepers).then(
        () => true,
        () => false,
      ));
      i++
    ) {
      assert.ok(i < 300, `${keepers} not served`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const [kept, gone] = await addImages([
      { refs: [`docker.io/library/standalone-kept-${t}:1`], distinct: `kept-${t}` },
      { refs: [`docker.io/library/standalone-gone-${t}:1`], distinct: `gone-${t}` },
    ]);
    // A Keeper names the image in its template; nothing runs it.
    await env.rest.request('POST', keepers, {
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Keeper',
        metadata: { name: 'web' },
        spec: { template: { spec: { containers: [{ name: 'c', image: `standalone-kept-${t}:1` }] } } },
      },
    });
    const kindsFile = [
      'apiVersion: cli.imageinventory.dev/v1',
      'kind: SourceKinds',
      'kinds:',
      `  - {group: ${group}, version: v1, kind: Keeper, podTemplates: [spec.template]}`,
    ].join('\n');
    const [node] = await env.nodes([{ name: 'a' }]);
    const kubelet = env.startKubelet(() => 'run');
    let n = 0;
    // One `*` dry run; the outcome of each of the two images on the node.
    const prune = async (extra: string[] = []) => {
      const before = kubelet.runs.length;
      const r = await inv([
        'erase',
        '--all-unused',
        '--yes',
        '--dry-run',
        '--standalone',
        '--kubeconfig',
        kubeconfigPath(),
        '--workers-namespace',
        ns,
        '--config-namespace',
        ns,
        '--node-selector',
        `erase-test=${t}`,
        '--name',
        `kinds-${t}-${n++}`,
        '-o',
        'json',
        ...extra,
      ]);
      if (r.code !== 0)
        return {
          code: r.code,
          stderr: r.stderr + JSON.stringify(kubelet.runs.slice(before)),
          kept: '',
          gone: '',
        };
      const run = kubelet.runs.slice(before).find((x) => x.node === node);
      assert.ok(run, `no worker ran on ${node}: ${r.stderr}`);
      const results = (JSON.parse(run.message) as { results: { i: string; o: string }[] }).results;
      const outcome = (id: string) => results.find((x) => x.i === id)?.o ?? 'absent';
      return { code: r.code, stderr: r.stderr, kept: outcome(kept!.id), gone: outcome(gone!.id) };
    };

    // Declared nowhere: the Keeper is not a source, its image would go.
    let r = await prune();
    assert.deepEqual([r.code, r.kept, r.gone], [0, 'would-remove', 'would-remove'], r.stderr);

    // Declared in the daemon's ConfigMap: protected, as the daemon's prune would keep it.
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    await env.rest.request('POST', cms, {
      body: { metadata: { name: SOURCE_KINDS_CONFIGMAP }, data: { [SOURCE_KINDS_KEY]: kindsFile } },
    });
    r = await prune();
    assert.deepEqual([r.code, r.kept, r.gone], [0, 'protected', 'would-remove'], r.stderr);

    // A ConfigMap that cannot be read as SourceKinds: refused before anything is submitted.
    await env.rest.request('PUT', `${cms}/${SOURCE_KINDS_CONFIGMAP}`, {
      body: { metadata: { name: SOURCE_KINDS_CONFIGMAP }, data: { [SOURCE_KINDS_KEY]: 'kind: Nope' } },
    });
    const runs = kubelet.runs.length;
    r = await prune();
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      new RegExp(`cannot read the declared source kinds \\(ConfigMap ${ns}/inv-source-kinds\\)`),
    );
    assert.equal(kubelet.runs.length, runs);

    // --source-kinds FILE stands in for the ConfigMap.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-standalone-kinds-'));
    fs.writeFileSync(path.join(dir, 'kinds.yaml'), kindsFile);
    r = await prune(['--source-kinds', path.join(dir, 'kinds.yaml')]);
    assert.deepEqual([r.code, r.kept, r.gone], [0, 'protected', 'would-remove'], r.stderr);
  });
});
