// A controller killed between creating an object and recording its UID finds, after a restart,
// an object with its owner label and no recorded UID (src/core/apply-inventory/same-content.ts).
// Against the real API server: it is adopted (UID recorded) when its content is exactly what the
// controller would create, including a PodTemplate whose Pod spec the server defaulted; it stays
// foreign (a collision) when its content differs or a finalizer could hold it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { KubeRest } from '../../src/core/kube/rest.js';
import { scheduleApply, type DesiredItem } from '../../src/core/apply-inventory/items.js';
import {
  applyWave,
  collectionPath,
  manifestDigest,
  stamp,
  type KubeObject,
  type Owner,
} from '../../src/core/apply-inventory/objects.js';
import { adminConfig } from '../support/kube.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('reconciler: objects created before a crash, UID not recorded (API server)', function () {
  this.timeout(60_000);
  let rest: KubeRest;
  let ns: string;
  const owner: Owner = { uid: randomUUID(), description: 'test/Adopt/a' };

  useNamespace('adopt', (n) => (ns = n), { remove: true });
  before(async () => {
    rest = new KubeRest(adminConfig());
  });
  after(async () => {
    rest.close();
  });

  const configMap = (name: string, data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns },
    data,
  });
  const podTemplate = (name: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name, namespace: ns },
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } },
  });
  const desired = (m: KubeObject): DesiredItem => ({
    group: '',
    version: 'v1',
    kind: m.kind!,
    namespace: ns,
    name: m.metadata!.name!,
    applyOrder: 0,
    deleteOrder: 0,
    deletePolicy: 'Delete',
    digest: manifestDigest(m),
  });
  /** What the crashed controller left: the stamped object, created, its UID never recorded. */
  const leftBehind = async (m: KubeObject, change?: (o: KubeObject) => KubeObject): Promise<string> => {
    const body = stamp(m, owner, manifestDigest(m));
    const created = await rest.request<KubeObject>('POST', collectionPath(desired(m)), {
      body: change ? change(body) : body,
    });
    return created.metadata!.uid!;
  };
  const apply = (m: KubeObject) =>
    applyWave(rest, scheduleApply([], [desired(m)]), { owner, manifest: () => m });

  it('adopts a ConfigMap and a server-defaulted PodTemplate whose content is what it would create', async () => {
    for (const m of [configMap('cm-same', { images: '["a"]' }), podTemplate('pt-same')]) {
      const uid = await leftBehind(m);
      const r = await apply(m);
      assert.deepEqual(r.collisions, [], m.kind);
      assert.deepEqual(r.errors, [], m.kind);
      assert.equal(r.inventory[0]!.phase, 'Ready', m.kind);
      assert.equal(r.inventory[0]!.uid, uid, `${m.kind}: the live object's UID is recorded`);
    }
  });

  it('keeps foreign an object with our label whose content differs, or that carries a finalizer', async () => {
    const other = configMap('cm-other', { images: '["a"]' });
    await leftBehind(other, (b) => ({ ...b, data: { images: '["b"]' } }));
    const held = configMap('cm-held', { images: '["a"]' });
    await leftBehind(held, (b) => ({ ...b, metadata: { ...b.metadata, finalizers: ['example.com/hold'] } }));
    for (const m of [other, held]) {
      const r = await apply(m);
      assert.equal(r.collisions.length, 1, m.metadata!.name);
      assert.match(r.collisions[0]!.holder, /carries our owner label but was not created by this controller/);
    }
    // The finalizer is not ours to leave behind on the test's namespace.
    const path = `/api/v1/namespaces/${ns}/configmaps/cm-held`;
    const live = await rest.get<KubeObject>(path);
    await rest.request('PUT', path, { body: { ...live, metadata: { ...live.metadata, finalizers: [] } } });
  });
});
