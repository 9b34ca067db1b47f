// The phases steps.test.ts does not reach, pass by pass against the real API server with an
// injected clock: the trust check (trust-check.ts), clean-up after deleteAfter and the cleanup
// finalizer (cleanup.ts). No controllers, no kubelet: where a kubelet would finish a terminating
// Pod, the test deletes it with a zero grace period.
import assert from 'node:assert/strict';
import { ImageJobController } from '../../src/core/erase/imagejob-controller.js';
import { ImageListController } from '../../src/core/erase/imagelist-controller.js';
import { IMAGEJOBS_PATH, IMAGELISTS_PATH, podNames, type ImageJob } from '../../src/core/erase/api/types.js';
import { terminationSummary } from '../../src/core/noderemove/summary.js';
import { isNotFound } from '../../src/core/kube/rest.js';
import { decodeInventory } from '../../src/core/apply-inventory/item-lines.js';
import { EraseEnv } from './helpers.js';

/** An input ConfigMap's name without its random part (worker/inputs.ts planInputs). */
const inputName = (i: { kind: string; name: string }) =>
  i.kind === 'ConfigMap' ? i.name.replace(/-[a-z0-9]{10}$/, '') : i.name;

describe('erase: the ImageJob phases step by step: trust check, clean-up, finalizer', function () {
  this.timeout(60_000);
  let env: EraseEnv;
  before(async () => {
    env = await new EraseEnv().setup();
    // A CRD just installed answers 429 while its storage initializes.
    for (let i = 0; ; i++) {
      try {
        await env.rest.list<ImageJob>(IMAGEJOBS_PATH);
        break;
      } catch (e) {
        if (i > 100) throw e;
        await new Promise((res) => setTimeout(res, 100));
      }
    }
  });
  after(async () => {
    await env.teardown();
  });

  let clock = new Date();
  const later = (ms: number) => (clock = new Date(clock.getTime() + ms));

  /** A list for the env's nodes and its job; the controllers run on the test's clock. */
  async function start(list: string) {
    await env.erase({ name: list, images: [`docker.io/library/nothing-${env.tag}:1`], jobTimeout: '1m' });
    const lists = new ImageListController({
      rest: env.rest,
      namespace: env.namespace,
      configNamespace: env.namespace,
      now: () => clock,
    });
    await lists.reconcile(list);
    const name = (await env.rest.list<ImageJob>(IMAGEJOBS_PATH)).items.find(
      (j) => j.spec.imageList.name === list,
    )!.metadata.name;
    const ctl = new ImageJobController({
      rest: env.rest,
      namespace: env.namespace,
      configNamespace: env.namespace,
      now: () => clock,
    });
    return { lists, name, ctl };
  }

  const inventory = async (name: string) =>
    decodeInventory((await env.job(name))?.status?.inventory)
      .map((i) => `${i.kind}/${inputName(i)}=${i.phase}`)
      .sort();
  const podPath = (pod: string) => `/api/v1/namespaces/${env.namespace}/pods/${pod}`;
  /** What the kubelet does for a terminating Pod: it goes (a finished one may be gone already). */
  const kubeletRemoves = (pod: string) =>
    env.rest
      .request('DELETE', podPath(pod), {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 },
      })
      .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));

  it('trust check: a job whose ImageList is gone before it was planned is refused for good, nothing created', async () => {
    await env.nodes([{ name: 't' }]);
    const list = `trust-${env.tag}`;
    const { name, ctl } = await start(list);
    // No garbage collector runs here: the job outlives its list.
    await env.rest.request('DELETE', `${IMAGELISTS_PATH}/${list}`);
    await assert.rejects(ctl.reconcile(name), /refused: /);
    const job = (await env.job(name))!;
    assert.equal(job.status?.phase, 'Failed');
    assert.match(job.status?.message ?? '', /^refused: /);
    assert.deepEqual(decodeInventory(job.status?.inventory), []);
    assert.equal((await env.objects('configmaps', `erase.imageinventory.dev/job=${name}`)).length, 0);
    // Never touched again: no write.
    assert.deepEqual(await ctl.reconcile(name), {});
    assert.equal((await env.job(name))?.metadata.resourceVersion, job.metadata.resourceVersion);
  });

  it('clean-up: after deleteAfter the Pods go first, then the template and ConfigMaps, then the job', async () => {
    const [node] = (await env.nodes([{ name: 'cl' }])) as [string];
    const list = `clean-${env.tag}`;
    const { lists, name, ctl } = await start(list);
    const nodes = (await env.job(name))!.status?.nodes;
    assert.equal(nodes, undefined);
    await ctl.reconcile(name); // plan, wave 0
    later(1000);
    await ctl.reconcile(name); // wave 1: the Pods
    const job = (await env.job(name))!;
    const selected = decodeInventory(job.status?.inventory)
      .filter((i) => i.kind === 'Pod')
      .map((i) => i.name);
    const mine = podNames(name, [node]).get(node)!;
    assert.ok(selected.includes(mine));
    // Every worker finishes.
    const message = terminationSummary({
      node,
      runtime: { name: 'containerd', version: 'v1.6.20', apiVersion: 'v1' },
      results: [],
    });
    for (const pod of selected) {
      const cur = await env.rest.get<Record<string, unknown>>(podPath(pod));
      await env.rest.request('PUT', `${podPath(pod)}/status`, {
        body: {
          ...cur,
          status: {
            phase: 'Succeeded',
            containerStatuses: [
              {
                name: 'remover',
                image: 'x',
                imageID: '',
                ready: false,
                restartCount: 0,
                state: { terminated: { exitCode: 0, message } },
              },
            ],
          },
        },
      });
    }
    later(1000);
    await ctl.reconcile(name); // observe + finish
    const s = (await env.job(name))!;
    assert.equal(s.status?.phase, 'Completed');
    const deleteAfter = Date.parse(s.status!.deleteAfter!);
    assert.equal(deleteAfter - Date.parse(s.status!.completionTime!), 600_000, 'delayOnSuccess: 10m');
    const workerObjects = [`ConfigMap/${name}-exclude`, `ConfigMap/${name}-images`, `PodTemplate/${name}`];
    const pods = selected.map((p) => `Pod/${p}`);
    assert.deepEqual(
      await inventory(name),
      [...workerObjects.map((o) => `${o}=Ready`), ...pods.map((p) => `${p}=Completed`)].sort(),
    );

    // Before deleteAfter: nothing is deleted, and it looks again at deleteAfter.
    later(1000);
    const r = await ctl.reconcile(name);
    assert.ok(r.requeueAfter! > 590_000 && r.requeueAfter! <= 600_000, String(r.requeueAfter));

    // Past deleteAfter: everything scheduled (written first), the Pods (wave 0) deleted.
    clock = new Date(deleteAfter + 1000);
    await ctl.reconcile(name);
    assert.deepEqual(
      await inventory(name),
      [...workerObjects.map((o) => `${o}=ScheduledForDeletion`), ...pods.map((p) => `${p}=Deleting`)].sort(),
    );
    for (const pod of selected) await kubeletRemoves(pod);

    // The Pods are gone: dropped; then the next wave (template and ConfigMaps), then dropped.
    await ctl.reconcile(name);
    assert.deepEqual(await inventory(name), workerObjects.map((o) => `${o}=ScheduledForDeletion`).sort());
    await ctl.reconcile(name);
    assert.deepEqual(await inventory(name), workerObjects.map((o) => `${o}=Deleting`).sort());
    assert.deepEqual(await ctl.reconcile(name), { requeueAfter: 5000 }, 'waits for its list to record it');
    assert.deepEqual(await inventory(name), []);
    assert.ok(!(await env.job(name))!.metadata.deletionTimestamp);

    // The list records the result: the job deletes itself; its finalizer lets go.
    await lists.reconcile(list);
    assert.deepEqual(await ctl.reconcile(name), {});
    assert.ok((await env.job(name))!.metadata.deletionTimestamp, 'deleted, its finalizer pending');
    assert.deepEqual(await ctl.reconcile(name), {});
    assert.equal(await env.job(name), undefined);
  });

  it('the finalizer: a running job deleted deletes its objects in delete order, then lets go', async () => {
    await env.nodes([{ name: 'fz' }]);
    const list = `final-${env.tag}`;
    const { name, ctl } = await start(list);
    await ctl.reconcile(name);
    later(1000);
    await ctl.reconcile(name);
    const before = await inventory(name);
    const pods = before.filter((i) => i.startsWith('Pod/')).map((i) => i.slice(4, i.indexOf('=')));
    assert.ok(pods.length >= 1 && before.every((i) => i.endsWith('=Ready')), before.join(', '));

    await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${name}`);
    assert.deepEqual(await ctl.reconcile(name), { requeueAfter: 500 });
    const workerObjects = before.filter((i) => !i.startsWith('Pod/')).map((i) => i.slice(0, i.indexOf('=')));
    assert.deepEqual(
      await inventory(name),
      [
        ...workerObjects.map((o) => `${o}=ScheduledForDeletion`),
        ...pods.map((p) => `Pod/${p}=Deleting`),
      ].sort(),
    );
    for (const pod of pods) await kubeletRemoves(pod);
    assert.deepEqual(await ctl.reconcile(name), { requeueAfter: 500 });
    assert.deepEqual(await inventory(name), workerObjects.map((o) => `${o}=ScheduledForDeletion`).sort());
    assert.deepEqual(await ctl.reconcile(name), { requeueAfter: 500 });
    assert.deepEqual(await inventory(name), workerObjects.map((o) => `${o}=Deleting`).sort());
    assert.deepEqual(await ctl.reconcile(name), {});
    assert.equal(await env.job(name), undefined);
    assert.equal((await env.objects('configmaps', `erase.imageinventory.dev/job=${name}`)).length, 0);
  });
});
