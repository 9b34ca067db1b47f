// Image users (status.users, status.userCount) and the `inv images` report, against the real
// API server: users follow creates, renames and deletes under `inv watch`, the cap holds with
// 50 users, and the report finds exactly the users of an image glob across namespaces.
import assert from 'node:assert/strict';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { runCli } from '../cli/run-cli.js';
import { setupEnv, template, podSpec, type Env } from '../inventory/helpers.js';
import { kubeconfigPath, newNamespace } from '../support/kube.js';
import { startDaemon, until, type InProcessDaemon } from '../watch/helpers.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('Image users and inv images (real API server)', function () {
  this.timeout(120_000);
  let env: Env;
  let ns: string;
  let d: InProcessDaemon;

  const statusOf = async (namespace: string, image: string) => {
    const list = await env.rest.list<ImageResource>(imagesPath(namespace));
    return list.items.find((i) => i.spec?.image === image)?.status;
  };
  const deploy = (namespace: string, name: string, image: string) =>
    env.apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name },
        spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: template(name, [image]) },
      },
    });

  useNamespace('users', (n) => (ns = n));
  before(async () => {
    env = await setupEnv();
    d = await startDaemon(env.kc, { namespaces: [ns], logLevel: 'info' });
  });
  after(async () => {
    await d?.stop();
  });

  it('status.users follows creates, renames and deletes of workloads under inv watch', async () => {
    const image = 'docker.io/library/users-app:1';
    await deploy(ns, 'api', 'users-app:1');
    await until('users [Deployment/api]', async () => {
      const s = await statusOf(ns, image);
      return JSON.stringify(s?.users) === '["Deployment/api"]' && s?.userCount === 1;
    });
    // A second user, then a "rename" (a new name, the old one deleted), then the last one goes.
    await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'debug' }, spec: podSpec(['users-app:1']) },
    });
    await until('two users, sorted', async () => {
      const s = await statusOf(ns, image);
      return JSON.stringify(s?.users) === '["Deployment/api","Pod/debug"]' && s?.userCount === 2;
    });
    await deploy(ns, 'api-v2', 'users-app:1');
    await env.apps.deleteNamespacedDeployment({ name: 'api', namespace: ns });
    await until('renamed', async () => {
      const s = await statusOf(ns, image);
      return (
        JSON.stringify(s?.users) === '["Deployment/api-v2","Pod/debug"]' && s?.kinds === 'Deployment,Pod'
      );
    });
    await env.core.deleteNamespacedPod({ name: 'debug', namespace: ns, gracePeriodSeconds: 0 });
    await env.apps.deleteNamespacedDeployment({ name: 'api-v2', namespace: ns });
    await until('the Image gone with its last user', async () => !(await statusOf(ns, image)));
  });

  it('caps status.users at 20 and keeps the true count in userCount (50 users)', async () => {
    const image = 'docker.io/library/users-many:1';
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        env.core.createNamespacedPod({
          namespace: ns,
          body: { metadata: { name: `many-${String(i).padStart(2, '0')}` }, spec: podSpec(['users-many:1']) },
        }),
      ),
    );
    await until('50 users counted', async () => (await statusOf(ns, image))?.userCount === 50, 30_000);
    const s = (await statusOf(ns, image))!;
    assert.equal(s.users?.length, 20);
    assert.deepEqual(
      s.users,
      Array.from({ length: 20 }, (_, i) => `Pod/many-${String(i).padStart(2, '0')}`),
      'the first 20 in sort order',
    );
  });

  it('inv images --image glob -A -o json lists exactly the users across two namespaces; exit 3 on no match', async () => {
    const a = await newNamespace('report-a');
    const b = await newNamespace('report-b');
    await deploy(a, 'cache', 'bitnami/redis:7');
    await deploy(a, 'web', 'nginx:1.25');
    await env.apps.createNamespacedStatefulSet({
      namespace: b,
      body: {
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          replicas: 0,
          selector: { matchLabels: { app: 'db' } },
          template: template('db', ['docker.io/bitnami/postgresql:16']),
        },
      },
    });
    await env.core.createNamespacedPod({
      namespace: b,
      body: { metadata: { name: 'tool' }, spec: podSpec(['bitnami/redis:7']) },
    });
    const scan = runCli(['scan', '-n', a, '-n', b, '--kubeconfig', kubeconfigPath()]);
    assert.equal(scan.status, 0, scan.stderr);

    const r = runCli([
      'images',
      '--image',
      'docker.io/bitnami/*',
      '-A',
      '-o',
      'json',
      '--kubeconfig',
      kubeconfigPath(),
    ]);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as {
      by: string;
      rows: { image: string; userCount: number; namespaces: { namespace: string; users: string[] }[] }[];
    };
    const mine = report.rows
      .map((row) => ({
        ...row,
        namespaces: row.namespaces.filter((n) => n.namespace === a || n.namespace === b),
      }))
      .filter((row) => row.namespaces.length > 0);
    assert.deepEqual(
      mine.map((row) => [row.image, row.namespaces.map((n) => [n.namespace, n.users])]),
      [
        ['docker.io/bitnami/postgresql:16', [[b, ['StatefulSet/db']]]],
        [
          'docker.io/bitnami/redis:7',
          [
            [a, ['Deployment/cache']],
            [b, ['Pod/tool']],
          ],
        ],
      ],
    );
    // Filters compose; -o name prints refs; a filter that matches nothing exits 3.
    const byNs = runCli([
      'images',
      '--registry',
      'docker.io',
      '-n',
      a,
      '-o',
      'name',
      '--kubeconfig',
      kubeconfigPath(),
    ]);
    assert.equal(byNs.status, 0, byNs.stderr);
    assert.deepEqual(byNs.stdout.trim().split('\n'), [
      'docker.io/bitnami/redis:7',
      'docker.io/library/nginx:1.25',
    ]);
    const none = runCli([
      'images',
      '--image',
      'docker.io/nobody-uses/*',
      '-A',
      '--kubeconfig',
      kubeconfigPath(),
    ]);
    assert.equal(none.status, 3, none.stderr);
    assert.match(none.stderr, /no image matched/);
    // A namespace that does not exist is a mistake (exit 2), not "nothing matched" (exit 3).
    const typo = runCli(['images', '-n', 'no-such-ns', '--kubeconfig', kubeconfigPath()]);
    assert.equal(typo.status, 2, typo.stderr);
    assert.equal(typo.stderr, 'error: namespace "no-such-ns" not found\n');
    const help = runCli(['images', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /EXAMPLES/);
    assert.match(help.stdout, /3 nothing\s+matched/);
    const bad = runCli(['images', '--registry', 'not a host', '--kubeconfig', kubeconfigPath()]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--registry "not a host": not a registry host/);
  });
});
