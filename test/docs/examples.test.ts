// The inv kinds the docs show, applied to the real API server: every ImageList (docs/examples and
// the pages' YAML blocks) is created (the CRD's schema and CEL rules accept it) and read back as
// written; the exclusion lists are created in a namespace of their own and read back by the
// controllers' own loader (loadExclusions), patterns in order; a SourceKinds is stored in the
// daemon's ConfigMap and read back by the daemon's reader.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { DEFAULT_CONFIG } from '../../src/core/erase/config/config.js';
import { loadExclusions } from '../../src/core/erase/cluster/settings.js';
import { parseExclusionData } from '../../src/core/erase/spec/images.js';
import { SOURCE_KINDS_CONFIGMAP, SOURCE_KINDS_KEY } from '../../src/core/inventory/declared-kinds.js';
import { readSourceKindsConfigMap } from '../../src/core/inventory/source-kinds-configmap.js';
import {
  docsYaml,
  isExclusionList,
  isImageList,
  isSourceKinds,
  type Manifest,
} from '../support/docs/docs-manifests.js';
import { adminConfig, newNamespace } from '../support/kube.js';

const LISTS = '/apis/erase.imageinventory.dev/v1alpha1/imagelists';
const T = { timeoutMs: 15_000 };

describe('the docs’ manifests on the real API server', function () {
  this.timeout(60_000);
  let rest: KubeRest;
  /** Each distinct manifest once: a page shows an example file whole, so both hold it. */
  const found = (f: (d: Manifest) => boolean) => {
    const seen = new Map<string, { where: string; d: Manifest }>();
    for (const y of docsYaml())
      for (const d of y.docs as Manifest[])
        if (f(d) && !seen.has(JSON.stringify(d))) seen.set(JSON.stringify(d), { where: y.where, d });
    return [...seen.values()];
  };
  const created: string[] = [];

  before(async () => {
    rest = new KubeRest(adminConfig());
    await installCrds(rest);
  });
  after(async () => {
    for (const name of created) await rest.request('DELETE', `${LISTS}/${name}`, T).catch(() => {});
    rest?.close();
  });

  it('every ImageList is accepted and stored as written', async () => {
    const lists = found(isImageList);
    assert.ok(lists.length >= 2);
    const suffix = randomBytes(3).toString('hex');
    for (const { where, d } of lists) {
      // A name of this run's own: the cluster-scoped lists of other test files stay apart.
      const name = `${d.metadata!.name}-${suffix}`;
      const body = { ...d, metadata: { ...d.metadata, name } };
      const stored = await rest
        .request<Manifest>('POST', LISTS, { ...T, body })
        .catch((e: Error) => assert.fail(`${where}: the API server refused ImageList ${name}: ${e.message}`));
      created.push(name);
      assert.deepEqual(stored.spec, d.spec, `${where}: stored as written`);
    }
  });

  it('the exclusion lists are read back by the controllers’ loader', async () => {
    const maps = found(isExclusionList);
    assert.ok(maps.length >= 1);
    const ns = await newNamespace('docs-exclusions');
    const expected = new Set<string>();
    for (const { where, d } of maps) {
      await rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        ...T,
        body: { ...d, metadata: { ...d.metadata, namespace: ns } },
      });
      for (const p of parseExclusionData(where, d.data)) expected.add(p);
    }
    const loaded = await loadExclusions(rest, ns, DEFAULT_CONFIG);
    assert.deepEqual(new Set(loaded), expected);
    assert.ok(loaded.includes('registry.k8s.io/*') && loaded.includes('postgres:*'));
  });

  it('a SourceKinds in the daemon’s ConfigMap is read back by the daemon’s reader', async () => {
    const [first] = found(isSourceKinds);
    assert.ok(first);
    const ns = await newNamespace('docs-kinds');
    await rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      ...T,
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: SOURCE_KINDS_CONFIGMAP, namespace: ns },
        data: { [SOURCE_KINDS_KEY]: stringify(first.d) },
      },
    });
    const kinds = await readSourceKindsConfigMap(rest, ns);
    assert.ok(kinds && kinds.length > 0, `${first.where}: declared kinds read back`);
  });
});
