// The chart (charts/inv) renders the same objects as deploy/ and `inv install --daemon`: all three
// are rendered with default values and compared object by object. The only differences allowed
// are named here. Also: `helm lint --strict` with every ci/*-values.yaml, and the values schema's
// messages for a wrong type, an unknown key and a bad duration. Helm is the real one, Helm 4,
// built from the Go module proxy (scripts/tools.mjs); test/helm/helm3.test.ts runs Helm 3.
import assert from 'node:assert/strict';
import { parseSourceKinds } from '../../src/core/inventory/declared-kinds.js';
import { sourceKindRules } from '../../src/core/install/source-kinds.js';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseConfig } from '../../src/core/erase/config/config.js';
import { readBundle } from '../../src/core/install/bundle.js';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { chartDir, helm, IMAGE_VALUES, parseObjects, template, tools } from '../support/helm.js';
import { kubectlBin, repoRoot } from '../support/paths.js';

const kubectl = kubectlBin;
const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Helm's own labels: the chart adds them to every object it owns. */
export const HELM_LABELS = [
  'helm.sh/chart',
  'app.kubernetes.io/managed-by',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/version',
];

/**
 * The named differences, applied to every side: Helm's labels are dropped (Helm installs crds/
 * unrendered, so the CRDs, identical copies checked below, have none to drop); and the erase
 * configuration is compared by meaning (what the controllers parse), since the chart spells out
 * every key with its default where deploy/ has them as comments.
 */
function normalize(o: KubeObject): KubeObject {
  const c = structuredClone(o) as KubeObject & { data?: Record<string, string> };
  const labels = { ...c.metadata.labels };
  for (const l of HELM_LABELS) delete labels[l];
  if (Object.keys(labels).length) c.metadata.labels = labels;
  else delete c.metadata.labels;
  if (
    c.kind === 'ConfigMap' &&
    c.metadata.name === 'inv-erase-config' &&
    c.data?.['config.yaml'] !== undefined
  ) {
    c.data = { ...c.data, 'config.yaml': parseConfig(c.data['config.yaml']) as unknown as string };
  }
  return c;
}

const isHook = (o: KubeObject) =>
  Boolean((o.metadata.annotations as Record<string, string> | undefined)?.['helm.sh/hook']);

function compare(name: string, ours: KubeObject[], theirs: KubeObject[]): void {
  const a = new Map(ours.map((o) => [key(o), normalize(o)]));
  const b = new Map(theirs.map((o) => [key(o), normalize(o)]));
  for (const [k, o] of a) if (b.has(k)) assert.deepEqual(o, b.get(k), `${k}: the chart and ${name} differ`);
  assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort(), `the chart and ${name} render other objects`);
}

