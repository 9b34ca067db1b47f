// The README's user quick start, as written: the marked shell block runs word for word as an
// unprivileged user (nobody, with a HOME of its own) against an API server where nothing of inv
// is installed, with a kubeconfig for a ServiceAccount bound to the `view` ClusterRole's rules alone. It
// installs the tarball `npm pack` makes into ~/.local, then `inv scan -A --dry-run` and
// `inv images -A` name the images of the workloads made here. The block's marker must stay: the
// test fails when it is gone, so the quick start cannot drift away from what is tested.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeRest } from '../../src/core/kube/rest.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { repoRoot } from '../support/paths.js';

const MARKER = '<!-- user-quick-start:';
const NOBODY = { uid: 65534, gid: 65534 };
const WEB = 'registry.example.com/shop/web:1.4.2';
const REPORT = 'registry.example.com/shop/report:2.0.1';

/** The shell block right after the README's marker. */
export function quickStartBlock(readme: string): string {
  const at = readme.indexOf(MARKER);
  assert.ok(at >= 0, `README.md has no ${MARKER} marker: the user quick start is gone or unmarked`);
  const m = /^```sh\n([\s\S]*?)^```$/m.exec(readme.slice(at));
  assert.ok(m, 'no ```sh block after the quick-start marker');
  return m[1]!;
}

/** A copy of `from` under `to` (the checkout and its tools may sit in a folder nobody can enter). */
function copyTree(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true, dereference: true });
}

