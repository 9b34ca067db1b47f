// The inventory's rules against the real controllers of a whole cluster, under `inv watch`:
// a Deployment whose ReplicaSet and Pods the real controllers create (and the scheduler binds
// to real nodes), a Job started from a CronJob with `kubectl create job --from=cronjob/...`
// (so it carries the real CronJob's UID), and a namespace that really finishes deleting.
import assert from 'node:assert/strict';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { isNotFound, KubeRest } from '../../src/core/kube/rest.js';
import { clusterConfig, kubectl, newClusterNamespace, until, type WholeCluster } from '../support/nodes.js';
import { startDaemon, type InProcessDaemon } from '../watch/helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

interface Owned {
  metadata: {
    name: string;
    uid: string;
    ownerReferences?: { kind: string; uid: string; controller?: boolean }[];
  };
  spec?: { nodeName?: string };
}

describe('inventory under inv watch with real controllers and nodes', function () {
  this.timeout(180_000);
  let c: WholeCluster;
  let rest: KubeRest;
  let ns: string;
  let daemon: InProcessDaemon;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    rest = new KubeRest(clusterConfig(c));
    await installCrds(rest);
    ns = await newClusterNamespace(c, 'inv-real');
    daemon = await startDaemon(clusterConfig(c), { namespaces: [ns], logLevel: 'info' });
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed' && daemon) process.stderr.write(daemon.logs.slice(-30).join(''));
  });
  after(async () => {
    await daemon?.stop();
    rest?.close();
  });

  /** status.kinds (a comma-separated string) by image ref. */
  const kinds = async (): Promise<Record<string, string>> => {
    const list = await rest.list<ImageResource>(imagesPath(ns));
    return Object.fromEntries(list.items.map((i) => [i.spec?.image ?? '', i.status?.kinds ?? '']));
  };

  it('a Deployment: its real ReplicaSet and scheduled Pods credit only the Deployment', async () => {
    const image = 'inv.test/pause:1'; // imported on every node: the Pods really run
    await rest.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              automountServiceAccountToken: false,
              terminationGracePeriodSeconds: 0,
              containers: [{ name: 'web', image, imagePullPolicy: 'Never' }],
            },
          },
        },
      },
    });
    // The real controllers: a ReplicaSet owned by the Deployment, Pods owned by it, bound by
    // the scheduler to the real nodes and running there.
    const pods = await until('2 Running Pods of the Deployment', async () => {
      const l = await rest.list<Owned & { status?: { phase?: string } }>(`/api/v1/namespaces/${ns}/pods`, {
        query: { labelSelector: 'app=web' },
      });
      return l.items.length === 2 && l.items.every((p) => p.status?.phase === 'Running')
        ? l.items
        : undefined;
    });
    const rs = await rest.list<Owned>(`/apis/apps/v1/namespaces/${ns}/replicasets`);
    assert.equal(rs.items.length, 1);
    assert.equal(rs.items[0]!.metadata.ownerReferences?.[0]?.kind, 'Deployment');
    for (const p of pods) {
      assert.equal(p.metadata.ownerReferences?.[0]?.uid, rs.items[0]!.metadata.uid);
      assert.ok(
        c.nodes.some((n) => n.name === p.spec?.nodeName),
        `bound to a real node: ${p.spec?.nodeName}`,
      );
    }
    await until('the Image of the Deployment', async () => {
      const k = await kinds();
      return k[image] === 'Deployment';
    });
  });

  it('a Job created from a CronJob with kubectl carries the CronJob UID and credits the CronJob', async () => {
    const image = 'docker.io/library/cron-real:1';
    await rest.request('POST', `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
      body: {
        metadata: { name: 'nightly' },
        spec: {
          schedule: '0 3 * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Never',
                  automountServiceAccountToken: false,
                  containers: [{ name: 'c', image, imagePullPolicy: 'Never' }],
                },
              },
            },
          },
        },
      },
    });
    const r = await kubectl(c, ['-n', ns, 'create', 'job', 'nightly-manual', '--from=cronjob/nightly']);
    assert.equal(r.code, 0, r.stderr);
    const cj = await rest.get<Owned>(`/apis/batch/v1/namespaces/${ns}/cronjobs/nightly`);
    const job = await rest.get<Owned>(`/apis/batch/v1/namespaces/${ns}/jobs/nightly-manual`);
    const owner = job.metadata.ownerReferences?.find((o) => o.controller);
    assert.deepEqual([owner?.kind, owner?.uid], ['CronJob', cj.metadata.uid]);
    // The real Job controller creates its Pod (owned by the Job): still only the CronJob.
    await until('the Job Pod', async () => {
      const l = await rest.list<Owned>(`/api/v1/namespaces/${ns}/pods`, {
        query: { labelSelector: 'job-name=nightly-manual' },
      });
      return l.items.length > 0;
    });
    await until('the Image credits only the CronJob', async () => {
      return (await kinds())[image] === 'CronJob';
    });
  });

  it('a namespace that really finishes deleting takes its Images with it; the daemon stays healthy', async () => {
    assert.ok(Object.keys(await kinds()).length >= 2);
    await rest.request('DELETE', `/api/v1/namespaces/${ns}`);
    // The namespace controller deletes everything in it, the kubelets stop the Pods, and the
    // namespace is gone for good.
    await until(
      'the namespace gone',
      async () => {
        try {
          await rest.get(`/api/v1/namespaces/${ns}`);
          return false;
        } catch (e) {
          if (isNotFound(e)) return true;
          throw e;
        }
      },
      120_000,
      250,
    );
    assert.deepEqual(
      (await rest.list<ImageResource>(imagesPath(ns))).items.map((i) => i.spec?.image),
      [],
      'no Image survives its namespace',
    );
    // No rebuild keeps failing on the vanished namespace.
    const res = await fetch(`${daemon.daemon.manager.metricsUrl}/metrics`);
    assert.equal(res.status, 200);
    const errorsAfter = daemon.logs.filter((l) => /"level":"error"/.test(l) && l.includes(ns));
    assert.deepEqual(errorsAfter, []);
  });
});
