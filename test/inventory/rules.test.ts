// Every source-to-kinds rule, exercised against the real API server: objects are created
// through the API (ephemeral containers through pods/ephemeralcontainers, deletion through a
// finalizer and a real delete), then one rebuild runs and the Image resources are read back.
import assert from 'node:assert/strict';
import { newNamespace } from '../support/kube.js';
import { inventory, podSpec, scan, setupEnv, template, type Env } from './helpers.js';

describe('inventory rules (real API server)', () => {
  let env: Env;
  before(async () => {
    env = await setupEnv();
  });
  after(() => env.rest.close());

  const selector = (app: string) => ({ matchLabels: { app } });

  it('credits Deployment, StatefulSet and DaemonSet templates (containers + init), even at 0 replicas', async () => {
    const ns = await newNamespace('rules-wl');
    await env.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 0,
          selector: selector('web'),
          template: template('web', ['nginx:1.25'], ['busybox:1.36']),
        },
      },
    });
    await env.apps.createNamespacedStatefulSet({
      namespace: ns,
      body: {
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          replicas: 0,
          selector: selector('db'),
          template: template('db', ['postgres:16', 'nginx:1.25']),
        },
      },
    });
    await env.apps.createNamespacedDaemonSet({
      namespace: ns,
      body: {
        metadata: { name: 'agent' },
        spec: { selector: selector('agent'), template: template('agent', ['quay.io/org/agent:v1']) },
      },
    });
    const r = await scan(env, ns);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(await inventory(env, ns), {
      'docker.io/library/nginx:1.25': 'Deployment,StatefulSet',
      'docker.io/library/busybox:1.36': 'Deployment',
      'docker.io/library/postgres:16': 'StatefulSet',
      'quay.io/org/agent:v1': 'DaemonSet',
    });
  });

  it('credits a CronJob for its jobTemplate, and skips a Job owned by that live CronJob', async () => {
    const ns = await newNamespace('rules-cj');
    const cj = await env.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name: 'backup' },
        spec: {
          schedule: '0 3 * * *',
          jobTemplate: {
            spec: { template: { spec: { ...podSpec(['postgres:16']), restartPolicy: 'Never' } } },
          },
        },
      },
    });
    // A Job as the CronJob controller would create it: same image, owned by the CronJob.
    await env.batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: {
          name: 'backup-28000000',
          ownerReferences: [
            {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              name: 'backup',
              uid: cj.metadata!.uid!,
              controller: true,
            },
          ],
        },
        spec: { template: { spec: { ...podSpec(['postgres:16', 'busybox:1.36']), restartPolicy: 'Never' } } },
      },
    });
    await scan(env, ns);
    assert.deepEqual(await inventory(env, ns), { 'docker.io/library/postgres:16': 'CronJob' });
  });

  it('credits Job when its CronJob owner UID is stale, so both kinds appear', async () => {
    const ns = await newNamespace('rules-stale');
    await env.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name: 'report' },
        spec: {
          schedule: '@daily',
          jobTemplate: {
            spec: { template: { spec: { ...podSpec(['alpine:3.20']), restartPolicy: 'Never' } } },
          },
        },
      },
    });
    await env.batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: {
          name: 'report-1',
          // The UID of an earlier CronJob of the same name that was deleted and recreated.
          ownerReferences: [
            {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              name: 'report',
              uid: '0b4d3c2e-0000-4000-8000-000000000000',
            },
          ],
        },
        spec: { template: { spec: { ...podSpec(['alpine:3.20']), restartPolicy: 'Never' } } },
      },
    });
    // And a Job whose CronJob owner no longer exists at all.
    await env.batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: {
          name: 'orphan-1',
          ownerReferences: [
            {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              name: 'gone',
              uid: '0b4d3c2e-0000-4000-8000-000000000001',
            },
          ],
        },
        spec: { template: { spec: { ...podSpec(['ghcr.io/acme/orphan:1']), restartPolicy: 'Never' } } },
      },
    });
    await scan(env, ns);
    assert.deepEqual(await inventory(env, ns), {
      'docker.io/library/alpine:3.20': 'CronJob,Job',
      'ghcr.io/acme/orphan:1': 'Job',
    });
  });

  it('credits a naked Pod for containers, init and ephemeral containers; an owned Pod for ephemeral only', async () => {
    const ns = await newNamespace('rules-pod');
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'naked' }, spec: podSpec(['nginx:1.25'], ['busybox:1.36']) },
    });
    await env.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: {
          name: 'owned',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'web-abc',
              uid: '5f0c1e2a-0000-4000-8000-000000000002',
              controller: true,
            },
          ],
        },
        spec: podSpec(['example.com/owned-only:1']),
      },
    });
    // Add ephemeral containers the way `kubectl debug` does: through the subresource.
    for (const [pod, image] of [
      ['naked', 'docker.io/nicolaka/netshoot:v0.13'],
      ['owned', 'busybox:1.37'],
    ] as const) {
      const cur = await env.core.readNamespacedPod({ name: pod, namespace: ns });
      cur.spec!.ephemeralContainers = [{ name: 'debugger', image, targetContainerName: 'c0' }];
      await env.core.replaceNamespacedPodEphemeralcontainers({ name: pod, namespace: ns, body: cur });
    }
    await scan(env, ns);
    // The owned Pod's ReplicaSet does not exist: nothing says a source kind covers its
    // containers, so they are credited to the ReplicaSet (fail closed).
    assert.deepEqual(await inventory(env, ns), {
      'docker.io/library/nginx:1.25': 'Pod',
      'docker.io/library/busybox:1.36': 'Pod',
      'docker.io/nicolaka/netshoot:v0.13': 'Pod',
      'docker.io/library/busybox:1.37': 'Pod',
      'example.com/owned-only:1': 'ReplicaSet',
    });
  });

  it('ignores objects with a deletionTimestamp (finalizer, then delete)', async () => {
    const ns = await newNamespace('rules-del');
    const fin = ['example.com/hold'];
    await env.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'dying', finalizers: fin },
        spec: { selector: selector('d'), template: template('d', ['nginx:1.25']) },
      },
    });
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'dying-pod', finalizers: fin }, spec: podSpec(['redis:7']) },
    });
    await env.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name: 'dying-cj', finalizers: fin },
        spec: {
          schedule: '@daily',
          jobTemplate: {
            spec: { template: { spec: { ...podSpec(['alpine:3.20']), restartPolicy: 'Never' } } },
          },
        },
      },
    });
    await env.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'alive' },
        spec: { selector: selector('a'), template: template('a', ['busybox:1.36']) },
      },
    });
    await scan(env, ns);
    assert.equal(Object.keys(await inventory(env, ns)).length, 4);
    await env.apps.deleteNamespacedDeployment({ name: 'dying', namespace: ns });
    await env.core.deleteNamespacedPod({ name: 'dying-pod', namespace: ns });
    await env.batch.deleteNamespacedCronJob({ name: 'dying-cj', namespace: ns });
    const d = await env.apps.readNamespacedDeployment({ name: 'dying', namespace: ns });
    assert.ok(d.metadata?.deletionTimestamp, 'the finalizer keeps the object, now with a deletionTimestamp');
    await scan(env, ns);
    assert.deepEqual(await inventory(env, ns), { 'docker.io/library/busybox:1.36': 'Deployment' });
    // Release the finalizers so the objects go away.
    await env.apps.patchNamespacedDeployment({
      name: 'dying',
      namespace: ns,
      body: [{ op: 'remove', path: '/metadata/finalizers' }],
    });
  });

  it("reads ReplicaSets' metadata only: a bare one credits through its Pods, a Deployment's through the Deployment", async () => {
    const ns = await newNamespace('rules-rs');
    const rs = await env.apps.createNamespacedReplicaSet({
      namespace: ns,
      body: {
        metadata: { name: 'rs' },
        spec: { replicas: 0, selector: selector('rs'), template: template('rs', ['example.com/rs-only:1']) },
      },
    });
    const web = await env.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 0, selector: selector('web'), template: template('web', ['example.com/web:1']) },
      },
    });
    const owned = await env.apps.createNamespacedReplicaSet({
      namespace: ns,
      body: {
        metadata: {
          name: 'web-1',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'web',
              uid: web.metadata!.uid!,
              controller: true,
            },
          ],
        },
        spec: { replicas: 0, selector: selector('web'), template: template('web', ['example.com/web:1']) },
      },
    });
    const first = await scan(env, ns);
    assert.deepEqual(first.failures, []);
    assert.deepEqual(
      await inventory(env, ns),
      { 'example.com/web:1': 'Deployment' },
      'the template of a ReplicaSet is not read',
    );
    const podOf = (name: string, r: typeof rs, image: string) =>
      env.core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: {
            name,
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'ReplicaSet',
                name: r.metadata!.name!,
                uid: r.metadata!.uid!,
                controller: true,
              },
            ],
          },
          spec: podSpec([image]),
        },
      });
    await podOf('rs-x', rs, 'example.com/rs-only:1');
    await podOf('web-1-x', owned, 'example.com/web:1');
    await scan(env, ns);
    assert.deepEqual(await inventory(env, ns), {
      'example.com/rs-only:1': 'ReplicaSet',
      'example.com/web:1': 'Deployment',
    });
    // A Pod of the Deployment's ReplicaSet that runs an image the template does not name (an
    // older revision) credits it to the Deployment, not to the ReplicaSet.
    await podOf('web-1-y', owned, 'example.com/web-pod:1');
    await scan(env, ns);
    assert.deepEqual(await inventory(env, ns), {
      'example.com/rs-only:1': 'ReplicaSet',
      'example.com/web:1': 'Deployment',
      'example.com/web-pod:1': 'Deployment',
    });
  });
});
