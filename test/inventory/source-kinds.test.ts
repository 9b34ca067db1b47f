// Declared source kinds against the real API server, with Argo Rollouts' own CRD and examples
// (the Go module github.com/argoproj/argo-rollouts, fetched into .cache/ by
// scripts/argo-rollouts.mjs: nothing of theirs is in this repository). No Argo controller runs:
// the ReplicaSet and Pod a Rollout would own are created here, as it would create them. What
// inv install grants and inv check verifies for declared kinds, and what a * prune protects:
// source-kinds-install-prune.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { discoverKinds } from '../../src/core/inventory/discover-kinds.js';
import type { ImageResource } from '../../src/core/inventory/image-resource.js';
import { runCli } from '../cli/run-cli.js';
import { kubeconfigPath } from '../support/kube.js';
import { startDaemon, until } from '../watch/helpers.js';
import { inventory, listImages, setupEnv, type Env } from './helpers.js';
import { docs, installRollouts, KINDS_FILE, ROLLOUTS, type Obj } from './source-kinds-helpers.js';
import { useNamespace } from '../support/suite-hooks.js';

const BLUE = 'docker.io/argoproj/rollouts-demo:blue';
const GREEN = 'docker.io/argoproj/rollouts-demo:green';

const pathOf = (o: Obj, ns: string) =>
  o.kind === 'Rollout'
    ? `${ROLLOUTS}/namespaces/${ns}/rollouts`
    : o.kind === 'Deployment'
      ? `/apis/apps/v1/namespaces/${ns}/deployments`
      : o.kind === 'ReplicaSet'
        ? `/apis/apps/v1/namespaces/${ns}/replicasets`
        : `/api/v1/namespaces/${ns}/pods`;

