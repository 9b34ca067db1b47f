#!/usr/bin/env node
// `npm run demo`: the main job on an embedded local cluster. Starts (or reuses) the local
// kube-apiserver, installs the CRDs, applies examples/, adds the objects that only exist at
// run time (a CronJob's Job, a debugged Pod, an object being deleted), runs `inv scan`, and
// shows the result the way `kubectl get images` does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { up, repoRoot } from './cluster.mjs';

const dist = (p) => import(path.join(repoRoot, 'dist', 'src', p));
const { KubeRest } = await dist('core/kube/rest.js');
const { installCrds } = await dist('core/kube/crd-install.js');
const { ensureNamespace } = await dist('core/kube/namespaces.js');

const step = (msg) => process.stderr.write(`\n==> ${msg}\n`);
const NS = 'inv-demo';

step('Starting the local Kubernetes API server (kube-apiserver + etcd, built from Go modules)');
const cluster = await up();
process.stderr.write(
  `    kubeconfig: ${cluster.kubeconfig}${cluster.reused ? ' (reused running server)' : ''}\n`,
);
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
step('Adding what only exists at run time');
const cronJob = await rest.get(`/apis/batch/v1/namespaces/${NS}/cronjobs/nightly-backup`);
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
process.stderr.write(
  '    Job/nightly-backup-29000000, owned by the live CronJob: credited to CronJob, not Job\n',
);
const rs = await rest.get(`/apis/apps/v1/namespaces/${NS}/replicasets/stray-rs`);
await apply({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'stray-rs-x7k2p',
    namespace: NS,
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'stray-rs', uid: rs.metadata.uid, controller: true },
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
rest.close();

step(`inv scan -n ${NS}`);
const scan = spawnSync(
  process.execPath,
  [path.join(repoRoot, 'bin', 'run.js'), 'scan', '-n', NS, '--kubeconfig', cluster.kubeconfig],
  {
    stdio: 'inherit',
  },
);

if (spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0) {
  step(`kubectl get images -n ${NS}`);
  spawnSync('kubectl', ['get', 'images', '-n', NS], {
    stdio: 'inherit',
    env: { ...process.env, KUBECONFIG: cluster.kubeconfig },
  });
} else {
  process.stderr.write(
    '\n(kubectl is not installed; with it, `kubectl get images -n inv-demo` shows the same inventory)\n',
  );
}
process.stderr.write(
  `\nThe cluster keeps running: export KUBECONFIG=${cluster.kubeconfig} to explore it, and run \`npm run cluster:down\` to stop it.\n`,
);
process.exitCode = scan.status ?? 1;
