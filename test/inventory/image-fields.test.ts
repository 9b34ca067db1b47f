// Declared source kinds that name images in string fields, against the real API server with
// the CRDs of kube-fledged (ImageCache), OpenKruise (ImagePullJob) and Tekton (Task, and the
// cluster-scoped ClusterTask), written for the tests in test/fixtures/source-kinds/ from each
// project's API facts. Objects written here; their images reach the Images (kinds and
// status.users), `inv images`, `inv scan -f` (the same answer offline), the daemon, and a `*`
// prune's protected set. The prune on real nodes: test/nodes/image-fields.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildProtectedSet } from '../../src/core/contract/protected-set.js';
import { ScanProtection } from '../../src/core/erase/worker/inventory-protection.js';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { discoverKinds } from '../../src/core/inventory/discover-kinds.js';
import { parseAllDocuments } from 'yaml';
import { isNotFound } from '../../src/core/kube/rest.js';
import { runCli } from '../cli/run-cli.js';
import { kubeconfigPath } from '../support/kube.js';
import { useNamespace } from '../support/suite-hooks.js';
import { startDaemon, until } from '../watch/helpers.js';
import { inventory, listImages, setupEnv, type Env } from './helpers.js';
import {
  FIELD_KINDS,
  installFieldKinds,
  kindsFile,
  objectsOf,
  pathOf,
  type Obj,
} from './image-fields-helpers.js';

