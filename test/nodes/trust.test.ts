// The erase trust boundary and cleanup, on the whole cluster (real RBAC, real garbage
// collector, real kubelets):
//   - an ImageJob that no live ImageList created is refused, and nothing is created for it;
//   - even a job of a live list runs only what the administrator configured;
//   - a user who may create ImageLists cannot create ImageJobs, nor choose what runs;
//   - deleting an ImageJob or its ImageList while workers run leaves nothing behind, also when
//     the controllers were stopped at the time and started again.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import {
  CLEANUP_FINALIZER,
  IMAGEJOBS_PATH,
  IMAGELISTS_PATH,
  JOB_LABEL,
  type ImageJob,
} from '../../src/core/erase/api/types.js';
import { DEFAULT_CONFIG } from '../../src/core/erase/config/config.js';
import { isNotFound, KubeRest } from '../../src/core/kube/rest.js';
import { nodeCri, until, wholeCluster, type WholeCluster } from '../support/nodes.js';
import { importToNodes, NodeEraseEnv } from './helpers.js';

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
  before(async function () {
    this.timeout(600_000);
    c = await wholeCluster();
  });
  beforeEach(async () => {
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
  });
  afterEach(async () => {
    await env.teardown();
  });

  /** Every object of a job, in any namespace. */
  const leftovers = async (job: string) => {
    const out: string[] = [];
    for (const kind of ['pods', 'configmaps', 'podtemplates']) {
      const l = await env.rest.list<{ metadata: { namespace: string; name: string } }>(`/api/v1/${kind}`, {
        query: { labelSelector: `${JOB_LABEL}=${job}` },
      });
      out.push(...l.items.map((o) => `${kind}/${o.metadata.namespace}/${o.metadata.name}`));
    }
    return out;
  };
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
  const jobStatus = (name: string) =>
    env.rest
      .get<ImageJob>(`${IMAGEJOBS_PATH}/${name}`)
      .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));

  it('refuses an ImageJob that no live ImageList created: Failed with the reason, nothing created', async () => {
    const name = `forged-${env.tag}`;
    await forge(name, {}, {});
    const job = await until('the forged job refused', async () => {
      const j = await jobStatus(name);
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
      const j = await jobStatus(name2);
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
      const j = await jobStatus(name3);
      return j?.status?.phase === 'Failed' ? j : undefined;
    });
    assert.match(job3.status!.message!, /^refused: its ownerReference .* does not match spec\.imageList/);
    for (const n of [name, name2, name3]) assert.deepEqual(await leftovers(n), [], n);
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
      const j = await jobStatus(other);
      return j?.status?.phase === 'Failed' ? j : undefined;
    });
    assert.match(
      refused.status!.message!,
      /^refused: its spec differs from what ImageList \S+ asks for \(images\)$/,
    );
    assert.deepEqual(await leftovers(other), []);
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
      const j = await jobStatus(name);
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
    await until('the forged job cleaned up', async () => !(await jobStatus(name)), 60_000, 250);
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
      const tr = await env.rest.request<{ status: { token: string } }>(
        'POST',
        `/api/v1/namespaces/${env.namespace}/serviceaccounts/${sa}/token`,
        {
          body: {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenRequest',
            spec: { expirationSeconds: 3600 },
          },
        },
      );
      const cluster = env.kc.getCurrentCluster()!;
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData }],
        users: [{ name: sa, token: tr.status.token }],
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

  describe('deleting while workers run', () => {
    let hangImage = '';
    beforeEach(async () => {
      // A worker image that runs until it is stopped, so the workers really are running.
      hangImage = `inv.test/hang-worker-${env.tag}:1`;
      await importToNodes(
        c,
        [0, 1],
        [
          {
            refs: [hangImage],
            distinct: `hang-${env.tag}`,
            entrypoint: ['/bin/sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'],
          },
        ],
      );
      await env.config('', hangImage);
    });

    /** Starts a job and waits until both of its workers run on the real nodes. */
    const runningJob = async () => {
      const req = await env.erase({ images: [`nothing-${env.tag}:1`] });
      const job = await until('the job', async () => {
        const l = await env.rest.get<{ status?: { lastJob?: string } }>(`${IMAGELISTS_PATH}/${req.name}`);
        return l.status?.lastJob;
      });
      await until(
        'both workers Running',
        async () => {
          const w = await env.workers(job);
          return w.size === 2 && [...w.values()].every((p) => p.status?.phase === 'Running');
        },
        90_000,
      );
      return { req, job };
    };

    /** Nothing of the job is left: no object in the API, no running container on a node. */
    const nothingLeft = async (job: string) => {
      await until('the job gone', async () => !(await jobStatus(job)), 90_000, 250);
      await until('every worker object gone', async () => (await leftovers(job)).length === 0, 60_000, 250);
      for (let i = 0; i < c.nodes.length; i++) {
        const cri = await nodeCri(c, i);
        try {
          await until(
            `no worker container running on node ${i + 1}`,
            async () => {
              const running = (await cri.listContainers()).filter(
                (x) => x.labels['io.kubernetes.pod.name']?.startsWith(job) && x.state === 'CONTAINER_RUNNING',
              );
              return running.length === 0;
            },
            60_000,
            250,
          );
        } finally {
          cri.close();
        }
      }
    };

    it('deleting the ImageJob stops its workers and removes every object, in delete order', async () => {
      const { job } = await runningJob();
      const j = await jobStatus(job);
      assert.ok(j?.metadata.finalizers?.includes(CLEANUP_FINALIZER), 'the job carries the cleanup finalizer');
      await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${job}`);
      await nothingLeft(job);
    });

    it('deleting the ImageList: the garbage collector deletes the job, the finalizer cleans up', async () => {
      const { req, job } = await runningJob();
      await env.rest.request('DELETE', `${IMAGELISTS_PATH}/${req.name}`);
      await nothingLeft(job);
    });

    it('deleting with the controllers stopped blocks on the finalizer; started again, they clean up', async () => {
      const { job } = await runningJob();
      await env.stopControllers();
      await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${job}`);
      const blocked = await jobStatus(job);
      assert.ok(blocked?.metadata.deletionTimestamp, 'marked for deletion');
      assert.ok(blocked.metadata.finalizers?.includes(CLEANUP_FINALIZER), 'held by the finalizer');
      assert.equal((await env.workers(job)).size, 2, 'its workers are still there');
      env.startControllers();
      await nothingLeft(job);
    });
  });
});
