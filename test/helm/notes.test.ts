// The chart's NOTES.txt, as Helm prints it after an install: what to run next (`inv check`,
// `kubectl get images -A`), the CRD upgrade line the docs give (and server-side.test.ts runs),
// and a docs link at this version's tag. Rendered by `helm install --dry-run=client`, which prints
// the notes without a cluster; `helm lint --strict` passes with it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { chartDir, helm, warnings } from '../support/helm.js';
import { repoRoot } from '../support/paths.js';

const CRD_UPGRADE = 'kubectl apply --server-side --force-conflicts -f charts/inv/crds/';

/** The NOTES Helm prints for an install with these extra arguments. */
async function notes(args: string[] = []): Promise<string> {
  const r = await helm(['install', 'inv', chartDir, '--dry-run=client', '--namespace', 'default', ...args]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(warnings(r), []);
  const at = r.stdout.indexOf('\nNOTES:\n');
  assert.ok(at >= 0, `no NOTES in:\n${r.stdout.slice(0, 2000)}`);
  return r.stdout.slice(at + '\nNOTES:\n'.length);
}

describe('Helm chart: NOTES.txt', function () {
  this.timeout(120_000);
  const chart = parse(fs.readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as {
    appVersion: string;
    home: string;
  };

  it('says what to run next, how to upgrade the CRDs, and where the docs are', async () => {
    const text = await notes();
    assert.match(
      text,
      new RegExp(`^inv ${chart.appVersion.replace(/\./g, '\\.')} is installed \\(release inv,`, 'm'),
    );
    assert.match(
      text,
      /The daemon runs in image-inventory-system, the erase workers in image-inventory-workers\./,
    );
    for (const line of [/^ {2}inv check\b/m, /^ {2}kubectl get images -A\b/m, /^ {2}inv images -A\b/m])
      assert.match(text, line);
    assert.ok(text.includes(CRD_UPGRADE), 'the CRD upgrade line');
    const link = `${chart.home}/blob/v${chart.appVersion}/docs/install.md`;
    assert.ok(text.includes(`Docs: ${link}`), text);
    assert.ok(fs.existsSync(path.join(repoRoot, 'docs', 'install.md')));
  });

  it('gives the CRD upgrade line the docs give, and which a test runs', () => {
    const docs = fs.readFileSync(path.join(repoRoot, 'docs', 'install.md'), 'utf8');
    assert.ok(docs.includes(`\`${CRD_UPGRADE}\``), 'docs/install.md Upgrading');
    const tested = fs.readFileSync(path.join(repoRoot, 'test', 'helm', 'server-side.test.ts'), 'utf8');
    assert.match(
      tested,
      /'apply',\s*'--server-side',\s*'--force-conflicts',\s*'-f',\s*path\.join\(chartDir, 'crds'\)/,
    );
  });

  it('follows the values: the namespaces, and no workers line without erase', async () => {
    const text = await notes(['--set', 'namespaces.system=inv-sys', '--set', 'erase.enabled=false']);
    assert.match(text, /^The daemon runs in inv-sys\.$/m);
    assert.doesNotMatch(text, /erase workers/);
  });

  it('passes helm lint --strict', async () => {
    const r = await helm(['lint', '--strict', chartDir]);
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
  });
});