describe('declared kinds with image fields (kube-fledged, OpenKruise, Tekton CRDs; real API server)', function () {
  this.timeout(120_000);
  let env: Env;
  let ns: string;
  let dir: string;
  let file: string;
  let objects: ReturnType<typeof objectsOf>;
  const scanJson = (args: string[]) => {
    const r = runCli(['scan', ...args, '-o', 'json', '--kubeconfig', kubeconfigPath()]);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      namespaces: { namespace: string; images: { image: string; kinds: string[]; status: string }[] }[];
    };
    return Object.fromEntries(
      out.namespaces
        .filter((n) => n.namespace === ns)
        .flatMap((n) => n.images)
        .filter((i) => !/delete/.test(i.status))
        .map((i) => [i.image, i.kinds.join(',')]),
    );
  };
  const want = {
    'docker.io/library/nginx:1.27': 'ImageCache,ImagePullJob',
    'docker.io/library/redis:7.4': 'ImageCache',
    'gcr.io/tekton-releases/git-init:v0.40': 'Task',
    'docker.io/library/golang:1.23': 'ClusterTask,Task',
    'docker.io/library/alpine:3.20': 'ClusterTask',
  };

  useNamespace('kinds-fields', (n) => (ns = n));
  before(async () => {
    env = await setupEnv();
    await installFieldKinds(env);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-fields-'));
    file = path.join(dir, 'kinds.yaml');
    // The cluster-scoped ClusterTask's Images go to this test's namespace.
    fs.writeFileSync(file, kindsFile(ns));
    objects = objectsOf(ns);
    for (const o of objects) await env.rest.request('POST', pathOf(o, ns), { body: o });
  });
  after(async () => {
    for (const o of objects?.filter((x) => x.kind === 'ClusterTask') ?? [])
      await env.rest
        .request('DELETE', `${pathOf(o, ns)}/${o.metadata.name as string}`)
        .catch(() => undefined);
    env?.rest.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('inv scan credits each field image to its kind and object; users and inv images show them', async () => {
    const r = runCli(['scan', '-n', ns, '--source-kinds', file, '--kubeconfig', kubeconfigPath()]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.includes('skipped'), false, r.stderr);
    // The bad ones are reported, by object and field, and take nothing else down.
    assert.match(r.stderr, /ImagePullJob\/bad-ref container spec\.image: invalid image "Not A Ref"/);
    assert.deepEqual(await inventory(env, ns), want);
    const users = Object.fromEntries(
      (await listImages(env, ns)).map((i) => [i.spec?.image, i.status?.users]),
    );
    assert.deepEqual(users['docker.io/library/nginx:1.27'], [
      'ImageCache/warm-web',
      'ImagePullJob/pull-nginx',
    ]);
    assert.deepEqual(users['docker.io/library/golang:1.23'], [`ClusterTask/${ns}-build`, 'Task/build']);
    const images = runCli(['images', '-n', ns, '-o', 'json', '--kubeconfig', kubeconfigPath()]);
    assert.equal(images.status, 0, images.stderr);
    const listed = JSON.parse(images.stdout) as { items?: unknown[] } | unknown[];
    const text = JSON.stringify(listed);
    for (const image of Object.keys(want)) assert.ok(text.includes(image), `inv images lists ${image}`);
    assert.ok(text.includes('ImagePullJob/pull-nginx'), 'inv images names the users');
  });

  it('scan -f with the same kinds file gives the same answer offline', () => {
    const m = path.join(dir, 'all.yaml');
    fs.writeFileSync(m, objects.map((o) => JSON.stringify(o)).join('\n---\n'));
    const offline = scanJson(['-f', m, '--source-kinds', file]);
    assert.deepEqual(offline, want);
    assert.deepEqual(scanJson(['-n', ns, '--source-kinds', file, '--dry-run']), want);
  });

  it("a * prune's protected set holds every field image, the cluster-scoped kind's in its namespace", async () => {
    const { kinds, skipped } = await discoverKinds(env.rest, parseSourceKinds(kindsFile(ns), 'kinds.yaml'));
    assert.deepEqual(skipped, []);
    // The Images this scan wrote would protect them on their own: the workloads alone must.
    await env.rest.request('DELETE', `/apis/imageinventory.dev/v1alpha1/namespaces/${ns}/images`);
    // Other files of the run reference the same images in their own namespaces: this namespace's
    // uses (the cluster-scoped kind's are placed here too) are the ones to check.
    const uses = await new ScanProtection(env.rest, kinds).uses();
    const set = buildProtectedSet([...uses].filter((u) => u.namespace === ns));
    assert.equal(set.get('docker.io/library/redis:7.4'), `referenced by ImageCache in ${ns}`);
    assert.equal(set.get('gcr.io/tekton-releases/git-init:v0.40'), `referenced by Task in ${ns}`);
    assert.equal(set.get('docker.io/library/alpine:3.20'), `referenced by ClusterTask in ${ns}`);
    assert.equal(
      set.get('docker.io/library/nginx:1.27'),
      `referenced by ImageCache in ${ns}, ImagePullJob in ${ns}`,
    );
  });

  it('inv install grants the daemon list and watch on every kind, the cluster-scoped one included; inv check verifies it', async () => {
    type Check = { group: string; name: string; status: string; detail?: string };
    const check = () => {
      const r = runCli(['check', '--source-kinds', file, '-o', 'json', '--kubeconfig', kubeconfigPath()]);
      return (JSON.parse(r.stdout) as { checks: Check[] }).checks.filter((c) => c.group === 'source kinds');
    };
    const r = runCli(['install', '--daemon', '--source-kinds', file, '--dry-run']);
    assert.equal(r.status, 0, r.stderr);
    const objs = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj & { rules?: unknown });
    const role = objs.find(
      (o) => o.kind === 'ClusterRole' && o.metadata.name === 'image-inventory-source-kinds',
    )!;
    assert.deepEqual(role.rules, [
      { apiGroups: ['kubefledged.io'], resources: ['imagecaches'], verbs: ['list', 'watch'] },
      { apiGroups: ['apps.kruise.io'], resources: ['imagepulljobs'], verbs: ['list', 'watch'] },
      { apiGroups: ['tekton.dev'], resources: ['tasks'], verbs: ['list', 'watch'] },
      { apiGroups: ['tekton.dev'], resources: ['clustertasks'], verbs: ['list', 'watch'] },
    ]);
    const binding = objs.find(
      (o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'image-inventory-source-kinds',
    )!;
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    // Another file of the same run may have applied these two objects (deploy/ holds them).
    for (const p of ['clusterrolebindings', 'clusterroles'])
      await env.rest.request('DELETE', `${rbac}/${p}/image-inventory-source-kinds`).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    await env.rest.request('POST', `${rbac}/clusterroles`, { body: role });
    await env.rest.request('POST', `${rbac}/clusterrolebindings`, { body: binding });
    try {
      await until(
        'inv check passes every kind',
        () => check().every((c) => c.status === 'pass'),
        20_000,
        500,
      );
      assert.deepEqual(
        check().map((c) => [c.name, c.detail]),
        [
          ['ImageCache.kubefledged.io', 'served as imagecaches; the daemon may list, watch'],
          ['ImagePullJob.apps.kruise.io', 'served as imagepulljobs; the daemon may list, watch'],
          ['Task.tekton.dev', 'served as tasks; the daemon may list, watch'],
          ['ClusterTask.tekton.dev', 'served as clustertasks; the daemon may list, watch'],
        ],
      );
    } finally {
      await env.rest.request('DELETE', `${rbac}/clusterrolebindings/image-inventory-source-kinds`);
      await env.rest.request('DELETE', `${rbac}/clusterroles/image-inventory-source-kinds`);
    }
  });

  it('a bad path is refused at load, naming the entry', () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, kindsFile(ns).replace("'spec.steps[*].image'", "'spec.steps[].image'"));
    const r = runCli(['scan', '-n', ns, '--source-kinds', bad, '--kubeconfig', kubeconfigPath()]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /kinds\[2\] \(Task\.tekton\.dev\): image field path "spec\.steps\[\]\.image": field 2/,
    );
  });

  it('inv watch: a changed field reaches the Images, for the namespaced and the cluster-scoped kind', async () => {
    const { kinds } = await discoverKinds(env.rest, parseSourceKinds(kindsFile(ns), 'kinds.yaml'));
    const d = await startDaemon(env.kc, { namespaces: [ns], kinds });
    try {
      await until('the daemon credits the field images', async () => {
        const inv = await inventory(env, ns);
        return Object.entries(want).every(([i, k]) => inv[i] === k);
      });
      const patch = (p: string, body: unknown) =>
        env.rest.request('PATCH', p, { body, contentType: 'application/merge-patch+json' });
      await patch(`${pathOf(FIELD_KINDS.pull, ns)}/pull-nginx`, { spec: { image: 'nginx:1.28' } });
      await patch(`${pathOf(FIELD_KINDS.clusterTask, ns)}/${ns}-build`, {
        spec: { steps: [{ name: 'build', image: 'golang:1.24' }] },
      });
      await until('the new images credited, the old ones no longer', async () => {
        const inv = await inventory(env, ns);
        return (
          inv['docker.io/library/nginx:1.28'] === 'ImagePullJob' &&
          inv['docker.io/library/nginx:1.27'] === 'ImageCache' &&
          inv['docker.io/library/golang:1.24'] === 'ClusterTask' &&
          inv['docker.io/library/golang:1.23'] === 'Task' &&
          inv['docker.io/library/alpine:3.20'] === undefined
        );
      });
    } finally {
      await d.stop();
    }
  });
});
