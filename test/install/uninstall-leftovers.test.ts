// `inv uninstall` keeps what it says it keeps, and the namespaces around it. After `inv install
// --daemon`, the administrator edits the erase configuration and another team puts a Secret (labelled
// part-of image-inventory) and a RoleBinding into the workers' namespace; the daemon holds its election Lease, and
// Kubernetes has made a ReplicaSet for the Deployment. `--dry-run` names what would stay and
// why, and changes nothing; uninstall then deletes inv's objects, keeps both namespaces with
// the foreign objects in them, and deletes the namespaces once those are gone. On a fresh API
// server (the run's shared one has installs of other files).
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { LeaderElector } from '../../src/core/controller/leader-election.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';

const SYSTEM = 'image-inventory-system';
const WORKERS = 'image-inventory-workers';
const CONFIG = `/api/v1/namespaces/${SYSTEM}/configmaps/inv-erase-config`;
const SECRET = `/api/v1/namespaces/${WORKERS}/secrets/registry-pull`;
const BINDING = `/apis/rbac.authorization.k8s.io/v1/namespaces/${WORKERS}/rolebindings/team-view`;
const DEPLOYMENT = `/apis/apps/v1/namespaces/${SYSTEM}/deployments/image-inventory-controller`;
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${SYSTEM}/leases/image-inventory-controller`;

describe('uninstall keeps what others put in our namespaces', function () {
  this.timeout(180_000);
  let server: FreshApiServer;
  let rest: KubeRest;
  const inv = (args: string[]): CliResult => runCli([...args, '--kubeconfig', server.kubeconfig]);
  const exists = (p: string) =>
    rest.get(p).then(
      () => true,
      (e: unknown) => {
        if ((e as { code?: number }).code === 404) return false;
        throw e;
      },
    );

  before(async () => {
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:1']);
    assert.equal(r.status, 0, r.stderr);
    // The administrator's edit, as `kubectl edit` makes it.
    await rest.request('PATCH', CONFIG, {
      contentType: 'application/merge-patch+json',
      body: { data: { 'config.yaml': 'allowPruneAll: false\n' } },
      query: { fieldManager: 'kubectl-edit' },
    });
    // Another team's objects in the workers' namespace. The Secret is labelled as part of the
    // installation (it is the workers' pull secret): the label is inv's only on the bundle's own
    // objects, so it is still theirs.
    await rest.request('POST', `/api/v1/namespaces/${WORKERS}/secrets`, {
      body: {
        metadata: { name: 'registry-pull', labels: { 'app.kubernetes.io/part-of': 'image-inventory' } },
        stringData: { token: 'x' },
      },
      query: { fieldManager: 'kubectl-create' },
    });
    await rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${WORKERS}/rolebindings`, {
      body: {
        metadata: { name: 'team-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'Group', name: 'team', apiGroup: 'rbac.authorization.k8s.io' }],
      },
      query: { fieldManager: 'kubectl-create' },
    });
    // What the controller-manager makes for the Deployment (no controller-manager runs here).
    const deployment = await rest.get<k8s.V1Deployment>(DEPLOYMENT);
    await rest.request('POST', `/apis/apps/v1/namespaces/${SYSTEM}/replicasets`, {
      body: {
        metadata: {
          name: 'image-inventory-controller-5d4f8',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'image-inventory-controller',
              uid: deployment.metadata!.uid,
              controller: true,
            },
          ],
        },
        spec: { selector: deployment.spec!.selector, template: deployment.spec!.template },
      },
      query: { fieldManager: 'kube-controller-manager' },
    });
    // The daemon's election Lease, written by the daemon's own code.
    const elector = new LeaderElector({
      kubeConfig: kc,
      rest,
      namespace: SYSTEM,
      name: 'image-inventory-controller',
      identity: 'test-daemon',
      releaseOnCancel: false,
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
    const leading = new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (elector.isLeader()) {
          clearInterval(t);
          resolve();
        }
      }, 50);
    });
    const running = elector.run();
    await leading;
    await elector.stop();
    await running;
    assert.ok(await exists(LEASE));
  });
  after(async () => {
    rest?.close();
    await server?.stop();
  });

  const keptLine = (stdout: string, ns: string) =>
    stdout.split('\n').find((l) => l.startsWith(`namespace/${ns} kept`)) ?? '';

  it('--dry-run says what would stay and why, and changes nothing', async () => {
    const r = inv(['uninstall', '--dry-run']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^deployment\.apps\/image-inventory-controller deleted \(dry run\)$/m);
    assert.match(
      r.stdout,
      /^configmap\/inv-erase-config kept \(dry run\): edited since inv install wrote it/m,
    );
    const workers = keptLine(r.stdout, WORKERS);
    assert.match(
      workers,
      /holds 2 objects inv did not create \(rolebinding\.rbac\.authorization\.k8s\.io\/team-view, secret\/registry-pull\)/,
    );
    const system = keptLine(r.stdout, SYSTEM);
    assert.match(system, /holds 1 object inv did not create \(configmap\/inv-erase-config\)/);
    assert.doesNotMatch(system, /replicaset|lease|serviceaccount\/default|kube-root-ca/, system);
    for (const p of [CONFIG, SECRET, BINDING, DEPLOYMENT, LEASE]) assert.ok(await exists(p), p);
  });

  it('uninstall deletes what is inv’s and keeps the namespaces with the rest', async () => {
    const r = inv(['uninstall']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^deployment\.apps\/image-inventory-controller deleted$/m);
    assert.match(keptLine(r.stdout, WORKERS), /secret\/registry-pull/);
    assert.match(keptLine(r.stdout, SYSTEM), /configmap\/inv-erase-config/);
    assert.equal(await exists(DEPLOYMENT), false);
    for (const p of [CONFIG, SECRET, BINDING]) assert.ok(await exists(p), p);
    const config = await rest.get<k8s.V1ConfigMap>(CONFIG);
    assert.equal(config.data!['config.yaml'], 'allowPruneAll: false\n', 'the administrator’s settings');
  });

  it('once the foreign objects are gone, the namespaces go too', async () => {
    for (const p of [CONFIG, SECRET, BINDING]) await rest.request('DELETE', p);
    const r = inv(['uninstall']);
    assert.equal(r.status, 0, r.stderr);
    // The ReplicaSet left by the deleted Deployment (no garbage collector runs here) and the
    // daemon's Lease do not keep the namespace.
    assert.match(r.stdout, new RegExp(`^namespace/${SYSTEM} deleted$`, 'm'), r.stdout);
    assert.match(r.stdout, new RegExp(`^namespace/${WORKERS} deleted$`, 'm'), r.stdout);
  });
});
