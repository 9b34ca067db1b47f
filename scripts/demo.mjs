#!/usr/bin/env node
// `npm run demo`: the main job on an embedded local cluster.
//
// As root, the cluster is whole (scripts/nodes.mjs): the upstream controllers and scheduler,
// and two real nodes (kubelet + containerd each). The demo applies examples/ plus a small app
// that really runs, adds what only exists at run time (a Job started from the CronJob, a real
// Pod debugged with an ephemeral container, an object being deleted), runs `inv scan`, then
// `inv erase --all-unused --dry-run` and a real erase, and lists each node's images to show
// that the unused image is gone and the running one stayed.
//
// Without root (kubelets need cgroups, mount namespaces and bridges), it runs the inventory
// half on the API server alone and says so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { binaries, up, repoRoot } from './cluster.mjs';
import { ensure as ensureDeps } from './ensure-deps.mjs';
import * as nodes from './nodes.mjs';
import { importArchive, writeArchive } from './oci-archive.mjs';

const dist = (p) => import(path.join(repoRoot, 'dist', 'src', p));
const { KubeRest } = await dist('core/kube/rest.js');
const { installCrds } = await dist('core/kube/crd-install.js');
const { ensureNamespace } = await dist('core/kube/namespaces.js');
const { connectCri } = await dist('core/cri/index.js');

const step = (msg) => process.stderr.write(`\n==> ${msg}\n`);
const say = (msg) => process.stderr.write(`    ${msg}\n`);
const NS = 'inv-demo';
const WORKERS_NS = 'image-inventory-workers';
const CONFIG_NS = 'image-inventory-system';
const whole = process.getuid?.() === 0;
const inv = (args) =>
  spawnSync(
    process.execPath,
    [path.join(repoRoot, 'bin', 'run.js'), ...args, '--kubeconfig', cluster.kubeconfig],
    {
      stdio: 'inherit',
    },
  );
const kubectl = (args) =>
  spawnSync(binaries.kubectl, ['--kubeconfig', cluster.kubeconfig, ...args], { stdio: 'inherit' });

let cluster;
if (whole) {
  // Real nodes need containerd, runc and a static busybox (for the sandbox and demo images):
  // installed from Debian's packages when missing, as `npm test` does.
  ensureDeps();
  step('Starting the whole local cluster: API server, controller-manager, scheduler, 2 real nodes');
  cluster = await nodes.up();
  say(`kubeconfig: ${cluster.kubeconfig}${cluster.reused ? ' (reused running cluster)' : ''}`);
  for (const n of cluster.nodes) say(`node ${n.name}: kubelet on its own containerd (${n.criEndpoint})`);
  say(`worker image built from this checkout: ${cluster.workerImage}`);
} else {
  step('Starting the local Kubernetes API server (kube-apiserver + etcd, built from Go modules)');
  say('not root: real nodes need cgroups, mount namespaces and bridges, so this run shows the');
  say('inventory on the API server alone; run `sudo npm run demo` for the erase half on real nodes');
  cluster = await up();
  say(`kubeconfig: ${cluster.kubeconfig}${cluster.reused ? ' (reused running server)' : ''}`);
}
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfig);
const rest = new KubeRest(kc);

step('Installing the CRDs from crds/');
for (const name of await installCrds(rest)) process.stderr.write(`    ${name} Established\n`);

const PATHS = {
  'v1/Namespace': () => '/api/v1/namespaces',
  'v1/Pod': (ns) => `/api/v1/namespaces/${ns}/pods`,
  'apps/v1/Deployment': (ns) => `/apis/apps/v1/namespaces/${ns}/deployments`,
  'apps/v1/StatefulSet': (ns) => `/apis/apps/v1/namespaces/${ns}/statefulsets`,
  'apps/v1/DaemonSet': (ns) => `/apis/apps/v1/namespaces/${ns}/daemonsets`,
  'apps/v1/ReplicaSet': (ns) => `/apis/apps/v1/namespaces/${ns}/replicasets`,
  'batch/v1/CronJob': (ns) => `/apis/batch/v1/namespaces/${ns}/cronjobs`,
  'batch/v1/Job': (ns) => `/apis/batch/v1/namespaces/${ns}/jobs`,
};

/** Server-side apply, as `kubectl apply --server-side` does. */
async function apply(obj) {
  const collection = PATHS[`${obj.apiVersion}/${obj.kind}`];
  if (!collection) throw new Error(`demo cannot apply ${obj.apiVersion} ${obj.kind}`);
  return rest.request('PATCH', `${collection(obj.metadata.namespace)}/${obj.metadata.name}`, {
    query: { fieldManager: 'inv-demo', force: true },
    contentType: 'application/apply-patch+yaml',
    body: obj,
  });
}

