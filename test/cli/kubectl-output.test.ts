// kubectl's output habits on real objects of the real API server: -o jsonpath (ranges, {"\n"}),
// -o custom-columns (and its -file form), --sort-by, on inv images, inv scan, inv erase status and
// inv version; a bad template is a usage error before any API call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { IMAGEJOBS_PATH, IMAGELISTS_PATH } from '../../src/core/erase/api/types.js';
import { adminConfig, kubeconfigPath } from '../support/kube.js';
import { createDryRunListAndJob } from '../support/erase-objects.js';
import { runCli } from './run-cli.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('kubectl output habits against the API server: jsonpath, custom-columns, --sort-by', function () {
  this.timeout(120_000);
  let ns: string;
  let kc: string;
  let job: string;
  let list: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-habits-'));
  const inv = (args: string[], status = 0) => {
    const r = runCli([...args, '--kubeconfig', kc]);
    assert.equal(r.status, status, `inv ${args.join(' ')}: ${r.stderr}`);
    return r;
  };

  useNamespace('habits-out', (n) => (ns = n));
  before(async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    kc = kubeconfigPath();
    const core = adminConfig().makeApiClient(k8s.CoreV1Api);
    // Three images with 1, 2 and 3 users, created in an order that sorts no way by itself.
    const pods: [string, string][] = [
      ['a', 'redis:7.2'],
      ['b', 'busybox:1.36'],
      ['c', 'redis:7.2'],
      ['d', 'alpine:3.20'],
      ['e', 'busybox:1.36'],
      ['f', 'busybox:1.36'],
    ];
    for (const [name, image] of pods)
      await core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name }, spec: { containers: [{ name: 'c', image }] } },
      });
    list = `habits-${ns.slice(-6)}`;
    job = `${list}-1-abcde`;
    await createDryRunListAndJob(rest, list, job);
    rest.close();
    inv(['scan', '-n', ns, '-o', 'name']);
  });

  after(async () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    const rest = new KubeRest(adminConfig());
    for (const p of [`${IMAGEJOBS_PATH}/${job}`, `${IMAGELISTS_PATH}/${list}`])
      await rest.request('DELETE', p).catch(() => undefined);
    rest.close();
  });

  it('inv images -o jsonpath: kubectl template, range/end and {"\\n"}, over the Image resources', () => {
    const names = inv(['images', '-n', ns, '-o', 'jsonpath={.rows[*].image}']).stdout;
    assert.equal(
      names.split(' ').sort().join(' '),
      'docker.io/library/alpine:3.20 docker.io/library/busybox:1.36 docker.io/library/redis:7.2',
    );
    const lines = inv([
      'images',
      '-n',
      ns,
      '--sort-by',
      '.userCount',
      '-o',
      'jsonpath={range .rows[*]}{.image}{"\\t"}{.userCount}{"\\n"}{end}',
    ]).stdout;
    assert.equal(
      lines,
      'docker.io/library/alpine:3.20\t1\ndocker.io/library/redis:7.2\t2\ndocker.io/library/busybox:1.36\t3\n',
    );
    const filtered = inv([
      'images',
      '-n',
      ns,
      '-o',
      'jsonpath={.rows[?(@.userCount==2)].namespaces[0].users}',
    ]);
    assert.equal(filtered.stdout, '["Pod/a","Pod/c"]');
  });

  it('custom-columns and custom-columns-file, with --sort-by and --no-headers', () => {
    const table = inv([
      'images',
      '-n',
      ns,
      '--sort-by',
      '{.userCount}',
      '-o',
      'custom-columns=IMAGE:.image,USERS:.userCount,WHO:.namespaces[*].users[*]',
    ]).stdout;
    const lines = table.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split(/\s+/)),
      [
        ['IMAGE', 'USERS', 'WHO'],
        ['docker.io/library/alpine:3.20', '1', 'Pod/d'],
        ['docker.io/library/redis:7.2', '2', 'Pod/a,Pod/c'],
        ['docker.io/library/busybox:1.36', '3', 'Pod/b,Pod/e,Pod/f'],
      ],
    );
    // kubectl's layout: columns three spaces apart, aligned.
    assert.equal(lines[0]!.indexOf('USERS'), 'docker.io/library/busybox:1.36'.length + 3);
    assert.equal(lines[1]!.indexOf('1'), lines[0]!.indexOf('USERS'));
    const file = path.join(tmp, 'columns');
    fs.writeFileSync(file, 'NAMESPACE  IMAGE   STATUS\n.namespace .image  .status\n');
    const scan = inv([
      'scan',
      '-n',
      ns,
      '--dry-run',
      '--sort-by',
      'image',
      '--no-headers',
      '-o',
      `custom-columns-file=${file}`,
    ]).stdout;
    const rows = scan
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/\s+/));
    assert.deepEqual(
      rows.map((r) => r[1]),
      ['docker.io/library/alpine:3.20', 'docker.io/library/busybox:1.36', 'docker.io/library/redis:7.2'],
    );
    assert.ok(
      rows.every((r) => r[0] === ns && r[2] === 'unchanged'),
      scan,
    );
  });

  it('--sort-by orders the table too, and a path no row has is an error (exit 2)', () => {
    const out = inv(['images', '-n', ns, '--sort-by', '.userCount', '--no-headers']).stdout;
    assert.deepEqual(
      out
        .trimEnd()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
      ['docker.io/library/alpine:3.20', 'docker.io/library/redis:7.2', 'docker.io/library/busybox:1.36'],
    );
    const bad = inv(['images', '-n', ns, '--sort-by', '.nope'], 2);
    assert.match(bad.stderr, /couldn't find any field with path "\.nope"/);
  });

  it('inv erase status and inv version: jsonpath over their documents', () => {
    const status = inv(['erase', 'status', job, '-o', 'jsonpath={.job} {.imageList} {.dryRun}']).stdout;
    assert.equal(status, `${job} ${list} true`);
    const v = inv(['version', '-o', 'jsonpath={.server.version}']).stdout;
    assert.match(v, /^v1\.\d+\.\d+/);
    const cols = inv([
      'version',
      '--client',
      '-o',
      'custom-columns=KIND:.kind,CLIENT:.client.version',
    ]).stdout;
    assert.match(cols, /^KIND\s+CLIENT\nVersionReport\s+0\.1\.0\n$/);
  });

  it('a bad template or an unknown format is a usage error (exit 2) before any request', () => {
    // An unreachable server: had the command connected, it would fail otherwise.
    const dead = path.join(tmp, 'dead.kubeconfig');
    fs.writeFileSync(
      dead,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\n' +
        'contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n',
    );
    for (const [o, why] of [
      ['jsonpath={.rows[*]', /unclosed action/],
      ['custom-columns=IMAGE', /expected <header>:<json-path-expr>/],
      ['xml', /allowed formats are: .*jsonpath=\.\.\./],
    ] as const) {
      const r = runCli(['images', '-o', o, '--kubeconfig', dead]);
      assert.equal(r.status, 2, `${o}: ${r.stderr}`);
      assert.match(r.stderr, why);
      assert.equal(
        r.stderr.trimEnd().split('\n').length,
        1,
        `one error line, as kubectl prints: ${r.stderr}`,
      );
      assert.match(r.stderr, /^error: /);
      assert.equal(r.stdout, '');
    }
  });
});
