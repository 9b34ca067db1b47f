// One image setting, on a real API server: `inv install --daemon` without --image and without a
// daemon refuses (exit 2) and says how to build and push an image (a dry run warns and goes on);
// --image and --image-pull-secret set the daemon's Deployment and the workers' erase
// configuration together; a later install without --image keeps the running daemon's; an
// upgrade moves the workers with the daemon, unless the administrator set them apart. On a fresh
// API server (the run's shared one has installs of other files).
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { parseConfig } from '../../src/core/erase/config/config.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';

const SYSTEM = 'image-inventory-system';
const CONFIG = `/api/v1/namespaces/${SYSTEM}/configmaps/inv-erase-config`;
const DEPLOYMENT = `/apis/apps/v1/namespaces/${SYSTEM}/deployments/image-inventory-controller`;
const ADVICE =
  'no image for the daemon and the erase workers: no registry publishes one, so build it from a checkout of inv and push it to a registry your nodes pull from (npm run image -- --push REGISTRY/inv:TAG), then: inv install --daemon --image REGISTRY/inv:TAG (add --image-pull-secret NAME if the registry needs credentials)';

describe('inv install: one image for the daemon and the workers', function () {
  this.timeout(180_000);
  let server: FreshApiServer;
  let rest: KubeRest;
  const inv = (args: string[]): CliResult => runCli([...args, '--kubeconfig', server.kubeconfig]);
  const state = async () => {
    const dep = await rest.get<k8s.V1Deployment>(DEPLOYMENT);
    const cm = await rest.get<k8s.V1ConfigMap>(CONFIG);
    const pod = dep.spec!.template.spec!;
    return {
      image: pod.containers[0]!.image,
      pullSecrets: (pod.imagePullSecrets ?? []).map((s) => s.name),
      worker: parseConfig(cm.data!['config.yaml']).worker,
    };
  };

  before(async () => {
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
  });
  after(async () => {
    rest?.close();
    await server?.stop();
  });

  it('without --image and without a daemon: refuses (exit 2), saying how to make one; a dry run warns', () => {
    const r = inv(['install', '--daemon']);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `error: ${ADVICE}\n`);
    const dry = inv(['install', '--daemon', '--dry-run=server']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(dry.stderr, `warning: ${ADVICE}\n`);
    assert.match(dry.stdout, /^deployment\.apps\/image-inventory-controller created \(server dry run\)$/m);
  });

  it('--image and --image-pull-secret set the daemon and the workers together', async () => {
    const r = inv([
      ...['install', '--daemon', '--image', 'registry.example.com/inv:1'],
      ...['--image-pull-secret', 'regcred', '--image-pull-secret', 'mirror'],
    ]);
    assert.equal(r.status, 0, r.stderr);
    const s = await state();
    assert.equal(s.image, 'registry.example.com/inv:1');
    assert.deepEqual(s.pullSecrets, ['regcred', 'mirror']);
    assert.equal(s.worker.image, 'registry.example.com/inv:1');
    assert.deepEqual(s.worker.imagePullSecrets, ['regcred', 'mirror']);
  });

  it('a later install without --image keeps the running daemon’s, changing nothing', () => {
    const r = inv(['install', '--daemon']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "keeping the daemon's image registry.example.com/inv:1 (--image changes it)\n");
    assert.doesNotMatch(r.stdout, / (created|configured)/);
  });

  it('an upgrade moves the workers with the daemon (a dry run says so first)', async () => {
    const dry = inv(['install', '--daemon', '--image', 'registry.example.com/inv:2', '--dry-run=server']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(
      dry.stdout,
      /^configmap\/inv-erase-config configured \(server dry run\): worker settings follow the daemon's \(registry\.example\.com\/inv:2\)$/m,
    );
    assert.equal((await state()).worker.image, 'registry.example.com/inv:1', 'the dry run changed nothing');
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:2']);
    assert.equal(r.status, 0, r.stderr);
    const s = await state();
    assert.equal(s.image, 'registry.example.com/inv:2');
    assert.equal(s.worker.image, 'registry.example.com/inv:2');
    // Pull secrets stay when no --image-pull-secret is given.
    assert.deepEqual(s.pullSecrets, ['regcred', 'mirror']);
    assert.deepEqual(s.worker.imagePullSecrets, ['regcred', 'mirror']);
  });

  it('workers the administrator set apart stay, and install says what to change', async () => {
    const cm = await rest.get<k8s.V1ConfigMap>(CONFIG);
    const text = cm.data!['config.yaml']!.replace(
      'image: registry.example.com/inv:2',
      'image: mirror.example.com/inv:2',
    );
    await rest.request('PATCH', CONFIG, {
      contentType: 'application/merge-patch+json',
      body: { data: { 'config.yaml': text } },
      query: { fieldManager: 'kubectl-edit' },
    });
    const r = inv(['install', '--daemon', '--image', 'registry.example.com/inv:3']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^configmap\/inv-erase-config unchanged: kept as it is \(yours\): erase workers still run mirror\.example\.com\/inv:2, not --image registry\.example\.com\/inv:3; set worker\.image in it: kubectl -n image-inventory-system edit configmap inv-erase-config$/m,
    );
    const s = await state();
    assert.equal(s.image, 'registry.example.com/inv:3');
    assert.equal(s.worker.image, 'mirror.example.com/inv:2');
  });
});
