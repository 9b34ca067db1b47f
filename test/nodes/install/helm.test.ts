// The Helm chart on the whole local cluster, as a user runs it with Helm 4 (helmVersions.helm in
// scripts/tools.mjs): `helm install` (the daemon runs as a Pod from the image the nodes hold, and
// takes its Lease through the kubernetes Service), `helm test` (a Pod runs `inv check` in the
// cluster and passes), `helm upgrade` with a changed value (the daemon rolls to a new Pod),
// `helm uninstall` (nothing is left but the CRDs and the Images). A user bound to the built-in `view`
// role in a namespace reads its Images once the controller-manager has aggregated the chart's
// role into `view`, and no longer after the uninstall. Helm is the real one
// (scripts/tools.mjs). Helm 4 applies server-side and `--wait` watches each object's status
// (kstatus) until it is current; a warning from Helm or the API server fails the step.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { isNotFound, KubeApiError, KubeRest } from '../../../src/core/kube/rest.js';
import { parseConfig } from '../../../src/core/erase/config/config.js';
import { chartDir, helm, tools, warnings, type Run } from '../../support/helm.js';
import {
  clusterConfig,
  kubectl,
  newClusterNamespace,
  until,
  wholeCluster,
  type WholeCluster,
} from '../../support/nodes.js';
import { routeKubernetesService } from '../../support/servers/service-route.js';
import { serviceAccountToken } from '../../support/service-account.js';

const SYSTEM_NS = 'image-inventory-system';
const WORKERS_NS = 'image-inventory-workers';
const RELEASE = 'inv';

interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec: { containers: { args?: string[] }[] };
  status?: { conditions?: { type: string; status: string }[] };
}
const ready = (p: Pod) =>
  !p.metadata.deletionTimestamp &&
  Boolean(p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));

