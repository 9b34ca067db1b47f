// kubectl habits that met a different meaning here, on the real API server (issue 29 §4): one
// error line for oclif's multi-line parse errors, install's --dry-run spellings, `inv images`
// reading the context's namespace like `inv scan`, and `erase cancel` choosing its job as
// `erase status` does (JOB or --name).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { IMAGEJOBS_PATH, IMAGELISTS_PATH } from '../../src/core/erase/api/types.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, kubeconfigPath, newNamespace } from '../support/kube.js';
import { runCli } from './run-cli.js';

describe('errors, --dry-run spellings, images and erase cancel (real API server)', function () {
  this.timeout(120_000);
  let rest: KubeRest;
  const k = () => ['--kubeconfig', kubeconfigPath()];
  before(async () => {
    rest = new KubeRest(adminConfig());
    await installCrds(rest);
    // A CRD just made Established may still answer 429 while its storage initializes.
    for (const deadline = Date.now() + 30_000; ;) {
      try {
        await rest.get(IMAGEJOBS_PATH);
        await rest.get(IMAGELISTS_PATH);
        break;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });
  after(() => rest.close());

  it('prints oclif’s multi-line errors as one line, exit 2', () => {
    const r = runCli(['erase', '--all-unused', '--images', 'x', ...k()]);
    assert.equal(r.status, 2);
    assert.equal(
      r.stderr,
      'error: --images=x cannot also be provided when using --all-unused (see --help)\n',
    );
  });

  it('answers kubectl’s --dry-run spellings on install with what the flag does, exit 2', () => {
    for (const [args, says] of [
      [['--dry-run', 'client'], /^error: write --dry-run=client \(got --dry-run client,/],
      [
        ['--dry-run=none'],
        /^error: --dry-run takes client or server \(got --dry-run=none; leave the flag out/,
      ],
      [
        ['--dry-run=true'],
        /^error: --dry-run takes client or server \(got --dry-run=true\): client \(also a bare/,
      ],
    ] as const) {
      const r = runCli(['install', ...args, ...k()]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, says);
      assert.equal(r.stderr.split('\n').length, 2, 'one line');
    }
    const erase = runCli(['erase', '--images', 'x', '--dry-run', 'server', ...k()]);
    assert.equal(erase.status, 2);
    assert.match(erase.stderr, /^error: --dry-run takes no value \(got --dry-run server\)/);
    const ok = runCli(['install', '--dry-run=client']);
    assert.equal(ok.status, 0, ok.stderr);
  });

  it('inv images reads the context’s namespace without -n, every namespace with -A', async () => {
    const [mine, other] = await Promise.all([newNamespace('img-ctx'), newNamespace('img-other')]);
    const apps = adminConfig().makeApiClient(k8s.AppsV1Api);
    const dep = (name: string, image: string) => ({
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
      },
    });
    await apps.createNamespacedDeployment({ namespace: mine, body: dep('a', 'ctx-only.example/a:1') });
    await apps.createNamespacedDeployment({ namespace: other, body: dep('b', 'ctx-other.example/b:1') });
    assert.equal(runCli(['scan', '-n', mine, '-n', other, ...k()]).status, 0);
    // A kubeconfig whose context names `mine`.
    const kc = adminConfig();
    const ctx = kc.getContextObject(kc.getCurrentContext())!;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'inv-ctx-')), 'config');
    kc.loadFromOptions({
      clusters: kc.clusters,
      users: kc.users,
      contexts: [{ ...ctx, namespace: mine }],
      currentContext: ctx.name,
    });
    fs.writeFileSync(file, kc.exportConfig());
    const r = runCli(['images', '-o', 'name', '--kubeconfig', file]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['ctx-only.example/a:1']);
    assert.match(
      r.stderr,
      new RegExp(
        `^Reading namespace ${mine} \\(the namespace of context "${ctx.name}"; -n NAMESPACE or -A for others\\)$`,
        'm',
      ),
    );
    const all = runCli(['images', '-A', '-o', 'name', '--kubeconfig', file]);
    assert.ok(all.stdout.includes('ctx-other.example/b:1') && all.stdout.includes('ctx-only.example/a:1'));
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('erase cancel takes JOB or --name LIST (its last job), as erase status does', async () => {
    const t = randomBytes(3).toString('hex');
    let r = runCli(['erase', 'cancel', ...k()]);
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'error: give the job: JOB, or --name LIST for the ImageList’s last job\n');
    r = runCli(['erase', 'cancel', 'j', '--name', 'l', ...k()]);
    assert.equal(r.stderr, 'error: give JOB or --name, not both\n');
    r = runCli(['erase', 'cancel', '--name', `missing-${t}`, ...k()]);
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `error: imagelist missing-${t} not found\n`);
    // A list with a job (one inv did not make, so cancel refuses it by name: the selection worked).
    await rest.request('POST', IMAGELISTS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageList',
        metadata: { name: `sel-${t}` },
        spec: { images: ['busybox:1'] },
      },
    });
    r = runCli(['erase', 'cancel', '--name', `sel-${t}`, ...k()]);
    assert.equal(r.stderr, `error: imagelist sel-${t} has no job (yet)\n`);
    await rest.request('POST', IMAGEJOBS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageJob',
        metadata: { name: `sel-${t}-1`, labels: { 'erase.imageinventory.dev/imagelist': `sel-${t}` } },
        spec: {
          imageList: { name: `sel-${t}`, uid: 'x', generation: 1 },
          namespace: 'default',
          images: ['busybox:1'],
          config: {},
        },
      },
    });
    r = runCli(['erase', 'cancel', '--name', `sel-${t}`, ...k()]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`sel-${t}-1 was not created by inv's erase controllers`));
    const s = runCli(['erase', 'status', '--name', `sel-${t}`, 'j', ...k()]);
    assert.equal(s.stderr, 'error: give JOB or --name, not both\n');
    await rest.request('DELETE', `${IMAGEJOBS_PATH}/sel-${t}-1`).catch(() => undefined);
    await rest.request('DELETE', `${IMAGELISTS_PATH}/sel-${t}`).catch(() => undefined);
  });
});
