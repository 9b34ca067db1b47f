// The JSON documents of docs/output.md: real command output, against the real API server and
// offline, validated with ajv against docs/schemas/<Kind>.json. A field added to a report without
// its schema (or the other way round) fails here.
import { Ajv } from 'ajv';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { repoRoot } from '../support/paths.js';
import { adminConfig, kubeconfigPath } from '../support/kube.js';
import { runCli } from './run-cli.js';
import { useNamespace } from '../support/suite-hooks.js';

const schemaDir = path.join(repoRoot, 'docs', 'schemas');
const kinds = fs
  .readdirSync(schemaDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5));

const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
for (const k of kinds)
  ajv.addSchema(JSON.parse(fs.readFileSync(path.join(schemaDir, `${k}.json`), 'utf8')), k);

function validate(kind: string, args: string[], expectStatus = 0): Record<string, unknown> {
  const r = runCli(args);
  assert.equal(r.status, expectStatus, `${args.join(' ')}: ${r.stderr}`);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(doc.apiVersion, 'cli.imageinventory.dev/v1');
  assert.equal(doc.kind, kind);
  const ok = ajv.validate(kind, doc);
  assert.ok(ok, `${args.join(' ')}: ${ajv.errorsText(ajv.errors, { separator: '\n' })}`);
  return doc;
}

describe('JSON output documents (docs/schemas)', () => {
  let ns: string;
  let kc: string;
  useNamespace('schemas', (n) => (ns = n));
  before(async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    rest.close();
    kc = kubeconfigPath();
    const core = adminConfig().makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'p', labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'c', image: 'nginx:1.25' },
            { name: 'bad', image: 'Bad/Ref' },
          ],
        },
      },
    });
  });

  it('every schema is documented in docs/output.md', () => {
    const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'output.md'), 'utf8');
    for (const k of kinds) assert.ok(doc.includes(`schemas/${k}.json`), `${k} is in docs/output.md`);
    // Other commands add their kinds (EraseReport, ...); these four are validated below.
    for (const k of ['CheckReport', 'ImageReport', 'ScanReport', 'VersionReport'])
      assert.ok(kinds.includes(k), k);
  });

  it('ScanReport: offline, against the cluster (writes, dry run, -A, -l), and as YAML', () => {
    validate('ScanReport', ['scan', '-f', 'examples', '-o', 'json']);
    const first = validate('ScanReport', ['scan', '-n', ns, '--kubeconfig', kc, '-o', 'json']);
    assert.equal(first.source, 'cluster');
    validate('ScanReport', ['scan', '-n', ns, '--kubeconfig', kc, '-o', 'json']);
    validate('ScanReport', ['scan', '-A', '--dry-run', '--kubeconfig', kc, '-o', 'json']);
    validate('ScanReport', ['scan', '-n', ns, '-l', 'app=web', '--kubeconfig', kc, '-o', 'json']);
    const partial = validate(
      'ScanReport',
      ['scan', '-n', ns, '-n', 'no-such-ns', '--kubeconfig', kc, '-o', 'json'],
      1,
    );
    const yaml = runCli(['scan', '-f', 'examples', '-o', 'yaml']);
    assert.ok(ajv.validate('ScanReport', parseYaml(yaml.stdout)), ajv.errorsText(ajv.errors));
    assert.deepEqual(partial.failures, [
      { namespace: 'no-such-ns', error: 'namespace "no-such-ns" not found', reason: 'NotFound' },
    ]);
  });

  it('ImageReport: by image, namespace and registry, and offline', () => {
    for (const by of ['image', 'namespace', 'registry'])
      validate('ImageReport', ['images', '-n', ns, '--by', by, '--kubeconfig', kc, '-o', 'json']);
    validate('ImageReport', ['images', '--offline', '-f', 'examples', '-o', 'json']);
  });

  it('CheckReport and VersionReport', () => {
    const check = runCli(['check', '--kubeconfig', kc, '-o', 'json']);
    const doc = JSON.parse(check.stdout) as Record<string, unknown>;
    assert.ok(ajv.validate('CheckReport', doc), ajv.errorsText(ajv.errors));
    validate('VersionReport', ['version', '--kubeconfig', kc, '-o', 'json']);
    validate('VersionReport', ['version', '--client', '-o', 'json']);
  });
});
