// The erase trust boundary, on the whole cluster (real RBAC, real garbage collector, real
// kubelets):
//   - an ImageJob that no live ImageList created is refused, and nothing is created for it;
//   - even a job of a live list runs only what the administrator configured;
//   - a user who may create ImageLists cannot create ImageJobs, nor choose what runs.
// Deleting an ImageJob or its ImageList while workers run: delete-while-running.test.ts.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import {
  IMAGEJOBS_PATH,
  IMAGELISTS_PATH,
  JOB_LABEL,
  type ImageJob,
} from '../../../src/core/erase/api/types.js';
import { DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';
import { KubeRest } from '../../../src/core/kube/rest.js';
import { until, type WholeCluster } from '../../support/nodes.js';
import { NodeEraseEnv, nodeEraseEnvPerTest } from '../helpers.js';
import { serviceAccountToken } from '../../support/service-account.js';

interface Pod {
  metadata: { name: string; namespace: string };
  spec: { containers: { image: string }[]; volumes?: { hostPath?: { path: string } }[] };
  status?: { phase?: string };
}

const EVIL = {
  ...DEFAULT_CONFIG,
  runtimeSocket: '/var/run/docker.sock',
  worker: {
    ...DEFAULT_CONFIG.worker,
    image: 'evil.example/rootkit:latest',
    tolerations: [{ operator: 'Exists' }],
  },
};

describe('erase trust boundary and cleanup (whole cluster)', function () {
  this.timeout(240_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  nodeEraseEnvPerTest((cluster, e) => {
    c = cluster;
    env = e;
  });

  const forge = async (name: string, extra: Partial<ImageJob['metadata']>, spec: Partial<ImageJob['spec']>) =>
    env.rest.request<ImageJob>('POST', IMAGEJOBS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageJob',
        metadata: { name, ...extra },
        spec: {
          imageList: { name: 'nobody', uid: '00000000-0000-0000-0000-000000000000', generation: 1 },
          namespace: 'kube-system',
          images: ['*'],
          config: EVIL,
          ...spec,
        },
      },
    });
  /** A controller reference to an ImageList, as the ImageList controller writes it. */
  const listRef = (name: string, uid: string) => ({
    apiVersion: 'erase.imageinventory.dev/v1alpha1',
    kind: 'ImageList',
    name,
    uid,
    controller: true,
  });

  it('refuses an ImageJob that no live ImageList created: Failed with the reason, nothing created', async () => {
    const name = `forged-${env.tag}`;
    await forge(name, {}, {});
    const job = await until('the forged job refused', async () => {
      const j = await env.job(name);
      return j?.status?.phase === 'Failed' ? j : undefined;
    });
    assert.match(job.status!.message!, /^refused: not created by the ImageList controller/);
    // A controller reference to a list that does not exist is refused too.
    const name2 = `forged-ref-${env.tag}`;
    await forge(
      name2,
      {
        ownerReferences: [listRef('nobody', '00000000-0000-0000-0000-000000000000')],
      },
      {},
    );
    // Its owner does not exist, so the real garbage collector may delete it first: refused or
    // collected, nothing is created for it either way.
    const outcome = await until('the second forged job refused or collected', async () => {
      const j = await env.job(name2);
      if (!j) return 'collected';
      return j.status?.phase === 'Failed' ? j.status.message : undefined;
    });
    assert.match(outcome, /^(collected|refused: ImageList nobody .* does not exist)$/);
    // A controller reference to a live list, but not the list the job names, is refused.
    const req = await env.erase({ images: [`nothing-${env.tag}:1`] });
    await env.wait(req);
    const list = await env.rest.get<{ metadata: { uid: string; name: string } }>(
      `${IMAGELISTS_PATH}/${req.name}`,
    );
    const name3 = `forged-mismatch-${env.tag}`;
    await forge(
      name3,
      {
        ownerReferences: [listRef(list.metadata.name, list.metadata.uid)],
      },
      {},
    );
    const job3 = await until('the third forged job refused', async () => {
      const j = await env.job(name3);
      return j?.status?.phase === 'Failed' ? j : undefined;
    });
    assert.match(job3.status!.message!, /^refused: its ownerReference .* does not match spec\.imageList/);
    for (const n of [name, name2, name3]) assert.deepEqual(await env.leftovers(n), [], n);
    for (const n of [name, name3]) await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${n}`);
  });

  it("a job of a live ImageList runs only the administrator's worker image, socket and namespace", async () => {
    const req = await env.erase({ images: [`nothing-${env.tag}:1`] });
    await env.wait(req);
    const list = await env.rest.get<{ metadata: { uid: string; name: string } }>(
      `${IMAGELISTS_PATH}/${req.name}`,
    );
    // Someone allowed to create ImageJobs copies the list's UID into a forged job: asking for
    // other images than the list, it is refused before anything exists...
    const other = `${req.name}-other`;
    await forge(
      other,
      { ownerReferences: [listRef(list.metadata.name, list.metadata.uid)] },
      {
        imageList: { name: list.metadata.name, uid: list.metadata.uid, generation: 1 },
        images: [`nothing-${env.tag}:2`],
      },
    );
    const refused = await until('the job asking for other images refused', async () => {
      const j = await env.job(other);
      return j?.status?.phase === 'Failed' ? j : undefined;
    });
    assert.match(
      refused.status!.message!,
      /^refused: its spec differs from what ImageList \S+ asks for \(images\)$/,
    );
    assert.deepEqual(await env.leftovers(other), []);
    await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${other}`);
    // ...and asking for the list's images with its own worker image, socket and namespace, it
    // runs with the administrator's.
    const name = `${req.name}-forged`;
    await forge(
      name,
      {
        ownerReferences: [listRef(list.metadata.name, list.metadata.uid)],
      },
      {
        imageList: { name: list.metadata.name, uid: list.metadata.uid, generation: 1 },
        images: [`nothing-${env.tag}:1`],
      },
    );
    const job = await until('the forged job finished', async () => {
      const j = await env.job(name);
      return j?.status?.phase === 'Completed' || j?.status?.phase === 'Failed' ? j : undefined;
    });
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const pods = await env.rest.list<Pod>('/api/v1/pods', {
      query: { labelSelector: `${JOB_LABEL}=${name}` },
    });
    assert.equal(pods.items.length, 2);
    for (const p of pods.items) {
      assert.equal(p.metadata.namespace, env.namespace, 'the controllers namespace, not kube-system');
      assert.equal(p.spec.containers[0]!.image, c.workerImage, "the administrator's worker image");
      const sockets = (p.spec.volumes ?? []).flatMap((v) => (v.hostPath ? [v.hostPath.path] : []));
      assert.deepEqual(sockets, [c.runtimeSocket], "only the administrator's runtime socket");
    }
    await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${name}`);
    await until('the forged job cleaned up', async () => !(await env.job(name)), 60_000, 250);
  });

  it('a user who may create ImageLists cannot create ImageJobs, and cannot choose what runs', async () => {
    const sa = `requester-${env.tag}`;
    const role = `erase-requester-${env.tag}`;
    await env.rest.request('POST', `/api/v1/namespaces/${env.namespace}/serviceaccounts`, {
      body: { metadata: { name: sa } },
    });
    await env.rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: {
        metadata: { name: role },
        rules: [
          {
            apiGroups: ['erase.imageinventory.dev'],
            resources: ['imagelists'],
            verbs: ['create', 'get', 'list', 'watch'],
          },
        ],
      },
    });
    await env.rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: env.namespace }],
      },
    });
    try {
      const token = await serviceAccountToken(env.rest, env.namespace, sa);
      const cluster = env.kc.getCurrentCluster()!;
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData }],
        users: [{ name: sa, token }],
        contexts: [{ name: 'x', cluster: 'c', user: sa }],
        currentContext: 'x',
      });
      const user = new KubeRest(kc);
      try {
        const denied = await user
          .request('POST', IMAGEJOBS_PATH, {
            body: {
              apiVersion: 'erase.imageinventory.dev/v1alpha1',
              kind: 'ImageJob',
              metadata: { name: `user-${env.tag}` },
              spec: {
                imageList: { name: 'x', uid: 'x', generation: 1 },
                namespace: 'default',
                images: ['*'],
                config: EVIL,
              },
            },
          })
          .then(
            () => 0,
            (e: { code?: number }) => e.code ?? -1,
          );
        assert.equal(denied, 403, 'creating an ImageJob is forbidden');
        // An ImageList is what the user may create: it chooses images, never what runs.
        const name = `user-list-${env.tag}`;
        env.lists.push(name);
        await user
          .request('POST', IMAGELISTS_PATH, {
            body: {
              apiVersion: 'erase.imageinventory.dev/v1alpha1',
              kind: 'ImageList',
              metadata: { name },
              spec: {
                images: [`nothing-${env.tag}:1`],
                request: 'r1',
                worker: EVIL.worker,
                runtimeSocket: EVIL.runtimeSocket,
              },
            },
          })
          .catch((e: Error) => {
            // A schema that prunes or rejects unknown fields is fine too: nothing reaches the job.
            if (!/unknown field|strict decoding/.test(e.message)) throw e;
            return user.request('POST', IMAGELISTS_PATH, {
              body: {
                apiVersion: 'erase.imageinventory.dev/v1alpha1',
                kind: 'ImageList',
                metadata: { name },
                spec: { images: [`nothing-${env.tag}:1`], request: 'r1' },
              },
            });
          });
        const job = await env.wait({ name, generation: 1 });
        assert.equal(job.status?.phase, 'Completed', job.status?.message);
        for (const [, p] of await env.workers(job.metadata.name)) {
          const pod = await env.rest.get<Pod>(`/api/v1/namespaces/${env.namespace}/pods/${p.metadata.name}`);
          assert.equal(pod.spec.containers[0]!.image, c.workerImage);
          assert.deepEqual(
            (pod.spec.volumes ?? []).flatMap((v) => (v.hostPath ? [v.hostPath.path] : [])),
            [c.runtimeSocket],
          );
        }
      } finally {
        user.close();
      }
    } finally {
      await env.rest
        .request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${role}`)
        .catch(() => 0);
      await env.rest
        .request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`)
        .catch(() => 0);
    }
  });
});