step('Applying examples/');
// The namespace first, with its default ServiceAccount: Pods are rejected until it exists.
await ensureNamespace(rest, NS);
for (const f of fs.readdirSync(path.join(repoRoot, 'examples')).sort()) {
  for (const doc of parseAllDocuments(fs.readFileSync(path.join(repoRoot, 'examples', f), 'utf8'))) {
    const obj = doc.toJS();
    if (!obj) continue;
    await apply(obj);
    process.stderr.write(`    ${obj.kind}/${obj.metadata.name}\n`);
  }
}
// Images that exist only on the nodes (there is no registry): a small app that really runs
// (one replica, so one node runs it and the other only has it), and a cache image nothing uses.
const DEMO_WEB = 'demo.local/shop-web:1';
const DEMO_UNUSED = 'demo.local/cache-warmer:1';
if (whole) {
  step('Importing two images into both nodes (no registry here) and running one of them');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-demo-'));
  const file = path.join(tmp, 'demo.tar');
  writeArchive(file, [
    { refs: [DEMO_WEB], distinct: 'demo-web' },
    { refs: [DEMO_UNUSED], distinct: 'demo-cache' },
  ]);
  for (const n of cluster.nodes) importArchive({ address: n.criEndpoint.replace('unix://', ''), file });
  fs.rmSync(tmp, { recursive: true, force: true });
  await apply({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shop-web', namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'shop-web' } },
      template: {
        metadata: { labels: { app: 'shop-web' } },
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'web', image: DEMO_WEB, imagePullPolicy: 'Never' }],
        },
      },
    },
  });
  const deadline = Date.now() + 90_000;
  let running;
  while (!running && Date.now() < deadline) {
    const pods = await rest.get(`/api/v1/namespaces/${NS}/pods`, { labelSelector: 'app=shop-web' });
    running = pods.items.find((p) => p.status?.phase === 'Running');
    if (!running) await new Promise((r) => setTimeout(r, 250));
  }
  if (!running) throw new Error('the shop-web Pod did not start; see the kubelet logs under .cache/nodes');
  say(`Deployment/shop-web: ReplicaSet and Pod made by the real controllers, Pod ${running.metadata.name}`);
  say(`running on ${running.spec.nodeName}`);
}

step('Adding what only exists at run time');
const cronJob = await rest.get(`/apis/batch/v1/namespaces/${NS}/cronjobs/nightly-backup`);
if (whole) {
  kubectl(['-n', NS, 'create', 'job', 'nightly-backup-manual', '--from=cronjob/nightly-backup']);
  say('Job/nightly-backup-manual from `kubectl create job --from=cronjob/...`: credited to CronJob');
} else
  await apply({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: 'nightly-backup-29000000',
      namespace: NS,
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: 'nightly-backup',
          uid: cronJob.metadata.uid,
          controller: true,
        },
      ],
    },
    spec: {
      template: {
        spec: { restartPolicy: 'OnFailure', containers: [{ name: 'backup', image: 'postgres:16' }] },
      },
    },
  });
if (!whole)
  process.stderr.write(
    '    Job/nightly-backup-29000000, owned by the live CronJob: credited to CronJob, not Job\n',
  );
if (whole) {
  // Debug a real Pod of the Deployment, as `kubectl debug` does: owned Pods count only through
  // their ephemeral containers.
  const pods = await rest.get(`/api/v1/namespaces/${NS}/pods`, { labelSelector: 'app=shop-web' });
  const target = pods.items[0];
  if (!target.spec.ephemeralContainers?.length) {
    target.spec.ephemeralContainers = [
      { name: 'debugger', image: 'nicolaka/netshoot:v0.13', targetContainerName: 'web' },
    ];
    await rest.request('PUT', `/api/v1/namespaces/${NS}/pods/${target.metadata.name}/ephemeralcontainers`, {
      body: target,
    });
  }
  say(`Pod/${target.metadata.name} (owned) debugged like \`kubectl debug\`: only its ephemeral image counts`);
} else {
  const rs = await rest.get(`/apis/apps/v1/namespaces/${NS}/replicasets/stray-rs`);
  await apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'stray-rs-x7k2p',
      namespace: NS,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'stray-rs',
          uid: rs.metadata.uid,
          controller: true,
        },
      ],
    },
    spec: { containers: [{ name: 'stray', image: 'example.com/never-listed:1.0' }] },
  });
  const pod = await rest.get(`/api/v1/namespaces/${NS}/pods/stray-rs-x7k2p`);
  if (!pod.spec.ephemeralContainers?.length) {
    pod.spec.ephemeralContainers = [
      { name: 'debugger', image: 'nicolaka/netshoot:v0.13', targetContainerName: 'stray' },
    ];
    await rest.request('PUT', `/api/v1/namespaces/${NS}/pods/stray-rs-x7k2p/ephemeralcontainers`, {
      body: pod,
    });
  }
  process.stderr.write(
    '    Pod/stray-rs-x7k2p (owned) debugged like `kubectl debug`: only its ephemeral image counts\n',
  );
}
await apply({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'retiring', namespace: NS, finalizers: ['example.com/hold'] },
  spec: {
    selector: { matchLabels: { app: 'retiring' } },
    template: {
      metadata: { labels: { app: 'retiring' } },
      spec: { containers: [{ name: 'old', image: 'example.com/retired:0.9' }] },
    },
  },
});
await rest.request('DELETE', `/apis/apps/v1/namespaces/${NS}/deployments/retiring`).catch(() => undefined);
process.stderr.write('    Deployment/retiring deleted but held by a finalizer: contributes nothing\n');

