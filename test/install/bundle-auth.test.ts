// The production bundle (scripts/bundle.mjs, what the npm package and the images run) keeps
// client-node's authentication working: a kubeconfig whose user is an exec credential plugin, a
// token that the API server rejects, and the in-cluster path. Against the run's real API server,
// with the bundle run as the package runs it (INV_BUNDLE=1: no dist/src, no node_modules used).
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import { serviceAccountToken } from '../support/service-account.js';

interface VersionReport {
  server?: { version: string };
  serverError?: string;
}

function invBundled(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: '', INV_BUNDLE: '1', ...env },
    timeout: 60_000,
  });
}

describe('the bundled program authenticates as client-node does', function () {
  this.timeout(120_000);
  let tmp: string;
  let token: string;
  let admin: k8s.KubeConfig;

  before(async () => {
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'bundle.mjs')], { stdio: 'ignore' });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bundle-auth-'));
    admin = adminConfig();
    const ns = await newNamespace('bundle-auth');
    const rest = new KubeRest(admin);
    try {
      await rest.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
        body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'exec-user' } },
      });
      token = await serviceAccountToken(rest, ns, 'exec-user', 600);
    } finally {
      rest.close();
    }
  });
  after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

  /** A kubeconfig for the test API server whose user runs `plugin` (an ExecCredential printer). */
  function execKubeconfig(name: string, credentialToken: string): string {
    const plugin = path.join(tmp, `${name}-plugin.mjs`);
    const marker = path.join(tmp, `${name}.ran`);
    fs.writeFileSync(
      plugin,
      `import fs from 'node:fs';
fs.writeFileSync(${JSON.stringify(marker)}, 'yes');
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: ${JSON.stringify(credentialToken)} },
}));
`,
    );
    const cluster = admin.getCurrentCluster()!;
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData }],
      users: [
        {
          name: 'u',
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: process.execPath,
            args: [plugin],
            interactiveMode: 'Never',
          },
        },
      ],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const file = path.join(tmp, `${name}.kubeconfig`);
    fs.writeFileSync(file, kc.exportConfig(), { mode: 0o600 });
    return file;
  }

  it('reaches the API server with a token from a kubeconfig exec plugin', () => {
    const file = execKubeconfig('good', token);
    const r = invBundled(['version', '-o', 'json', '--kubeconfig', file]);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as VersionReport;
    assert.equal(report.serverError, undefined, r.stdout);
    assert.match(report.server!.version, /^v1\./);
    assert.ok(fs.existsSync(path.join(tmp, 'good.ran')), 'the plugin ran');
  });

  it('reports a token the API server rejects (the plugin ran, the credential was sent)', () => {
    const file = execKubeconfig('bad', 'not-a-token');
    const r = invBundled(['scan', '-n', 'default', '--kubeconfig', file]);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /401|Unauthorized|unauthorized/);
    assert.ok(fs.existsSync(path.join(tmp, 'bad.ran')), 'the plugin ran');
  });

  it('takes the in-cluster path when KUBERNETES_SERVICE_HOST is set (and says what it lacks)', () => {
    const r = invBundled(['scan', '-n', 'default'], {
      HOME: tmp,
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: '1',
    });
    assert.equal(r.status, 2);
    assert.match(
      r.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' '),
      /in-cluster \(no ServiceAccount token at /,
    );
  });
});