describe('Helm chart charts/inv', function () {
  this.timeout(300_000);
  let chart: KubeObject[];
  before(async () => {
    chart = await template(['--include-crds', ...IMAGE_VALUES]);
  });

  it('runs the Helm 4 of scripts/tools.mjs', async () => {
    const { helmVersions } = await tools();
    const r = await helm(['version', '--template', '{{.Version}}']);
    assert.equal(r.stdout.trim(), helmVersions.helm, r.stderr);
    assert.match(helmVersions.helm, /^v4\./);
  });

  // With default values: the chart's objects (Helm's test hooks aside) against each of the others.
  const objects = () => chart.filter((o) => !isHook(o));

  it('renders the objects of deploy/ (`kubectl kustomize deploy/`), object by object', () => {
    const out = execFileSync(kubectl, ['kustomize', path.join(repoRoot, 'deploy')], { encoding: 'utf8' });
    compare('deploy/ (kubectl kustomize)', objects(), parseObjects(out));
    compare('the install bundle reader', objects(), readBundle());
  });

  it('renders the objects of `inv install --daemon --dry-run`, object by object', () => {
    const run = path.join(repoRoot, 'bin', 'run.js');
    const dry = spawnSync(
      process.execPath,
      [run, 'install', '--daemon', '--dry-run', '--image', 'ghcr.io/imageinventory/inv:0.1.0'],
      { encoding: 'utf8' },
    );
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(dry.stderr, '');
    compare('inv install --daemon --dry-run', objects(), parseObjects(dry.stdout));
  });

  it("labels every object it owns with Helm's labels; its test objects are hooks only", () => {
    for (const o of objects().filter((x) => x.kind !== 'CustomResourceDefinition'))
      assert.equal(o.metadata.labels?.['app.kubernetes.io/managed-by'], 'Helm', key(o));
    const hooks = chart.filter(isHook);
    assert.ok(hooks.some((o) => o.kind === 'Pod'));
    for (const o of hooks) assert.match(key(o), /inv-inv-check$/);
  });

  it('ships the CRDs in crds/ (installed before the templates, kept on uninstall): copies of crds/', () => {
    const files = fs.readdirSync(path.join(repoRoot, 'crds')).sort();
    assert.deepEqual(fs.readdirSync(path.join(chartDir, 'crds')).sort(), files);
    for (const f of files)
      assert.equal(
        fs.readFileSync(path.join(chartDir, 'crds', f), 'utf8'),
        fs.readFileSync(path.join(repoRoot, 'crds', f), 'utf8'),
        `charts/inv/crds/${f} differs from crds/${f}`,
      );
  });

  it('passes `helm lint --strict` with its defaults and every ci/*-values.yaml', async () => {
    const ci = fs.readdirSync(path.join(chartDir, 'ci')).filter((f) => f.endsWith('-values.yaml'));
    assert.ok(ci.length >= 3, 'ci/ holds the value sets');
    for (const args of [IMAGE_VALUES, ...ci.map((f) => ['-f', path.join(chartDir, 'ci', f)])]) {
      const r = await helm(['lint', '--strict', chartDir, ...args]);
      assert.equal(r.code, 0, `helm lint --strict ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
    }
  });

  it('without image.repository: refuses to render, saying how to build and push an image', async () => {
    const advice =
      /image\.repository is required: no registry publishes an inv image, so build it from a checkout of inv and push it to a registry your nodes pull from \(npm run image -- --push REGISTRY\/inv:TAG\), then: --set image\.repository=REGISTRY\/inv --set image\.tag=TAG/;
    const r = await helm(['template', 'inv', chartDir]);
    assert.notEqual(r.code, 0, 'helm template without an image should fail');
    assert.match(r.stderr, advice);
    // helm lint does not fail on a required value (Helm's lint mode), but says it.
    const lint = await helm(['lint', '--strict', chartDir]);
    assert.equal(lint.code, 0, lint.stderr);
    assert.match(lint.stdout + lint.stderr, advice);
  });

  it('image sets the daemon and the workers (and their pull secrets); erase.worker.* overrides', async () => {
    const config = async (args: string[]) => {
      const objects = await template(args);
      const cm = objects.find((o) => o.metadata.name === 'inv-erase-config') as unknown as {
        data: Record<string, string>;
      };
      const dep = objects.find((o) => o.kind === 'Deployment') as unknown as {
        spec: {
          template: { spec: { containers: { image: string }[]; imagePullSecrets?: { name: string }[] } };
        };
      };
      return { worker: parseConfig(cm.data['config.yaml']).worker, pod: dep.spec.template.spec };
    };
    const one = await config([
      ...['--set', 'image.repository=registry.example.com/inv', '--set-string', 'image.tag=2'],
      ...['--set', 'image.pullSecrets[0].name=regcred'],
    ]);
    assert.equal(one.pod.containers[0]!.image, 'registry.example.com/inv:2');
    assert.deepEqual(one.pod.imagePullSecrets, [{ name: 'regcred' }]);
    assert.equal(one.worker.image, 'registry.example.com/inv:2');
    assert.deepEqual(one.worker.imagePullSecrets, ['regcred']);
    const apart = await config([
      ...['--set', 'image.repository=registry.example.com/inv', '--set-string', 'image.tag=2'],
      ...[
        '--set',
        'erase.worker.image.repository=mirror.example.com/inv',
        '--set',
        'erase.worker.imagePullSecrets={mirror}',
      ],
    ]);
    assert.equal(apart.pod.containers[0]!.image, 'registry.example.com/inv:2');
    assert.equal(apart.worker.image, 'mirror.example.com/inv:0.1.0');
    assert.deepEqual(apart.worker.imagePullSecrets, ['mirror']);
  });

  it('renders, with every ci/*-values.yaml, an inv-erase-config that the controllers accept', async () => {
    const ci = fs.readdirSync(path.join(chartDir, 'ci')).filter((f) => f.endsWith('-values.yaml'));
    for (const f of ci) {
      const objects = await template(['-f', path.join(chartDir, 'ci', f)]);
      const cm = objects.find((o) => o.metadata.name === 'inv-erase-config') as
        (KubeObject & { data: Record<string, string> }) | undefined;
      if (!cm) continue; // erase disabled
      const cfg = parseConfig(cm.data['config.yaml']);
      if (f === 'full-values.yaml') {
        assert.deepEqual(cfg.worker.imagePullSecrets, ['registry-credentials']);
        assert.equal(cfg.jobTimeoutSeconds, 3600);
      }
    }
  });

  it("renders full-values.yaml's source kinds as a SourceKinds file inv accepts, with a rule for each kind", async () => {
    const objects = await template(['-f', path.join(chartDir, 'ci', 'full-values.yaml')]);
    const cm = objects.find((o) => o.metadata.name === 'inv-source-kinds') as
      (KubeObject & { data: Record<string, string> }) | undefined;
    const kinds = parseSourceKinds(cm!.data['source-kinds.yaml']!, 'inv-source-kinds');
    assert.deepEqual(
      kinds.map((k) => [k.kind, k.namespace, k.imageFields?.map((f) => f.text)]),
      [
        ['Rollout', undefined, undefined],
        ['ClusterTask', 'tekton-pipelines', ['spec.steps[*].image']],
      ],
    );
    const role = objects.find(
      (o) => o.kind === 'ClusterRole' && o.metadata.name === 'image-inventory-source-kinds',
    ) as (KubeObject & { rules: unknown[] }) | undefined;
    assert.deepEqual(role!.rules, sourceKindRules(kinds));
  });

  it('refuses a Kubernetes older than its CRDs need (kubeVersion: 1.30, for optionalOldSelf)', async () => {
    const r = await helm(['template', 'inv', chartDir, '--kube-version', 'v1.29.15']);
    assert.notEqual(r.code, 0, 'helm template --kube-version v1.29.15 should fail');
    assert.match(r.stderr, /kubeVersion/);
    await template(['--kube-version', 'v1.30.0', ...IMAGE_VALUES]);
    assert.match(
      fs.readFileSync(path.join(repoRoot, 'crds', 'erase.imageinventory.dev_imagelists.yaml'), 'utf8'),
      /optionalOldSelf/,
    );
  });

  describe('values schema (strict): a clear message naming the bad key', () => {
    const fails = async (args: string[], ...patterns: RegExp[]) => {
      const r = await helm(['template', 'inv', chartDir, ...args]);
      assert.notEqual(r.code, 0, `helm template ${args.join(' ')} should fail`);
      for (const p of patterns) assert.match(r.stderr, p);
    };
    it('an unknown key', () =>
      fails(['--set', 'erase.workre.image=x'], /erase/, /additional propert/i, /workre/));
    it('a wrong type', () => fails(['--set', 'replicas=two'], /replicas/, /integer/));
    it('a bad duration', () =>
      fails(['--set-string', 'erase.config.jobTimeout=30min'], /jobTimeout/, /30min/));
    it('a bad image reference', () =>
      fails(['--set', 'image.digest=sha256:abc'], /image\/digest|image\.digest/, /sha256/));
    it('a value out of its enum', () => fails(['--set', 'image.pullPolicy=Sometimes'], /pullPolicy/));
  });
});