describe('declared source kinds (Argo Rollouts, real API server)', function () {
  this.timeout(120_000);
  let env: Env;
  let ns: string;
  let objects: Obj[];
  const scanJson = (args: string[]) => {
    const r = runCli(['scan', ...args, '-o', 'json', '--kubeconfig', kubeconfigPath()]);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      namespaces: { images: { image: string; kinds: string[]; status: string }[] }[];
    };
    // The Images the scan keeps (deleted ones are listed with their previous kinds).
    return {
      r,
      images: Object.fromEntries(
        out.namespaces
          .flatMap((n) => n.images)
          .filter((i) => !/delete/.test(i.status))
          .map((i) => [i.image, i.kinds.join(',')]),
      ),
    };
  };

  useNamespace('kinds-argo', (n) => (ns = n));
  before(async () => {
    env = await setupEnv();
    const dir = await installRollouts(env);
    // Two of Argo's own examples: a Rollout with its template, and one referencing a Deployment.
    const examples = [
      ...docs(path.join(dir, 'examples', 'rollout-canary.yaml')),
      ...docs(path.join(dir, 'examples', 'rollout-template-ref.yaml')),
    ].filter((o) => o.kind === 'Rollout' || o.kind === 'Deployment');
    objects = [];
    for (const o of examples) {
      o.metadata.namespace = ns;
      const created = await env.rest.request<Obj>('POST', pathOf(o, ns), { body: o });
      objects.push(o);
      if (o.kind === 'Rollout' && o.metadata.name === 'rollout-canary') {
        // What Argo's controller makes of it: a ReplicaSet it controls, and that ReplicaSet's Pod.
        const uid = created.metadata.uid as string;
        const rs: Obj = {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: 'rollout-canary-7d',
            namespace: ns,
            ownerReferences: [
              {
                apiVersion: 'argoproj.io/v1alpha1',
                kind: 'Rollout',
                name: 'rollout-canary',
                uid,
                controller: true,
              },
            ],
          },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'rollout-canary' } },
            template: {
              metadata: { labels: { app: 'rollout-canary' } },
              spec: { containers: [{ name: 'c', image: 'example.com/rs-only:1' }] },
            },
          },
        };
        const rsCreated = await env.rest.request<Obj>('POST', pathOf(rs, ns), { body: rs });
        objects.push(rs);
        const pod: Obj = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: 'rollout-canary-7d-x',
            namespace: ns,
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'ReplicaSet',
                name: 'rollout-canary-7d',
                uid: rsCreated.metadata.uid,
                controller: true,
              },
            ],
          },
          spec: { containers: [{ name: 'c', image: 'example.com/rollout-pod:1' }] },
        };
        await env.rest.request('POST', pathOf(pod, ns), { body: pod });
        objects.push(pod);
      }
    }
  });

  after(() => env?.rest.close());

  it('undeclared, a Rollout is credited through its Pods; declared, through its templates and workloadRef', () => {
    const plain = scanJson(['-n', ns]);
    assert.deepEqual(plain.images, { [BLUE]: 'Deployment', 'example.com/rollout-pod:1': 'Rollout' });
    const declared = scanJson(['-n', ns, '--source-kinds', KINDS_FILE]);
    assert.equal(declared.r.stderr.includes('skipped'), false, declared.r.stderr);
    // Its ReplicaSet's Pod runs an image its template does not name (a canary or the stable
    // revision): a live Pod of the Rollout, so the Rollout's too.
    assert.deepEqual(declared.images, {
      [BLUE]: 'Deployment,Rollout',
      'example.com/rollout-pod:1': 'Rollout',
    });
  });

  it('status.users carries Rollout/<name> for both Rollouts, and the revision its Pod runs', async () => {
    const images = await listImages(env, ns);
    const [img] = images.filter((i) => i.spec?.image === BLUE) as ImageResource[];
    assert.deepEqual(img!.status?.users, [
      'Deployment/rollout-ref-deployment',
      'Rollout/rollout-canary',
      'Rollout/rollout-ref-deployment',
    ]);
    const [pod] = images.filter((i) => i.spec?.image === 'example.com/rollout-pod:1') as ImageResource[];
    assert.deepEqual(pod!.status?.users, ['Rollout/rollout-canary (ReplicaSet rollout-canary-7d, 1 Pod)']);
  });

  it('scan -f with the same kinds file gives the same answer as the live scan', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-kinds-'));
    try {
      const file = path.join(dir, 'all.yaml');
      fs.writeFileSync(file, objects.map((o) => JSON.stringify(o)).join('\n---\n'));
      const offline = scanJson(['-f', file, '--source-kinds', KINDS_FILE]);
      const live = scanJson(['-n', ns, '--source-kinds', KINDS_FILE, '--dry-run']);
      assert.deepEqual(offline.images, live.images);
      const offlinePlain = scanJson(['-f', file]);
      const livePlain = scanJson(['-n', ns, '--dry-run']);
      assert.deepEqual(offlinePlain.images, livePlain.images);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a declared kind whose CRD is not installed is reported once and skipped', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-kinds-'));
    try {
      const file = path.join(dir, 'kinds.yaml');
      fs.writeFileSync(
        file,
        fs.readFileSync(KINDS_FILE, 'utf8') +
          '  - { group: widgets.example.com, version: v1, kind: Gadget, podTemplates: [spec.template] }\n',
      );
      const r = scanJson(['-n', ns, '--source-kinds', file, '--dry-run']);
      assert.equal(
        r.r.stderr.match(/source kind skipped: Gadget\.widgets\.example\.com\/v1 is not served/g)?.length,
        1,
        r.r.stderr,
      );
      assert.deepEqual(r.images, { [BLUE]: 'Deployment,Rollout', 'example.com/rollout-pod:1': 'Rollout' });
      fs.writeFileSync(
        file,
        'apiVersion: cli.imageinventory.dev/v1\nkind: SourceKinds\nkinds: [{ group: x, version: v1, kind: Pod }]\n',
      );
      const bad = runCli(['scan', '-n', ns, '--source-kinds', file, '--kubeconfig', kubeconfigPath()]);
      assert.equal(bad.status, 2);
      assert.match(
        bad.stderr,
        /not a valid SourceKinds file: \/kinds\/0 must have required property 'podTemplates'/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('inv watch: a template change reaches the Images, deleting the Rollout removes its credit', async () => {
    const declared = parseSourceKinds(fs.readFileSync(KINDS_FILE, 'utf8'), KINDS_FILE);
    const { kinds } = await discoverKinds(env.rest, declared);
    const d = await startDaemon(env.kc, { namespaces: [ns], kinds });
    try {
      const users = async (image: string) =>
        (await listImages(env, ns)).find((i) => i.spec?.image === image)?.status?.users ?? [];
      await until(
        'the daemon credits Rollout',
        async () => (await inventory(env, ns))[BLUE] === 'Deployment,Rollout',
      );
      const started = Date.now();
      await env.rest.request('PATCH', `${ROLLOUTS}/namespaces/${ns}/rollouts/rollout-canary`, {
        body: {
          spec: {
            template: {
              spec: { containers: [{ name: 'rollouts-demo', image: 'argoproj/rollouts-demo:green' }] },
            },
          },
        },
        contentType: 'application/merge-patch+json',
      });
      // Two Images change: the new image's is created, the old one's users lose the Rollout. They
      // are separate writes, so the test waits for both (CI once read the old one in between).
      const blueUsers = ['Deployment/rollout-ref-deployment', 'Rollout/rollout-ref-deployment'];
      await until(
        'the new template image credited to the Rollout, and the old one no longer',
        async () =>
          (await inventory(env, ns))[GREEN] === 'Rollout' &&
          JSON.stringify(await users(BLUE)) === JSON.stringify(blueUsers),
      );
      const latency = Date.now() - started;
      assert.ok(latency < 5000, `template change took ${latency} ms`);
      assert.deepEqual(await users(BLUE), blueUsers);
      await env.rest.request('DELETE', `${ROLLOUTS}/namespaces/${ns}/rollouts/rollout-canary`);
      await until('the Rollout credit gone', async () => (await inventory(env, ns))[GREEN] === undefined);
      // Its ReplicaSet and Pod stay (no garbage collector here): their owner is gone, so the
      // Pod is credited to the ReplicaSet's owner kind by name, fail closed.
      assert.equal((await inventory(env, ns))['example.com/rollout-pod:1'], 'Rollout');
    } finally {
      await d.stop();
    }
  });
});
