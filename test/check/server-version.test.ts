// `inv check` and `inv version` report the real API server's version and judge it against the
// supported range (core/kube/supported-versions.ts): the run's server is a tested release, so the
// check passes and `inv version` warns of nothing. A server that never answers is bounded by
// --request-timeout: `inv version` says so on its Server line and still exits 0. (A server outside
// the range is judged on plain objects in test/unit/repo/supported-versions.test.ts, rendering
// included: this server cannot report another version without a rebuild.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { apiServerChecks } from '../../src/core/check/checks.js';
import type { VersionInfo } from '../../src/core/kube/kube-version.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { SUPPORTED_RANGE, TESTED_KUBERNETES } from '../../src/core/kube/supported-versions.js';
import { runCli } from '../cli/run-cli.js';
import { adminConfig, kubeconfigPath } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import { silentApiServer } from '../support/servers/silent-apiserver.js';

interface CheckDoc {
  passed: boolean;
  checks: { group: string; name: string; status: string; detail?: string; hint?: string }[];
}

describe('the server’s version in inv check and inv version (real API server)', function () {
  this.timeout(60_000);
  let gitVersion = '';
  before(async () => {
    const rest = new KubeRest(adminConfig());
    try {
      gitVersion = (await rest.get<VersionInfo>('/version')).gitVersion ?? '';
    } finally {
      rest.close();
    }
  });

  it('the run’s API server is a tested release', () => {
    assert.ok(
      TESTED_KUBERNETES.some((k) => k.version === gitVersion),
      `${gitVersion} is not in TESTED_KUBERNETES (${TESTED_KUBERNETES.map((k) => k.version).join(', ')})`,
    );
  });

  it('apiServerChecks: reachable, then supported, from one /version', async () => {
    const rest = new KubeRest(adminConfig());
    try {
      const [reach, version, ...more] = await apiServerChecks(rest);
      assert.equal(more.length, 0);
      assert.equal(reach?.status, 'pass');
      assert.equal(reach?.detail, `${rest.server.host}, ${gitVersion}`);
      assert.deepEqual(version, {
        group: 'kubernetes-api',
        name: 'the Kubernetes version is supported',
        status: 'pass',
        detail: `${gitVersion} (supported: ${SUPPORTED_RANGE})`,
      });
    } finally {
      rest.close();
    }
  });

  it('inv check: the version line passes, second under kubernetes-api, in the table and in JSON', () => {
    const kc = kubeconfigPath();
    const doc = JSON.parse(runCli(['check', '--kubeconfig', kc, '-o', 'json']).stdout) as CheckDoc;
    const api = doc.checks.filter((c) => c.group === 'kubernetes-api');
    assert.deepEqual(
      api.map((c) => [c.name, c.status]),
      [
        ['can reach the API server', 'pass'],
        ['the Kubernetes version is supported', 'pass'],
      ],
    );
    const table = runCli(['check', '--kubeconfig', kc]).stdout;
    assert.match(
      table,
      new RegExp(
        `^kubernetes-api\\n-+\\n√ can reach the API server: 127\\.0\\.0\\.1:\\d+, ${gitVersion.replace(/\./g, '\\.')}\\n` +
          `√ the Kubernetes version is supported: ${gitVersion.replace(/\./g, '\\.')} \\(supported: 1\\.35 to 1\\.37\\)\\n\\n`,
      ),
    );
  });

  it('inv version: the Server line, no warning, and server.support in JSON', () => {
    const kc = kubeconfigPath();
    const r = runCli(['version', '--kubeconfig', kc]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^Server: ${gitVersion.replace(/\./g, '\\.')} \\(https://127\\.0\\.0\\.1:\\d+\\)$`, 'm'),
    );
    assert.equal(r.stderr, '', 'a supported server gets no warning');
    const j = runCli(['version', '--kubeconfig', kc, '-o', 'json']);
    const doc = JSON.parse(j.stdout) as { server?: { version: string; support: string } };
    assert.deepEqual([doc.server?.version, doc.server?.support], [gitVersion, 'supported']);
    const y = runCli(['version', '--kubeconfig', kc, '-o', 'yaml']).stdout;
    assert.match(y, /^ {2}support: supported$/m);
  });

  it('inv version against a server that never answers: the Server line within --request-timeout, exit 0', async () => {
    // A socket that accepts and never answers, as a hung API server does.
    const hung = await silentApiServer();
    const kc = hung.kubeconfig;
    try {
      // The server runs in this process, so the CLI runs beside it, not blocking it.
      const started = Date.now();
      const child = spawn(
        process.execPath,
        [path.join(repoRoot, 'bin', 'run.js'), 'version', '--kubeconfig', kc, '--request-timeout', '2s'],
        { env: { ...process.env, NO_COLOR: '1' } },
      );
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const code = await new Promise<number | null>((r) => child.on('exit', r));
      const ms = Date.now() - started;
      assert.equal(code, 0, stdout);
      const lines = stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^Client: inv /);
      assert.match(lines[1]!, /^Server: unreachable: .*2000 ms/);
      assert.equal(lines.length, 2);
      assert.ok(ms < 15_000, `${ms} ms`);
    } finally {
      await hung.close();
    }
  });
});
