// `inv watch` in process against the real API server: a workload change reaches the Images,
// the last user's deletion deletes its Image, predicates keep status noise and our own writes
// from causing rebuilds, --namespaces is respected and the metrics exist. The 1,000-Pod burst
// is in burst.test.ts.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { imagesPath, MANAGED_BY_LABEL } from '../../src/core/inventory/image-resource.js';
import {
  assertForeignKept,
  decorate,
  releaseFinalizers,
  setupEnv,
  template,
  podSpec,
  type Env,
} from '../inventory/helpers.js';
import { imageResourceName } from '../../src/core/inventory/naming.js';
import {
  images,
  inventory,
  enqueuesSince,
  logRecords,
  metric,
  rebuiltAfter,
  scrape,
  startDaemon,
  until,
  type InProcessDaemon,
} from './helpers.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('inv watch (in process, real API server)', function () {
  this.timeout(120_000);
  let env: Env;
  let ns: string;
  let other: string;
  let d: InProcessDaemon;

  useNamespace('watch', (n) => (ns = n));
  useNamespace('watch-other', (n) => (other = n));
  before(async () => {
    env = await setupEnv();
    // Something in the other namespace, for the --namespaces test.
    await env.apps.createNamespacedDeployment({
      namespace: other,
      body: {
        metadata: { name: 'o' },
        spec: { selector: { matchLabels: { app: 'o' } }, template: template('o', ['other:1']) },
      },
    });
    await env.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { matchLabels: { app: 'web' } }, template: template('web', ['web:1']) },
      },
    });
    d = await startDaemon(env.kc, { namespaces: [ns] });
    await until(
      'first rebuild',
      async () => (await inventory(env.rest, ns))['docker.io/library/web:1'] === 'Deployment',
    );
  });

  after(async () => {
    await d?.stop();
  });

  it('updates the Images within about a second of a Deployment image change', async () => {
    const t0 = Date.now();
    await env.apps.patchNamespacedDeployment(
      {
        name: 'web',
        namespace: ns,
        body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'web:2' }],
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    await until(
      'web:2 Image with kinds Deployment',
      async () => {
        const inv = await inventory(env.rest, ns);
        return inv['docker.io/library/web:2'] === 'Deployment' && !('docker.io/library/web:1' in inv);
      },
      5_000,
      10,
    );
    const ms = Date.now() - t0;
    console.log(`      Deployment change -> Image updated: ${ms} ms`);
    assert.ok(ms < 5_000);
  });

  it('deletes an Image when its last user is deleted, and keeps it while another user remains', async () => {
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'p1' }, spec: podSpec(['shared:1']) },
    });
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'p2' }, spec: podSpec(['shared:1']) },
    });
    await until(
      'shared Image',
      async () => (await inventory(env.rest, ns))['docker.io/library/shared:1'] === 'Pod',
    );
    const mark = d.logs.length;
    await env.core.deleteNamespacedPod({ name: 'p1', namespace: ns, gracePeriodSeconds: 0 });
    await until('a rebuild that saw p1 go', () =>
      rebuiltAfter(d, ns, mark, { why: 'Pod deleted', name: 'p1' }),
    );
    assert.equal((await inventory(env.rest, ns))['docker.io/library/shared:1'], 'Pod', 'one user left');
    const t0 = Date.now();
    await env.core.deleteNamespacedPod({ name: 'p2', namespace: ns, gracePeriodSeconds: 0 });
    await until(
      'shared Image deleted',
      async () => !('docker.io/library/shared:1' in (await inventory(env.rest, ns))),
      5_000,
      10,
    );
    console.log(`      last user deleted -> Image deleted: ${Date.now() - t0} ms`);
  });

  it('ignores Pod status-only updates and Image updates (no rebuild), but rebuilds on a real change', async () => {
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'st' }, spec: podSpec(['status:1']) },
    });
    await until(
      'status:1 Image',
      async () => (await inventory(env.rest, ns))['docker.io/library/status:1'] === 'Pod',
    );
    const mark = d.logs.length;
    const podEvents = d.daemon.cache.events().Pod;
    const imageEvents = d.daemon.cache.events().Image;

    // 10 status-only updates of the Pod.
    for (let i = 0; i < 10; i++) {
      const pod = await env.core.readNamespacedPod({ name: 'st', namespace: ns });
      pod.status = {
        ...pod.status,
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status: 'False', reason: `r${i}`, lastTransitionTime: new Date() },
        ],
      };
      await env.core.replaceNamespacedPodStatus({ name: 'st', namespace: ns, body: pod });
    }
    // Label changes and status writes on every Image (the daemon's own kind of write).
    const imgs = await images(env.rest, ns);
    for (const img of imgs) {
      await env.rest.request('PATCH', imagesPath(ns, img.metadata.name), {
        body: { metadata: { labels: { touched: 'yes' } } },
        contentType: 'application/merge-patch+json',
      });
      await env.rest.request('PATCH', imagesPath(ns, img.metadata.name), {
        body: { status: { kinds: img.status?.kinds } },
        contentType: 'application/merge-patch+json',
      });
    }
    // The events did arrive (so "no rebuild" means the predicates filtered them).
    await until('Pod status events in the cache', () => d.daemon.cache.events().Pod >= podEvents + 10);
    await until(
      'Image events in the cache',
      () => d.daemon.cache.events().Image >= imageEvents + imgs.length,
    );
    // Handlers run as each event is delivered, so every enqueue these events could cause is
    // already logged: none may name the Pod's status or an Image update.
    const noise = enqueuesSince(d, ns, mark).filter(
      (r) => (r.why === 'Pod changed' && r.name === 'st') || String(r.why).startsWith('Image'),
    );
    console.log(
      `      enqueues caused by 10 Pod status updates + ${imgs.length * 2} Image updates: ${noise.length}`,
    );
    assert.deepEqual(noise, []);

    // A Deployment scale changes spec (generation): one enqueue and a rebuild that saw it.
    const scaled = d.logs.length;
    await env.apps.patchNamespacedDeploymentScale(
      { name: 'web', namespace: ns, body: { spec: { replicas: 3 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until('a rebuild that saw the scale', () =>
      rebuiltAfter(d, ns, scaled, { why: 'Deployment changed', name: 'web' }),
    );

    // Our own writes never loop. A barrier: a label on one Image is delivered on the same watch
    // stream after every Image event of that rebuild, so once the cache has it, any event our
    // writes caused has been handled, and none may have enqueued the namespace.
    const afterRebuild = d.logs.length;
    const imageEventsBefore = d.daemon.cache.events().Image;
    await env.rest.request('PATCH', imagesPath(ns, imgs[0]!.metadata.name), {
      body: { metadata: { labels: { barrier: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    await until('the barrier event', () => d.daemon.cache.events().Image > imageEventsBefore);
    assert.deepEqual(
      enqueuesSince(d, ns, afterRebuild).filter((r) => String(r.why).startsWith('Image')),
      [],
    );

    // A container image change on the Pod (ephemeral container via kubectl-debug's subresource):
    // an enqueue for the Pod and a rebuild that saw it. (Not the rebuild counter: the Image is
    // written inside the rebuild, before the rebuild is counted, so a count read as soon as the
    // Image exists can still miss it.)
    const debugged = d.logs.length;
    const pod = await env.core.readNamespacedPod({ name: 'st', namespace: ns });
    pod.spec!.ephemeralContainers = [{ name: 'dbg', image: 'debug:1' }];
    await env.core.replaceNamespacedPodEphemeralcontainers({ name: 'st', namespace: ns, body: pod });
    await until(
      'debug:1 Image',
      async () => (await inventory(env.rest, ns))['docker.io/library/debug:1'] === 'Pod',
    );
    await until('a rebuild that saw the ephemeral container', () =>
      rebuiltAfter(d, ns, debugged, { why: 'Pod changed', name: 'st' }),
    );
  });

  it('keeps foreign labels, annotations, finalizers and ownerReferences through adoption, kinds and spec changes', async () => {
    const ref = 'docker.io/library/kept:1';
    const name = imageResourceName(ref);
    // Adoption: a labeled Image with a wrong spec and another tool's metadata, then a user appears.
    await env.rest.request('POST', imagesPath(ns), {
      body: {
        apiVersion: 'imageinventory.dev/v1alpha1',
        kind: 'Image',
        metadata: { name, labels: { [MANAGED_BY_LABEL]: 'image-inventory-controller' } },
        spec: { image: 'docker.io/library/wrong:0' },
      },
    });
    await decorate(env, ns, name);
    const pod = (n: string) =>
      env.core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: n }, spec: podSpec(['kept:1']) },
      });
    await pod('kept-a');
    await until('adopted', async () => (await inventory(env.rest, ns))[ref] === 'Pod');
    await assertForeignKept(env, ns, name, 'after adoption');
    // A kinds change.
    await env.batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: { name: 'kept-job' },
        spec: { template: { spec: { ...podSpec(['kept:1']), restartPolicy: 'Never' } } },
      },
    });
    await until('kinds Job,Pod', async () => (await inventory(env.rest, ns))[ref] === 'Job,Pod');
    await assertForeignKept(env, ns, name, 'after a kinds change');
    // A spec change: someone edits spec.image; the next rebuild (another Pod) puts it back.
    await env.rest.request('PATCH', imagesPath(ns, name), {
      contentType: 'application/merge-patch+json',
      body: { spec: { image: 'docker.io/library/edited:1' } },
    });
    await pod('kept-b');
    await until('spec restored', async () => (await inventory(env.rest, ns))[ref] === 'Job,Pod');
    await assertForeignKept(env, ns, name, 'after a spec change');
    await releaseFinalizers(env, ns, name);
  });

  it('with --namespaces, never touches other namespaces', async () => {
    // Scoped by construction: every informer watches `ns` only, so nothing in `other` can reach it.
    for (const i of d.daemon.cache.informerStats()) assert.ok(i.name.endsWith(`@${ns}`), i.name);
    assert.deepEqual(await inventory(env.rest, other), {});
    // An unmanaged-looking orphan there stays too.
    await env.rest.request('POST', imagesPath(other), {
      body: {
        apiVersion: 'imageinventory.dev/v1alpha1',
        kind: 'Image',
        metadata: { name: 'orphan', labels: { [MANAGED_BY_LABEL]: 'image-inventory-controller' } },
        spec: { image: 'docker.io/library/orphan:1' },
      },
    });
    // A full rebuild of the watched namespace happens after the orphan exists; it still does.
    const mark = d.logs.length;
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'scope-barrier' }, spec: podSpec(['scope:1']) },
    });
    await until('a rebuild after the orphan', () =>
      rebuiltAfter(d, ns, mark, { why: 'Pod added', name: 'scope-barrier' }),
    );
    assert.deepEqual(Object.keys(await inventory(env.rest, other)), ['docker.io/library/orphan:1']);
    assert.ok(!logRecords(d).some((r) => r.namespace === other), 'no log line names the other namespace');
    assert.ok(!d.daemon.cache.namespaces().has(other), 'other namespace is not even cached');
  });

  it('reports invalid refs as an Event and in inv_invalid_refs_total', async () => {
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'bad' }, spec: podSpec(['UPPER/Case:1']) },
    });
    await until('InvalidImageRef event', async () => {
      const evs = await env.core.listNamespacedEvent({ namespace: ns });
      return evs.items.some((e) => e.reason === 'InvalidImageRef' && e.involvedObject.name === 'bad');
    });
    const text = await scrape(d.daemon.manager.metricsUrl!);
    assert.ok((metric(text, 'inv_invalid_refs_total') ?? 0) >= 1);
  });

  it('exposes the required metrics', async () => {
    const text = await scrape(d.daemon.manager.metricsUrl!);
    for (const name of [
      'inv_workqueue_depth',
      'inv_workqueue_adds_total',
      'inv_rebuilds_total',
      'inv_rebuild_duration_seconds_bucket',
      'inv_rebuild_duration_seconds_count',
      'inv_workqueue_queue_duration_seconds_count',
      'inv_rebuild_delay_seconds_count',
      'inv_images_created_total',
      'inv_images_updated_total',
      'inv_images_deleted_total',
      'inv_invalid_refs_total',
      'inv_leader',
      'inv_cache_objects',
    ]) {
      assert.ok(text.includes(`\n${name}`) || text.startsWith(name), `metric ${name} missing`);
    }
    assert.equal(metric(text, 'inv_leader'), 1);
    assert.ok((metric(text, 'inv_rebuilds_total', { result: 'success' }) ?? 0) >= 3);
    assert.ok((metric(text, 'inv_images_created_total') ?? 0) >= 3);
    assert.ok((metric(text, 'inv_images_deleted_total') ?? 0) >= 2);
    assert.ok((metric(text, 'inv_workqueue_adds_total') ?? 0) >= 3);
    assert.ok((metric(text, 'inv_cache_objects', { kind: 'Pod' }) ?? 0) >= 1);
    const health = await fetch(`${d.daemon.manager.healthUrl}/readyz`);
    assert.equal(health.status, 200);
  });
});