describe('Helm chart on the whole local cluster: install, test, upgrade, uninstall', function () {
  this.timeout(600_000);
  let c: WholeCluster;
  let rest: KubeRest;
  let unroute: (() => void) | undefined;
  let watched: string;
  let installed = false;
  let started = 0;
  const run = async (args: string[]): Promise<Run> => {
    const r = await helm([...args, '--kubeconfig', c.kubeconfig], { timeoutMs: 300_000 });
    assert.equal(r.code, 0, `helm ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
    assert.deepEqual(warnings(r), [], `helm ${args[0]} warned`);
    return r;
  };
  const daemonPods = async () =>
    (
      await rest.list<Pod>(`/api/v1/namespaces/${SYSTEM_NS}/pods`, {
        query: { labelSelector: 'app.kubernetes.io/name=image-inventory-controller' },
      })
    ).items.filter((p) => !p.metadata.name.includes('check'));

  before(async function () {
    this.timeout(600_000); // the first suite to ask starts the whole cluster
    started = Date.now();
    c = await wholeCluster();
    rest = new KubeRest(clusterConfig(c));
    unroute = routeKubernetesService(c);
    // Only this namespace is inventoried, so the daemon touches nothing of the other suites.
    watched = await newClusterNamespace(c, 'helm');
    // A Pod for the daemon to inventory; bound to no real node, so no kubelet ever acts on it.
    await rest.request('POST', `/api/v1/namespaces/${watched}/pods`, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'app' },
        spec: {
          nodeName: 'no-such-node',
          containers: [{ name: 'app', image: 'docker.io/library/helm-app:1' }],
        },
      },
    });
  });
  after(async () => {
    if (installed) await helm(['uninstall', RELEASE, '--wait', '--kubeconfig', c.kubeconfig]);
    unroute?.();
    rest?.close();
    process.stderr.write(
      `      (helm lifecycle on the whole cluster, its start included: ${Date.now() - started} ms)\n`,
    );
  });

  it('helm install: the daemon runs from the chart, Ready, and holds its Lease', async () => {
    const version = await run(['version', '--template', '{{.Version}}']);
    assert.equal(version.stdout.trim(), (await tools()).helmVersions.helm);
    const at = c.workerImage.lastIndexOf(':');
    const [repository, tag] = [c.workerImage.slice(0, at), c.workerImage.slice(at + 1)];
    await run([
      'install',
      RELEASE,
      chartDir,
      '--namespace',
      'default',
      // The nodes hold the image (imported into their containerd); nothing is pulled. The image
      // value alone: the workers run it too.
      '--set',
      `image.repository=${repository}`,
      '--set',
      `image.tag=${tag}`,
      '--set',
      'image.pullPolicy=Never',
      '--set',
      `erase.config.runtimeSocket=${c.runtimeSocket}`,
      '--set',
      `watchNamespaces={${watched}}`,
      '--wait',
      '--timeout',
      '3m',
    ]);
    installed = true;
    // One image value: the erase workers run the daemon's image.
    const config = await rest.request<{ data: Record<string, string> }>(
      'GET',
      `/api/v1/namespaces/${SYSTEM_NS}/configmaps/inv-erase-config`,
    );
    assert.equal(parseConfig(config.data['config.yaml']).worker.image, c.workerImage);
    // Helm 4 applies server-side: the API server merges, and records helm's fields as applied.
    const deployment = await rest.request<{
      metadata: { managedFields: { manager: string; operation: string }[] };
    }>('GET', `/apis/apps/v1/namespaces/${SYSTEM_NS}/deployments/image-inventory-controller`);
    assert.ok(
      deployment.metadata.managedFields.some((f) => f.manager === 'helm' && f.operation === 'Apply'),
      JSON.stringify(deployment.metadata.managedFields),
    );
    const pods = await daemonPods();
    assert.equal(pods.length, 1);
    assert.ok(ready(pods[0]!), 'the daemon Pod is Ready');
    await until(
      'the daemon holds its Lease',
      async () =>
        (
          await rest
            .request<{ spec?: { holderIdentity?: string } }>(
              'GET',
              `/apis/coordination.k8s.io/v1/namespaces/${SYSTEM_NS}/leases/image-inventory-controller`,
            )
            .catch(() => undefined)
        )?.spec?.holderIdentity,
      60_000,
    );
    // It works from inside the cluster: the watched namespace's Pod gets its Image.
    await until(
      'the Image of the watched Pod',
      async () =>
        (await rest.list(`/apis/imageinventory.dev/v1alpha1/namespaces/${watched}/images`)).items.length > 0,
      60_000,
    );
  });

  // A ServiceAccount bound to `view` in the watched namespace, acting with its own token.
  let viewer: KubeRest | undefined;
  const viewerStatus = (): Promise<number> =>
    viewer!.request('GET', `/apis/imageinventory.dev/v1alpha1/namespaces/${watched}/images`).then(
      () => 200,
      (e: unknown) => (e instanceof KubeApiError ? e.code : 0),
    );

  it("a user bound to `view` in a namespace reads its Images: the chart's role is aggregated into view, edit and admin", async () => {
    await rest.request('POST', `/api/v1/namespaces/${watched}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'viewer' } },
    });
    await rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${watched}/rolebindings`, {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'viewer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace: watched }],
      },
    });
    const token = await serviceAccountToken(rest, watched, 'viewer');
    const cluster = clusterConfig(c).getCurrentCluster()!;
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData }],
      users: [{ name: 'viewer', token }],
      contexts: [{ name: 'viewer', cluster: 'c', user: 'viewer' }],
      currentContext: 'viewer',
    });
    viewer = new KubeRest(kc);
    // The aggregation controller and the authorizer's cache act in their own time.
    await until('the viewer may list the Images', async () => (await viewerStatus()) === 200, 60_000, 300);
    for (const role of ['view', 'edit', 'admin']) {
      const r = await rest.request<{
        rules: { apiGroups?: string[]; resources?: string[]; verbs: string[] }[];
      }>('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
      assert.ok(
        r.rules.some((x) => x.apiGroups?.includes('imageinventory.dev') && x.resources?.includes('images')),
        `${role} reads Images`,
      );
    }
    // Read only: the daemon writes the Images.
    const review = await rest.request<{ status: { allowed: boolean } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: `system:serviceaccount:${watched}:viewer`,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${watched}`, 'system:authenticated'],
            resourceAttributes: {
              namespace: watched,
              verb: 'patch',
              group: 'imageinventory.dev',
              resource: 'images',
            },
          },
        },
      },
    );
    assert.equal(review.status.allowed, false, 'a viewer may not change Images');
  });

  it('helm test: a Pod runs `inv check` in the cluster, and it passes', async () => {
    const r = await helm(['test', RELEASE, '--timeout', '3m', '--kubeconfig', c.kubeconfig], {
      timeoutMs: 300_000,
    });
    if (r.code !== 0) {
      // The Pod is kept after a failure: its log says which check failed.
      const logs = await kubectl(c, ['logs', '-n', SYSTEM_NS, `${RELEASE}-inv-check`]);
      assert.fail(`helm test failed:\n${r.stdout}${r.stderr}\n${logs.stdout}${logs.stderr}`);
    }
    assert.deepEqual(warnings(r), [], 'helm test warned');
    assert.match(r.stdout, /TEST SUITE:\s+inv-inv-check[\s\S]*Phase:\s+Succeeded/);
  });

  it('helm upgrade with a changed value rolls the daemon to a new Pod', async () => {
    const before = (await daemonPods()).map((p) => p.metadata.uid);
    await run([
      'upgrade',
      RELEASE,
      chartDir,
      '--reuse-values',
      '--set',
      'logLevel=debug',
      '--wait',
      '--timeout',
      '3m',
    ]);
    const pod = await until(
      'one Ready daemon Pod with --log-level=debug, the old one gone',
      async () => {
        const pods = await daemonPods();
        const p = pods.length === 1 ? pods[0]! : undefined;
        return p && ready(p) && !before.includes(p.metadata.uid) ? p : undefined;
      },
      120_000,
    );
    assert.ok(pod.spec.containers[0]!.args?.includes('--log-level=debug'));
  });

  it('helm uninstall leaves nothing but the CRDs (and the Images)', async () => {
    await run(['uninstall', RELEASE, '--wait', '--timeout', '3m']);
    installed = false;
    const gone = async (path: string) =>
      rest.request('GET', path).then(
        () => false,
        (e: unknown) => {
          if (isNotFound(e)) return true;
          throw e;
        },
      );
    for (const p of [
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/image-inventory-controller',
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/image-inventory-controller',
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/${RELEASE}-inv-check`,
    ])
      assert.ok(await gone(p), `${p} is gone`);
    for (const ns of [SYSTEM_NS, WORKERS_NS])
      await until(`namespace ${ns} deleted`, () => gone(`/api/v1/namespaces/${ns}`), 120_000);
    for (const crd of [
      'images.imageinventory.dev',
      'imagelists.erase.imageinventory.dev',
      'imagejobs.erase.imageinventory.dev',
    ])
      assert.equal(
        await gone(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`),
        false,
        `the CRD ${crd} stays`,
      );
    const images = await rest.list(`/apis/imageinventory.dev/v1alpha1/namespaces/${watched}/images`);
    assert.ok(images.items.length >= 1, "the daemon's Images stay");
    // The role went with the chart, and the aggregation controller takes its rules out of view.
    assert.ok(await gone('/apis/rbac.authorization.k8s.io/v1/clusterroles/image-inventory-view'));
    if (viewer) {
      await until(
        'the viewer may no longer list the Images',
        async () => (await viewerStatus()) === 403,
        60_000,
        300,
      );
      viewer.close();
    }
  });
});
