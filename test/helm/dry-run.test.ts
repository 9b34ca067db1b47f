// `helm template` of the chart with every ci/*-values.yaml is valid for the real API server: Helm
// renders with the server's capabilities (--dry-run=server, Helm 4's spelling of Helm 3's
// --validate: the monitoring.coreos.com/v1 objects appear
// because the Prometheus Operator's CRDs are installed there), then the objects go through a
// server-side dry run (`kubectl apply --server-side --dry-run=server`): schema, CRD validation
// and admission, nothing stored. A private API server keeps this apart from the other files.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { chartDir, helm, parseObjects, tools, warnings } from '../support/helm.js';
import { kubectlBin, repoRoot } from '../support/paths.js';

/** The Prometheus Operator's CRDs this chart uses, from its Go module (read in the module cache). */
export async function prometheusOperatorCrds(): Promise<string[]> {
  const dir = path.join(
    (await tools()).moduleDir('prometheus-operator'),
    'example',
    'prometheus-operator-crd',
  );
  return ['servicemonitors', 'prometheusrules'].map((p) => path.join(dir, `monitoring.coreos.com_${p}.yaml`));
}

describe('Helm chart: rendered objects pass a server-side dry run', function () {
  this.timeout(300_000);
  let server: FreshApiServer;
  const kubectl = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        kubectlBin,
        ['--kubeconfig', server.kubeconfig, ...args],
        { timeout: 120_000, maxBuffer: 32 * 2 ** 20 },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin?.end(input);
    });

  before(async () => {
    server = await freshApiServer();
    const crds = [path.join(repoRoot, 'crds'), ...(await prometheusOperatorCrds())];
    const files = crds.flatMap((f) => ['-f', f]);
    const applied = await kubectl(['apply', '--server-side', ...files]);
    assert.equal(applied.code, 0, applied.stderr);
    const ready = await kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...files]);
    assert.equal(ready.code, 0, ready.stderr);
  });
  after(() => server?.stop());

  const ciFiles = fs
    .readdirSync(path.join(chartDir, 'ci'))
    .filter((f) => f.endsWith('-values.yaml'))
    .sort();

  // Rendered first, all of them: --dry-run=server refuses objects that exist without Helm's ownership,
  // and the dry runs below need the namespaces to exist for real.
  const rendered = new Map<string, KubeObject[]>();
  it('renders every ci/*-values.yaml against the server (helm template --dry-run=server)', async () => {
    for (const f of ciFiles) {
      const r = await helm([
        'template',
        'inv',
        chartDir,
        '-f',
        path.join(chartDir, 'ci', f),
        // The chart's crds/ are applied for real in before() (Helm refuses to render CRDs it
        // would not own), so this renders the templates; --skip-crds says so, and spares the
        // warning any dry run of a chart with crds/ prints (its templates may need them).
        '--dry-run=server',
        '--skip-crds',
        '--kubeconfig',
        server.kubeconfig,
      ]);
      assert.equal(r.code, 0, `${f}: ${r.stderr}`);
      assert.deepEqual(warnings(r), [], `${f}: helm template warned`);
      rendered.set(f, parseObjects(r.stdout));
    }
    // The server serves monitoring.coreos.com/v1, so the values that ask for them get them.
    const kinds = new Set(rendered.get('full-values.yaml')!.map((o) => o.kind));
    for (const kind of ['ServiceMonitor', 'PrometheusRule']) assert.ok(kinds.has(kind), `${kind} rendered`);
  });

  for (const f of ciFiles) {
    it(`${f}: every object passes the server-side dry run`, async () => {
      const objects = rendered.get(f);
      assert.ok(objects, 'rendered above');
      // Namespaces and ServiceAccounts for real: a dry-run Namespace is not there for the objects
      // inside it, nor a dry-run ServiceAccount for the admission of a Pod that names it.
      const namespaces = new Set(
        objects.flatMap((o) => (o.metadata.namespace ? [o.metadata.namespace] : [])),
      );
      for (const ns of namespaces) {
        const r = await kubectl(['create', 'namespace', ns]);
        assert.ok(r.code === 0 || /AlreadyExists|already exists/.test(r.stderr), r.stderr);
      }
      for (const sa of objects.filter((o) => o.kind === 'ServiceAccount')) {
        const r = await kubectl(['create', 'serviceaccount', '-n', sa.metadata.namespace!, sa.metadata.name]);
        assert.ok(r.code === 0 || /AlreadyExists|already exists/.test(r.stderr), r.stderr);
      }
      const input = objects.map((o) => `---\n${stringify(o)}`).join('');
      const apply = () =>
        kubectl(
          [
            'apply',
            '--server-side',
            '--force-conflicts',
            '--dry-run=server',
            '--field-manager=helm',
            '-f',
            '-',
          ],
          input,
        );
      const r = await apply();
      assert.equal(r.code, 0, `${f}:\n${r.stderr}`);
      assert.equal(r.stdout.trim().split('\n').length, objects.length, r.stdout);
    });
  }
});
