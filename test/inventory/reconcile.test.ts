// reconcileNamespace against the real API server: garbage collection, adoption, the
// managed-by boundary, invalid refs, write-free no-op rebuilds, 409 retries, partial failure
// and pagination.
import assert from 'node:assert/strict';
import {
  imagesPath,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  type ImageResource,
} from '../../src/core/inventory/image-resource.js';
import { ImageStore } from '../../src/core/inventory/image-store.js';
import { imageResourceName } from '../../src/core/inventory/naming.js';
import { listNamespaceObjects } from '../../src/core/inventory/sources.js';
import { isWrite, KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { denyInNamespace } from '../support/servers/admission.js';
import {
  assertForeignKept,
  decorate,
  inventory,
  listImages,
  releaseFinalizers,
  podSpec,
  scan,
  serverImageWrites,
  setupEnv,
  template,
  type Env,
} from './helpers.js';

describe('reconcileNamespace (real API server)', () => {
  let env: Env;
  before(async () => {
    env = await setupEnv();
  });
  after(() => env.rest.close());

  const deploy = (ns: string, name: string, images: string[]) =>
    env.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name },
        spec: { selector: { matchLabels: { app: name } }, template: template(name, images) },
      },
    });

  const image = (ns: string, name: string, spec: string, managed: boolean, kinds?: string) =>
    env.rest.request<ImageResource>('POST', imagesPath(ns), {
      body: {
        apiVersion: 'imageinventory.dev/v1alpha1',
        kind: 'Image',
        metadata: { name, ...(managed ? { labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } } : {}) },
        spec: { image: spec },
        ...(kinds ? { status: { kinds } } : {}),
      },
    });

  it('deletes the Image when the last user of a ref goes away, and keeps shared refs', async () => {
    const ns = await newNamespace('gc');
    await deploy(ns, 'a', ['nginx:1.25', 'redis:7']);
    await deploy(ns, 'b', ['redis:7']);
    await scan(env, ns);
    assert.deepEqual(await inventory(env, ns), {
      'docker.io/library/nginx:1.25': 'Deployment',
      'docker.io/library/redis:7': 'Deployment',
    });
    await env.apps.deleteNamespacedDeployment({ name: 'a', namespace: ns });
    const r = await scan(env, ns);
    assert.equal(r.results[0]!.counts.deleted, 1);
    assert.deepEqual(await inventory(env, ns), { 'docker.io/library/redis:7': 'Deployment' });
  });

  it('adopts a labeled Image with the desired name, and never touches unlabeled Images', async () => {
    const ns = await newNamespace('adopt');
    await deploy(ns, 'web', ['nginx:1.25', 'redis:7']);
    const nginxName = imageResourceName('docker.io/library/nginx:1.25');
    const redisName = imageResourceName('docker.io/library/redis:7');
    await image(ns, nginxName, 'docker.io/library/wrong:0', true);
    await image(ns, redisName, 'docker.io/library/redis:7', false); // foreign object, same name
    await image(ns, 'hand-made', 'docker.io/library/hand:1', false); // foreign, not desired
    await image(ns, 'stale-managed', 'docker.io/library/stale:1', true); // ours, not desired
    const r = await scan(env, ns);
    const byName = Object.fromEntries((await listImages(env, ns)).map((i) => [i.metadata.name, i]));
    assert.equal(byName[nginxName]!.spec!.image, 'docker.io/library/nginx:1.25', 'adopted: spec overwritten');
    assert.equal(byName[nginxName]!.status!.kinds, 'Deployment');
    assert.equal(
      byName[redisName]!.status,
      undefined,
      'unlabeled Image with the desired name is left untouched',
    );
    assert.equal(byName[redisName]!.metadata.labels?.[MANAGED_BY_LABEL], undefined);
    assert.ok(byName['hand-made'], 'unlabeled Image is never deleted');
    assert.equal(byName['stale-managed'], undefined, 'managed orphan is garbage-collected');
    assert.equal(r.failures.length, 1, 'the name collision is reported');
    assert.match(r.failures[0]!.error, /without the managed-by label/);
  });

  it('keeps foreign labels, annotations, finalizers and ownerReferences through spec and kinds changes and adoption', async () => {
    const ns = await newNamespace('foreign');
    await deploy(ns, 'web', ['nginx:1.25', 'redis:7']);
    const nginx = imageResourceName('docker.io/library/nginx:1.25');
    const redis = imageResourceName('docker.io/library/redis:7');
    // Adoption: a labeled Image that someone else created, with a wrong spec and their metadata.
    await image(ns, redis, 'docker.io/library/wrong:0', true);
    await decorate(env, ns, redis);
    await scan(env, ns);
    assert.equal((await inventory(env, ns))['docker.io/library/redis:7'], 'Deployment', 'adopted');
    await assertForeignKept(env, ns, redis, 'after adoption');

    // A kinds change (status) on an Image that carries foreign metadata.
    await decorate(env, ns, nginx);
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'p' }, spec: podSpec(['nginx:1.25']) },
    });
    await scan(env, ns);
    assert.equal((await inventory(env, ns))['docker.io/library/nginx:1.25'], 'Deployment,Pod');
    await assertForeignKept(env, ns, nginx, 'after a kinds change');

    // A spec change: someone edited spec.image; the rebuild puts it back and keeps the rest.
    await env.rest.request('PATCH', imagesPath(ns, nginx), {
      contentType: 'application/merge-patch+json',
      body: { spec: { image: 'docker.io/library/edited:1' } },
    });
    const r = await scan(env, ns);
    assert.deepEqual(r.failures, []);
    assert.equal((await inventory(env, ns))['docker.io/library/nginx:1.25'], 'Deployment,Pod');
    await assertForeignKept(env, ns, nginx, 'after a spec change');
    for (const n of [nginx, redis]) await releaseFinalizers(env, ns, n);
  });

  it('reports exactly the Image writes the API server counted (apiserver_request_total), under concurrency', async () => {
    const ns = await newNamespace('count');
    const refs = Array.from({ length: 40 }, (_, i) => `example.com/count/app${i}:1`);
    await deploy(ns, 'many', refs);
    const before = await serverImageWrites(env);
    const r = await scan(env, ns);
    const after = await serverImageWrites(env);
    assert.equal(r.results[0]!.counts.created, 40);
    // Each new Image is one write: a create that carries its status.
    assert.equal(r.results[0]!.writes, 40);
    assert.equal(after - before, r.results[0]!.writes, 'reported writes = writes the server counted');
  });

  it('reports invalid refs (scan output and an Event on the source) without stopping other refs', async () => {
    const ns = await newNamespace('invalid');
    await deploy(ns, 'typo', ['docker.io/Acme/App:1', 'nginx:1.25', 'busybox:bad tag']);
    const r = await scan(env, ns);
    const res = r.results[0]!;
    assert.deepEqual(await inventory(env, ns), { 'docker.io/library/nginx:1.25': 'Deployment' });
    assert.deepEqual(
      res.invalid.map((i) => [i.source, i.container, i.image]),
      [
        ['Deployment/typo', 'c0', 'docker.io/Acme/App:1'],
        ['Deployment/typo', 'c2', 'busybox:bad tag'],
      ],
    );
    assert.deepEqual(r.failures, [], 'invalid refs are warnings, not failures');
    const events = await env.core.listNamespacedEvent({ namespace: ns });
    const ours = events.items.filter((e) => e.reason === 'InvalidImageRef');
    assert.equal(ours.length, 2);
    assert.equal(ours[0]!.involvedObject.kind, 'Deployment');
    assert.equal(ours[0]!.involvedObject.name, 'typo');
    assert.equal(ours[0]!.type, 'Warning');
    // Rescanning does not duplicate the Events.
    await scan(env, ns);
    const again = await env.core.listNamespacedEvent({ namespace: ns });
    assert.equal(again.items.filter((e) => e.reason === 'InvalidImageRef').length, 2);
  });

  it('makes zero write calls when nothing changed (counted by the client and by the API server)', async () => {
    const ns = await newNamespace('noop');
    await deploy(ns, 'web', ['nginx:1.25', 'docker.io/Bad/Ref']);
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'p' }, spec: podSpec(['redis:7']) },
    });
    await scan(env, ns);
    const rest = new KubeRest(adminConfig());
    const calls: string[] = [];
    rest.onRequest = (method, path) => calls.push(`${method} ${path}`);
    const before = await serverImageWrites(env);
    const { scanCluster } = await import('../../src/core/inventory/scan.js');
    const r = await scanCluster(rest, { namespaces: [ns] });
    rest.close();
    assert.equal(r.results[0]!.writes, 0);
    assert.equal(r.results[0]!.counts.unchanged, 2);
    assert.deepEqual(
      calls.filter((c) => isWrite(c.split(' ')[0]!)),
      [],
    );
    assert.ok(calls.length > 0);
    assert.equal(await serverImageWrites(env), before, 'the API server saw no Image writes');
  });

  it('retries on 409 Conflict with a fresh read', async () => {
    const ns = await newNamespace('conflict');
    const store = new ImageStore(env.rest);
    const name = imageResourceName('docker.io/library/nginx:1.25');
    assert.equal(
      await store.ensure(ns, name, 'docker.io/library/nginx:1.25', { kinds: 'Pod' }, undefined),
      1,
      'a new Image is one write',
    );
    const [stale] = await store.list(ns);
    // Someone else writes in between: our copy's resourceVersion is now stale.
    await env.rest.request('PUT', imagesPath(ns, name), {
      body: { ...stale, apiVersion: 'imageinventory.dev/v1alpha1', kind: 'Image', status: { kinds: 'Job' } },
    });
    const writes = await store.ensure(
      ns,
      name,
      'docker.io/library/nginx:1.25',
      { kinds: 'Deployment,Pod' },
      stale,
    );
    assert.equal(writes, 2, 'the first write hit 409, and the retry after a fresh read is one write');
    assert.deepEqual(await inventory(env, ns), { 'docker.io/library/nginx:1.25': 'Deployment,Pod' });
  });

  it('does not abandon other writes when one is rejected, and reports the failure', async () => {
    const ns = await newNamespace('partial');
    const cleanup = await denyInNamespace(env.kc, {
      name: `deny-${ns}`,
      namespace: ns,
      rule: { apiGroups: ['imageinventory.dev'], operations: ['CREATE', 'UPDATE'], resources: ['images'] },
      expression: "!object.spec.image.contains('deny-me')",
      message: 'denied by test policy',
      probe: () =>
        env.rest.request('POST', imagesPath(ns), {
          query: { dryRun: 'All' },
          body: {
            apiVersion: 'imageinventory.dev/v1alpha1',
            kind: 'Image',
            metadata: { name: 'probe' },
            spec: { image: 'x.io/deny-me:1' },
          },
        }),
    });
    try {
      await deploy(ns, 'web', ['nginx:1.25', 'example.com/deny-me:1', 'redis:7']);
      const r = await scan(env, ns);
      assert.equal(r.failures.length, 1);
      assert.match(r.failures[0]!.error, /denied by test policy/);
      const failed = r.results[0]!.images.filter((i) => i.result === 'failed');
      assert.deepEqual(
        failed.map((i) => i.image),
        ['example.com/deny-me:1'],
      );
      assert.deepEqual(await inventory(env, ns), {
        'docker.io/library/nginx:1.25': 'Deployment',
        'docker.io/library/redis:7': 'Deployment',
      });
    } finally {
      await cleanup();
    }
  });

  it('treats a namespace being deleted as nothing to write, not as a failure', async () => {
    const ns = await newNamespace('terminating');
    await deploy(ns, 'web', ['nginx:1.25']);
    // No namespace controller runs here, so the namespace stays Terminating with its content,
    // as it does in a cluster while the namespace controller works through it.
    await env.core.deleteNamespace({ name: ns });
    const r = await scan(env, ns);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(
      r.results[0]!.images.map((i) => [i.image, i.result, i.error]),
      [['docker.io/library/nginx:1.25', 'skipped', 'namespace is being deleted']],
    );
  });

  it('lists with pagination (limit/continue)', async () => {
    const ns = await newNamespace('pages');
    for (let i = 0; i < 7; i++) {
      await env.core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: `p${i}` }, spec: podSpec([`example.com/app${i}:1`]) },
      });
    }
    const rest = new KubeRest(adminConfig());
    const podLists: string[] = [];
    rest.onRequest = (m, p) => p.endsWith('/pods') && podLists.push(m);
    const pods = await rest.list(`/api/v1/namespaces/${ns}/pods`, { pageSize: 3 });
    assert.equal(pods.items.length, 7);
    assert.equal(podLists.length, 3, '7 pods in pages of 3 take 3 requests');
    const objs = await listNamespaceObjects(rest, ns);
    assert.equal(objs.pods!.length, 7);
    rest.close();
  });

  it('dry-run computes changes and writes nothing', async () => {
    const ns = await newNamespace('dry');
    await deploy(ns, 'web', ['nginx:1.25']);
    await image(ns, 'old', 'docker.io/library/old:1', true, 'Pod');
    const r = await scan(env, ns, true);
    assert.deepEqual(
      r.results[0]!.images.map((i) => [i.image, i.change, i.result]),
      [
        ['docker.io/library/nginx:1.25', 'create', 'planned'],
        ['docker.io/library/old:1', 'delete', 'planned'],
      ],
    );
    // (The Image CRD has no status subresource: the old Image keeps the kinds it was created with.)
    assert.deepEqual(await inventory(env, ns), { 'docker.io/library/old:1': 'Pod' });
  });
});
