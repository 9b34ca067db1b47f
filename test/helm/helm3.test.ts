// Helm 3, which many users still run (helmVersions.helm3 in scripts/tools.mjs): the chart lints,
// renders the same objects as with Helm 4, and installs on a real API server without a warning.
// Then Helm 4 upgrades that release, as a user moving to Helm 4 does. The chart's whole lifecycle
// on real nodes is Helm 4's (test/nodes/install/helm.test.ts). A private API server: the install creates
// the chart's namespaces and cluster-wide objects, which other files must not see.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import {
  chartDir,
  helm,
  helm3,
  IMAGE_VALUES,
  parseObjects,
  template,
  tools,
  warnings,
  type Run,
} from '../support/helm.js';
import { kubectlBin } from '../support/paths.js';

const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

describe('Helm 3: the chart lints, renders and installs', function () {
  this.timeout(300_000);
  let server: FreshApiServer | undefined;
  const kubectl = (args: string[], input?: string) =>
    new Promise<Run>((resolve) => {
      const child = execFile(
        kubectlBin,
        ['--kubeconfig', server!.kubeconfig, ...args],
        { timeout: 120_000, maxBuffer: 32 * 2 ** 20 },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  const ok = (what: string, r: Run) => {
    assert.equal(r.code, 0, `${what}:\n${r.stdout}${r.stderr}`);
    assert.deepEqual(warnings(r), [], `${what} warned`);
    return r;
  };
  after(() => server?.stop());

  it('is the Helm 3 of scripts/tools.mjs', async () => {
    const { helmVersions } = await tools();
    const r = ok('helm3 version', await helm3(['version', '--template', '{{.Version}}']));
    assert.equal(r.stdout.trim(), helmVersions.helm3);
    assert.match(helmVersions.helm3, /^v3\./);
  });

  it('passes `helm lint --strict` with its defaults and every ci/*-values.yaml', async () => {
    const ci = fs.readdirSync(path.join(chartDir, 'ci')).filter((f) => f.endsWith('-values.yaml'));
    for (const args of [IMAGE_VALUES, ...ci.map((f) => ['-f', path.join(chartDir, 'ci', f)])])
      ok(`helm3 lint --strict ${args.join(' ')}`, await helm3(['lint', '--strict', chartDir, ...args]));
  });

  it('renders the same objects as Helm 4 (helm template --include-crds)', async () => {
    const r = ok(
      'helm3 template',
      await helm3(['template', 'inv', chartDir, '--include-crds', ...IMAGE_VALUES]),
    );
    const three = new Map(parseObjects(r.stdout).map((o) => [key(o), o]));
    const four = new Map((await template(['--include-crds', ...IMAGE_VALUES])).map((o) => [key(o), o]));
    assert.deepEqual([...three.keys()].sort(), [...four.keys()].sort());
    for (const [k, o] of three) assert.deepEqual(o, four.get(k), `${k} differs between Helm 3 and Helm 4`);
  });

  it('installs on a real API server: every object of the release is there, no warning', async () => {
    server = await freshApiServer();
    ok(
      'helm3 install',
      await helm3([
        ...['install', 'inv', chartDir, ...IMAGE_VALUES],
        ...['--namespace', 'default', '--kubeconfig', server.kubeconfig],
      ]),
    );
    const manifest = ok(
      'helm3 get manifest',
      await helm3(['get', 'manifest', 'inv', '--namespace', 'default', '--kubeconfig', server.kubeconfig]),
    ).stdout;
    const objects = parseObjects(manifest);
    assert.ok(objects.some((o) => o.kind === 'Deployment'));
    const got = ok('kubectl get -f -', await kubectl(['get', '-f', '-', '-o', 'name'], manifest));
    assert.equal(got.stdout.trim().split('\n').length, objects.length, got.stdout);
    // crds/ too: Helm 3 installs them before the templates, as Helm 4 does.
    const crds = await kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      '-f',
      path.join(chartDir, 'crds'),
    ]);
    assert.equal(crds.code, 0, crds.stderr);
  });

  it('Helm 4 upgrades the release Helm 3 installed (kept on client-side apply), no warning', async () => {
    assert.ok(server, 'installed above');
    ok(
      'helm upgrade (Helm 4)',
      await helm([
        'upgrade',
        'inv',
        chartDir,
        '--namespace',
        'default',
        '--reuse-values',
        '--set',
        'logLevel=debug',
        '--kubeconfig',
        server.kubeconfig,
      ]),
    );
    const dep = JSON.parse(
      ok(
        'kubectl get deployment',
        await kubectl([
          'get',
          'deployment',
          '-n',
          'image-inventory-system',
          'image-inventory-controller',
          '-o',
          'json',
          '--show-managed-fields',
        ]),
      ).stdout,
    ) as {
      metadata: { managedFields: { manager: string; operation: string }[] };
      spec: { template: { spec: { containers: { args?: string[] }[] } } };
    };
    assert.ok(dep.spec.template.spec.containers[0]!.args?.includes('--log-level=debug'));
    // --server-side defaults to "auto" on upgrade: the method the release was installed with.
    const helmOps = dep.metadata.managedFields.filter((f) => f.manager === 'helm').map((f) => f.operation);
    assert.deepEqual([...new Set(helmOps)], ['Update'], JSON.stringify(dep.metadata.managedFields));
  });
});
