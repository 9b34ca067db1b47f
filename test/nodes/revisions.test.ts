// Every running revision counts, on the whole cluster with the real controller-manager, scheduler
// and kubelets: a Deployment whose rollout is stuck halfway and then paused (the old
// ReplicaSet's Pods still run app:v1, the template names app:v2), a StatefulSet whose partition
// keeps ordinal 0 on db:v1, a DaemonSet updating with maxUnavailable 1 whose second node still runs
// agent:v1. `inv scan` credits each old image to its workload, with the revision and its Pods in
// status.users; a `*` prune during the paused rollout keeps app:v1 on the node where no old Pod
// runs (outcome protected), as the inventory says it is used.
import assert from 'node:assert/strict';
import { PRUNE_ALL } from '../../src/core/erase/spec/images.js';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { runCli } from '../cli/run-cli.js';
import { kubectl, nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { reportFromLogs } from '../support/worker-logs.js';
import { importToNodes, NodeEraseEnv, nodeImageIds } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

interface PodView {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
  spec: { nodeName?: string; containers: { image: string }[] };
  status?: { phase?: string };
}

describe('every running revision counts (real nodes)', function () {
  this.timeout(600_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let ns: string;
  const ref = (what: string) => `docker.io/library/e2e-rev-${what}-${env.tag}:1`;
  const container = (image: string) => ({
    name: 'c',
    image,
    imagePullPolicy: 'Never',
    command: ['/bin/sleep', '3600'],
  });
  const podSpec = (image: string, extra: Record<string, unknown> = {}) => ({
    containers: [container(image)],
    terminationGracePeriodSeconds: 0,
    automountServiceAccountToken: false,
    ...extra,
  });
  const pods = async (label: string) =>
    (
      await env.rest.list<PodView>(`/api/v1/namespaces/${ns}/pods`, {
        query: { labelSelector: `app=${label}` },
      })
    ).items;
  const running = (ps: PodView[], image: string) =>
    ps.filter((p) => p.status?.phase === 'Running' && p.spec.containers[0]!.image === image);
  const patch = (path: string, body: unknown) =>
    env.rest.request('PATCH', path, { contentType: 'application/merge-patch+json', body });
  const users = async (image: string) => {
    const r = runCli(['scan', '-n', ns, '--kubeconfig', c.kubeconfig]);
    assert.equal(r.status, 0, r.stderr);
    const imgs = (await env.rest.list<ImageResource>(imagesPath(ns))).items;
    const img = imgs.find((i) => i.spec?.image === image);
    return { users: img?.status?.users, kinds: img?.status?.kinds };
  };

  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(900_000);
    env = await new NodeEraseEnv(c).setup();
    ns = env.namespace;
    env.startControllers();
  });
  // The images this file imported: removed from the nodes at the end, so the files after it see
  // the nodes as they were (their workers' summaries have a size budget).
  const imported: string[] = [];
  const add = async (images: Parameters<typeof importToNodes>[2]) => {
    const built = await importToNodes(c, [0, 1], images);
    imported.push(...built.map((b) => b!.id));
    return built;
  };
  after(async () => {
    await env?.teardown();
    for (const i of [0, 1]) {
      const cri = await nodeCri(c, i);
      try {
        for (const id of imported) await cri.removeImage(id).catch(() => undefined);
      } finally {
        cri.close();
      }
    }
  });

  it('a Deployment paused halfway: app:v1 is the Deployment’s, and a * prune keeps it where no old Pod runs', async () => {
    const [n1, n2] = c.nodes.map((n) => n.name) as [string, string];
    const [v1] = await add([{ refs: [ref('app-v1')], distinct: `rev-app-${env.tag}` }]);
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    // Both Pods on node 1, so node 2 holds app:v1 with no Pod that runs it.
    const template = (image: string) => ({
      metadata: { labels: { app: 'web' } },
      spec: podSpec(image, { nodeSelector: { 'kubernetes.io/hostname': n1 } }),
    });
    await env.rest.request('POST', deployments, {
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
          template: template(ref('app-v1')),
        },
      },
    });
    await until(
      'both app:v1 Pods Running',
      async () => running(await pods('web'), ref('app-v1')).length === 2,
    );
    // app:v2 is on no node and never pulled: its surge Pod never becomes Ready, so the rollout
    // stays halfway, and is then paused there.
    await patch(`${deployments}/web`, { spec: { template: template(ref('app-v2')) } });
    await until('the new ReplicaSet’s Pod exists', async () =>
      (await pods('web')).some((p) => p.spec.containers[0]!.image === ref('app-v2')),
    );
    await patch(`${deployments}/web`, { spec: { paused: true } });
    const old = running(await pods('web'), ref('app-v1'));
    assert.equal(old.length, 2, 'the old Pods still run');
    const rs = old[0]!.metadata.ownerReferences![0]!.name;

    const v1Users = await users(ref('app-v1'));
    assert.deepEqual(v1Users, { users: [`Deployment/web (ReplicaSet ${rs}, 2 Pods)`], kinds: 'Deployment' });
    assert.deepEqual((await users(ref('app-v2'))).users, ['Deployment/web']);
    const images = runCli(['images', '-n', ns, '-o', 'json', '--kubeconfig', c.kubeconfig]);
    assert.equal(images.status, 0, images.stderr);
    assert.match(images.stdout, new RegExp(`Deployment/web \\(ReplicaSet ${rs}, 2 Pods\\)`));

    const job = await env.wait(await env.erase({ images: [PRUNE_ALL] }), 240_000);
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    for (const i of [0, 1]) assert.ok((await nodeImageIds(c, i)).has(v1!.id), `app:v1 kept on node ${i + 1}`);
    // On node 2 nothing runs it: the inventory's protection keeps it, naming the Deployment.
    const worker = (await env.workers(job.metadata.name)).get(n2)!;
    const logs = await kubectl(c, ['-n', ns, 'logs', worker.metadata.name]);
    assert.equal(logs.code, 0, logs.stderr);
    const row = reportFromLogs<{ results: { imageId: string; outcome: string; reason: string }[] }>(
      logs.stdout,
    ).results.find((x) => x.imageId === v1!.id);
    assert.deepEqual([row?.outcome, row?.reason], ['protected', `referenced by Deployment in ${ns}`]);
  });

  it('a StatefulSet partition: ordinal 0 still runs db:v1, credited to the StatefulSet', async () => {
    await add([
      { refs: [ref('db-v1')], distinct: `rev-db1-${env.tag}` },
      { refs: [ref('db-v2')], distinct: `rev-db2-${env.tag}` },
    ]);
    const path = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
    const template = (image: string) => ({ metadata: { labels: { app: 'db' } }, spec: podSpec(image) });
    await env.rest.request('POST', path, {
      body: {
        metadata: { name: 'db' },
        spec: {
          replicas: 2,
          serviceName: 'db',
          podManagementPolicy: 'Parallel',
          selector: { matchLabels: { app: 'db' } },
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
          template: template(ref('db-v1')),
        },
      },
    });
    await until('both db:v1 Pods Running', async () => running(await pods('db'), ref('db-v1')).length === 2);
    await patch(`${path}/db`, { spec: { template: template(ref('db-v2')) } });
    await until('db-1 updated to db:v2, db-0 not', async () => {
      const ps = await pods('db');
      return (
        running(ps, ref('db-v2')).some((p) => p.metadata.name === 'db-1') &&
        running(ps, ref('db-v1')).some((p) => p.metadata.name === 'db-0')
      );
    });
    assert.deepEqual(await users(ref('db-v1')), {
      users: ['StatefulSet/db (earlier revision, 1 Pod)'],
      kinds: 'StatefulSet',
    });
    assert.deepEqual((await users(ref('db-v2'))).users, ['StatefulSet/db']);
  });

  it('a DaemonSet update with maxUnavailable 1: the node not yet updated still runs agent:v1', async () => {
    await add([{ refs: [ref('agent-v1')], distinct: `rev-agent-${env.tag}` }]);
    const path = `/apis/apps/v1/namespaces/${ns}/daemonsets`;
    const template = (image: string) => ({ metadata: { labels: { app: 'agent' } }, spec: podSpec(image) });
    await env.rest.request('POST', path, {
      body: {
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
          template: template(ref('agent-v1')),
        },
      },
    });
    await until(
      'agent:v1 on both nodes',
      async () => running(await pods('agent'), ref('agent-v1')).length === 2,
    );
    // agent:v2 is on no node: the first updated Pod never becomes Ready, so the update stops
    // there, with the other node still on agent:v1.
    await patch(`${path}/agent`, { spec: { template: template(ref('agent-v2')) } });
    await until('one node updated, one not', async () => {
      const ps = await pods('agent');
      return (
        ps.some((p) => p.spec.containers[0]!.image === ref('agent-v2')) &&
        running(ps, ref('agent-v1')).length === 1
      );
    });
    assert.deepEqual(await users(ref('agent-v1')), {
      users: ['DaemonSet/agent (earlier revision, 1 Pod)'],
      kinds: 'DaemonSet',
    });
  });
});