describe('README quick start, as an unprivileged user with a read-only kubeconfig', function () {
  this.timeout(240_000);
  let server: FreshApiServer;
  let home: string;
  let tmp: string;
  let tarball: string;

  before(async function () {
    if (process.getuid?.() !== 0) this.skip(); // becoming nobody takes root
    server = await freshApiServer();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-quickstart-'));
    fs.chmodSync(tmp, 0o755);
    home = path.join(tmp, 'home');
    fs.mkdirSync(path.join(home, '.kube'), { recursive: true });

    // What a user downloads: the tarball `npm pack` makes, named as it names it.
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'bundle.mjs')], { stdio: 'ignore' });
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', home], {
        cwd: repoRoot,
        encoding: 'utf8',
      }),
    ) as { filename: string }[];
    tarball = packed[0]!.filename;

    // Node and npm where nobody may run them (the suite's Node may be in the checkout's .cache).
    const tools = path.join(tmp, 'tools');
    fs.mkdirSync(path.join(tools, 'bin'), { recursive: true });
    fs.copyFileSync(process.execPath, path.join(tools, 'bin', 'node'));
    fs.chmodSync(path.join(tools, 'bin', 'node'), 0o755);
    const npmCli = fs.realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
    const npmDir = path.resolve(path.dirname(npmCli), '..');
    copyTree(npmDir, path.join(tools, 'npm'));
    fs.symlinkSync(path.join(tools, 'npm', 'bin', 'npm-cli.js'), path.join(tools, 'bin', 'npm'));

    // The cluster: a workload to find, and a ServiceAccount that may only read.
    const admin = new k8s.KubeConfig();
    admin.loadFromFile(server.kubeconfig);
    const core = admin.makeApiClient(k8s.CoreV1Api);
    const apps = admin.makeApiClient(k8s.AppsV1Api);
    const batch = admin.makeApiClient(k8s.BatchV1Api);
    const rbac = admin.makeApiClient(k8s.RbacAuthorizationV1Api);
    await core.createNamespace({ body: { metadata: { name: 'shop' } } });
    const labels = { app: 'web' };
    await apps.createNamespacedDeployment({
      namespace: 'shop',
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: WEB }] } },
        },
      },
    });
    await batch.createNamespacedCronJob({
      namespace: 'shop',
      body: {
        metadata: { name: 'report' },
        spec: {
          schedule: '0 3 * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: 'Never', containers: [{ name: 'report', image: REPORT }] },
              },
            },
          },
        },
      },
    });
    await core.createNamespacedServiceAccount({
      namespace: 'default',
      body: { metadata: { name: 'reader' } },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'quickstart-reader' },
        // view's rules: a controller-manager's aggregation controller copies them into `view`;
        // this server runs none, so the binding names the role they come from.
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'system:aggregate-to-view',
        },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
      },
    });
    const token = (
      await core.createNamespacedServiceAccountToken({
        namespace: 'default',
        name: 'reader',
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      })
    ).status!.token;
    const cluster = admin.getCurrentCluster()!;
    const user = new k8s.KubeConfig();
    user.loadFromOptions({
      clusters: [{ name: 'local', server: cluster.server, caData: cluster.caData }],
      users: [{ name: 'reader', token }],
      contexts: [{ name: 'reader', cluster: 'local', user: 'reader' }],
      currentContext: 'reader',
    });
    fs.writeFileSync(path.join(home, '.kube', 'config'), user.exportConfig(), { mode: 0o600 });

    // RBAC reaches the authorizer asynchronously: wait until the reader may list namespaces.
    const rest = new KubeRest(user);
    try {
      const end = Date.now() + 30_000;
      while (!(await allowed(rest, 'list', 'namespaces'))) {
        if (Date.now() > end) assert.fail('the view binding never took effect');
        await new Promise((r) => setTimeout(r, 300));
      }
      // A reader, not an admin: it may not write.
      assert.equal(await allowed(rest, 'create', 'deployments', 'apps', 'shop'), false);
      assert.equal(await allowed(rest, 'create', 'customresourcedefinitions', 'apiextensions.k8s.io'), false);
    } finally {
      rest.close();
    }
    execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, home]);
  });

  after(async () => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    await server?.stop();
  });

  it('installs the CLI into ~/.local and names the workloads’ images, writing nothing', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const block = quickStartBlock(readme);
    // The user's quick start comes first: the README's first section holds the block.
    const first = readme.indexOf('\n## ');
    assert.ok(first < readme.indexOf(MARKER) && readme.indexOf('\n## ', first + 1) > readme.indexOf(MARKER));
    assert.match(
      block,
      new RegExp(`\\./${tarball.replace(/\./g, '\\.')}\\b`),
      `the block installs ${tarball}`,
    );
    const r = spawnSync(
      'setpriv',
      ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'bash', '-e', '-o', 'pipefail', '-c', block],
      {
        cwd: home,
        encoding: 'utf8',
        timeout: 180_000,
        env: {
          HOME: home,
          PATH: `${path.join(tmp, 'tools', 'bin')}:/usr/bin:/bin`,
          NO_COLOR: '1',
          // No registry is asked for anything: the tarball has no dependencies.
          npm_config_offline: 'true',
          npm_config_update_notifier: 'false',
          npm_config_fund: 'false',
          npm_config_audit: 'false',
        },
      },
    );
    assert.equal(r.status, 0, `exit ${r.status}\n${r.stdout}\n${r.stderr}`);
    assert.ok(fs.existsSync(path.join(home, '.local', 'bin', 'inv')), 'inv is in ~/.local/bin');
    // Both commands print both refs (the scan's table, then the report's), and say why they read
    // the workloads.
    for (const ref of [WEB, REPORT]) {
      const seen = r.stdout.split('\n').filter((l) => l.includes(ref));
      assert.equal(seen.length, 2, `${ref} in the scan and in the report:\n${r.stdout}`);
    }
    assert.match(r.stdout, /\(dry run: nothing written\)/);
    const notes = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('note: inv is not installed in this cluster'));
    assert.equal(notes.length, 2, r.stderr);
  });

  it('left the cluster as it was: no CRD of inv', async () => {
    const admin = new k8s.KubeConfig();
    admin.loadFromFile(server.kubeconfig);
    const rest = new KubeRest(admin);
    try {
      const crds = await rest.get<{ items: { metadata: { name: string } }[] }>(
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      );
      assert.deepEqual(
        crds.items.map((c) => c.metadata.name).filter((n) => n.includes('imageinventory')),
        [],
      );
    } finally {
      rest.close();
    }
  });
});

/** A SelfSubjectAccessReview: may this kubeconfig's user do `verb` on `resource`? */
async function allowed(
  rest: KubeRest,
  verb: string,
  resource: string,
  group = '',
  namespace?: string,
): Promise<boolean> {
  const r = await rest.request<{ status?: { allowed?: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb, resource, group, namespace } },
      },
    },
  );
  return r.status?.allowed === true;
}