step(`inv scan -n ${NS}`);
const scan = inv(['scan', '-n', NS]);

step(`kubectl get images -n ${NS}`);
kubectl(['get', 'images', '-n', NS]);

// What `inv install --daemon` sets up for erase, so that `inv check` passes once a daemon runs:
// the workers' namespace at the privileged Pod Security level (workers mount the CRI socket),
// and the erase controllers' configuration in the administrator's namespace, where what runs on
// nodes comes from (without nodes, the defaults: nothing runs anyway).
await ensureNamespace(rest, WORKERS_NS);
await rest.request('PATCH', `/api/v1/namespaces/${WORKERS_NS}`, {
  contentType: 'application/merge-patch+json',
  body: {
    metadata: {
      labels: {
        'pod-security.kubernetes.io/enforce': 'privileged',
        'pod-security.kubernetes.io/warn': 'privileged',
      },
    },
  },
});
await ensureNamespace(rest, CONFIG_NS);
const cm = `/api/v1/namespaces/${CONFIG_NS}/configmaps`;
await rest.request('DELETE', `${cm}/inv-erase-config`).catch(() => undefined);
await rest.request('POST', cm, {
  body: {
    metadata: { name: 'inv-erase-config' },
    data: {
      'config.yaml': whole
        ? `runtimeSocket: ${cluster.runtimeSocket}\nworker:\n  image: ${cluster.workerImage}\n`
        : '# the demo without nodes: every default\n',
    },
  },
});

let eraseStatus = 0;
if (whole) {
  const showImages = async (what) => {
    step(`Images on each node (${what}), as crictl images shows them`);
    for (const n of cluster.nodes) {
      const cri = await connectCri({ endpoint: n.criEndpoint, timeoutMs: 10_000 });
      try {
        const images = (await cri.listImages()).filter((i) =>
          i.repoTags.some((t) => t.startsWith('demo.local/')),
        );
        say(`${n.name}:`);
        if (!images.length) say('  (no demo.local image)');
        for (const i of images) say(`  ${i.repoTags.join(',').padEnd(32)} ${i.id.slice(7, 20)}`);
      } finally {
        cri.close();
      }
    }
  };
  await showImages('before');
  step('inv erase --all-unused --dry-run --standalone: what each node would remove');
  eraseStatus =
    inv(['erase', '--name', 'demo-preview', '--all-unused', '--dry-run', '--yes', '--standalone', '--wait'])
      .status ?? 1;
  step('inv erase --all-unused --standalone: a real erase, one worker Pod per node');
  eraseStatus ||=
    inv(['erase', '--name', 'demo-prune', '--all-unused', '--yes', '--standalone', '--wait']).status ?? 1;
  await showImages('after');
  say(`${DEMO_UNUSED} is gone from both nodes; ${DEMO_WEB} stayed on the node that runs it`);
  step(`kubectl get imagejobs`);
  kubectl(['get', 'imagejobs']);
}
rest.close();

const invCmd = `KUBECONFIG=${cluster.kubeconfig} node ${path.join(repoRoot, 'bin', 'run.js')}`;
process.stderr.write(
  [
    '',
    `The cluster keeps running: export KUBECONFIG=${cluster.kubeconfig} to explore it, and run \`npm run ${whole ? 'node:down' : 'cluster:down'}\` to stop it.`,
    '',
    'Start the daemon on it, in a second terminal (^C stops it); `inv erase` then runs through it:',
    `    ${invCmd} watch`,
    'and `inv check` passes:',
    `    ${invCmd} check`,
    '',
  ].join('\n'),
);
process.exitCode = scan.status || eraseStatus;
