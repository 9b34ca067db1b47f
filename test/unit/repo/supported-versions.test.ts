// What inv supports (core/kube/supported-versions.ts), judged on plain objects: reading a server's
// version as distributions write it, where it stands against the range, the check `inv check`
// makes of it (a warning outside the range, which passes), the lines it prints, and the CEL
// features the CRDs use against the oldest supported minor.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { passed } from '../../../src/core/check/checks.js';
import { serverVersionCheck } from '../../../src/core/check/server-version.js';
import { compareMinor, parseKubeVersion } from '../../../src/core/kube/kube-version.js';
import {
  CRD_CEL_FEATURES,
  SUPPORTED_KUBERNETES,
  SUPPORTED_RANGE,
  supportOf,
  supportWarning,
} from '../../../src/core/kube/supported-versions.js';
import { renderChecks } from '../../../src/cli/check/render-check.js';
import { repoRoot } from '../../support/paths.js';

describe('supported versions: the server’s version', () => {
  it('reads gitVersion as upstream and distributions write it', () => {
    const cases: [string, number, number, number | undefined][] = [
      ['v1.37.2', 1, 37, 2],
      ['v1.37.2-eks-4a1b2c3', 1, 37, 2],
      ['v1.37.2+k3s1', 1, 37, 2],
      ['v1.36.3-gke.1200', 1, 36, 3],
      ['v1.38.0-alpha.1.123+0123456789abcd', 1, 38, 0],
      ['1.35.4', 1, 35, 4],
      ['v1.35', 1, 35, undefined],
      [' v1.37.2\n', 1, 37, 2],
    ];
    for (const [git, major, minor, patch] of cases) {
      const v = parseKubeVersion({ gitVersion: git });
      assert.ok(v, git);
      assert.deepEqual([v.major, v.minor, v.patch], [major, minor, patch], git);
      assert.equal(v.text, git.trim());
    }
    assert.equal(parseKubeVersion('v1.37.2')?.minor, 37, 'a bare string is a gitVersion');
  });

  it('falls back to the major and minor fields (GKE writes "37+"), and gives up on neither', () => {
    assert.deepEqual(parseKubeVersion({ gitVersion: 'weird', major: '1', minor: '37+' }), {
      major: 1,
      minor: 37,
      text: 'weird',
    });
    assert.deepEqual(parseKubeVersion({ major: '1', minor: '36' }), { major: 1, minor: 36, text: '1.36' });
    for (const bad of [
      undefined,
      {},
      { gitVersion: '' },
      { gitVersion: 'latest' },
      { gitVersion: 'v1' },
      { gitVersion: 'v1.x.2' },
      { gitVersion: 'vv1.37.2' },
      { major: '1', minor: '' },
      { major: 'one', minor: '37' },
    ])
      assert.equal(parseKubeVersion(bad), undefined, JSON.stringify(bad));
  });

  it('judges a server run with --emulated-version by the minor it emulates', () => {
    const emulating = parseKubeVersion({
      gitVersion: 'v1.37.2',
      major: '1',
      minor: '37',
      emulationMajor: '1',
      emulationMinor: '34',
    });
    assert.deepEqual(emulating, {
      major: 1,
      minor: 34,
      text: 'v1.37.2 emulating 1.34',
      binary: { major: 1, minor: 37 },
    });
    assert.equal(supportOf(emulating), 'older');
    const check = serverVersionCheck({ gitVersion: 'v1.37.2', emulationMajor: '1', emulationMinor: '34' });
    assert.equal(check.status, 'warn');
    assert.equal(check.detail, 'v1.37.2 emulating 1.34 is older than the supported 1.35 to 1.37');
    // 1.33 and later report the emulation version always; equal to the binary's, it is no emulation.
    assert.deepEqual(parseKubeVersion({ gitVersion: 'v1.37.2', emulationMajor: '1', emulationMinor: '37' }), {
      major: 1,
      minor: 37,
      patch: 2,
      text: 'v1.37.2',
    });
    assert.equal(
      parseKubeVersion({ gitVersion: 'v1.37.2', emulationMajor: '', emulationMinor: 'x' })?.minor,
      37,
      'unreadable emulation fields are ignored',
    );
  });

  it('compares minors, major first', () => {
    assert.ok(compareMinor({ major: 1, minor: 9 }, { major: 1, minor: 35 }) < 0, '9 < 35 as numbers');
    assert.ok(compareMinor({ major: 2, minor: 0 }, { major: 1, minor: 37 }) > 0);
    assert.equal(compareMinor({ major: 1, minor: 36 }, { major: 1, minor: 36 }), 0);
  });

  it('stands older, supported or newer against 1.35 to 1.37, whatever the patch or decoration', () => {
    assert.equal(SUPPORTED_RANGE, '1.35 to 1.37');
    const of = (g: string) => supportOf(parseKubeVersion(g));
    assert.equal(of('v1.34.99'), 'older');
    assert.equal(of('v1.9.0'), 'older');
    assert.equal(of('v1.35.0'), 'supported');
    assert.equal(of('v1.35.4-eks-1'), 'supported');
    assert.equal(of('v1.36.3'), 'supported');
    assert.equal(of('v1.37.2+k3s1'), 'supported');
    assert.equal(of('v1.38.0-alpha.1'), 'newer', 'a pre-release of the next minor is not tested');
    assert.equal(of('v2.0.0'), 'newer');
    assert.equal(of('nonsense'), 'unknown');
  });
});

describe('supported versions: the check of `inv check`', () => {
  it('passes within the range, naming the version and the range', () => {
    for (const g of ['v1.35.4', 'v1.36.3', 'v1.37.2-eks-4a1b2c3']) {
      const r = serverVersionCheck({ gitVersion: g });
      assert.deepEqual(r, {
        group: 'kubernetes-api',
        name: 'the Kubernetes version is supported',
        status: 'pass',
        detail: `${g} (supported: 1.35 to 1.37)`,
      });
    }
  });

  it('warns outside it, with the range and what to do, and a warning still passes', () => {
    const older = serverVersionCheck({ gitVersion: 'v1.34.3' });
    assert.equal(older.status, 'warn');
    assert.equal(older.detail, 'v1.34.3 is older than the supported 1.35 to 1.37');
    assert.match(older.hint ?? '', /not tested on Kubernetes 1\.34; upgrade the cluster/);
    const newer = serverVersionCheck({ gitVersion: 'v1.38.1+k3s1' });
    assert.equal(newer.status, 'warn');
    assert.equal(newer.detail, 'v1.38.1+k3s1 is newer than the supported 1.35 to 1.37');
    assert.match(newer.hint ?? '', /not tested on Kubernetes 1\.38 yet; look for a newer inv/);
    const unknown = serverVersionCheck({ gitVersion: 'custom-build' });
    assert.equal(unknown.status, 'warn');
    assert.match(unknown.detail ?? '', /cannot read a Kubernetes version from the server's "custom-build"/);
    // The exit status is about what is broken: warnings pass (docs/cli.md, exit codes).
    assert.equal(passed([older, newer, unknown]), true);
  });

  it('prints as docs/supported-versions.md shows it, and as JSON', () => {
    const prev = process.env.NO_COLOR;
    process.env.NO_COLOR = '1';
    try {
      const api = {
        group: 'kubernetes-api',
        name: 'can reach the API server',
        status: 'pass' as const,
        detail: '10.0.0.1:6443, v1.34.3',
      };
      const text = renderChecks([api, serverVersionCheck({ gitVersion: 'v1.34.3' })], 'table');
      const sample = text.split('\n\nStatus check results')[0]!;
      assert.equal(
        sample,
        [
          'kubernetes-api',
          '--------------',
          '√ can reach the API server: 10.0.0.1:6443, v1.34.3',
          '‼ the Kubernetes version is supported: v1.34.3 is older than the supported 1.35 to 1.37',
          '    hint: inv is not tested on Kubernetes 1.34; upgrade the cluster to a supported minor (docs/supported-versions.md)',
        ].join('\n'),
      );
      assert.match(text, /Status check results are √\n$/, 'a warning leaves the result a pass');
      const page = fs.readFileSync(path.join(repoRoot, 'docs', 'supported-versions.md'), 'utf8');
      assert.ok(page.includes('```\n' + sample + '\n```'), 'the page shows what the code prints');
      const doc = JSON.parse(renderChecks([serverVersionCheck({ gitVersion: 'v1.38.0' })], 'json')) as {
        passed: boolean;
        checks: { status: string }[];
      };
      assert.equal(doc.passed, true);
      assert.equal(doc.checks[0]!.status, 'warn');
    } finally {
      if (prev === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = prev;
    }
  });

  it('`inv version`’s warning names the version, the range and the page', () => {
    assert.equal(
      supportWarning('v1.34.3', 'older'),
      "the server's Kubernetes v1.34.3 is older than the supported 1.35 to 1.37: inv is not tested there (docs/supported-versions.md)",
    );
    assert.match(supportWarning('v1.38.0', 'newer'), /is newer than the supported 1\.35 to 1\.37/);
    assert.match(supportWarning('x', 'unknown'), /^the server's version "x" names no Kubernetes minor/);
  });
});

/** Every x-kubernetes-validations rule in `node`, wherever it sits in the schema. */
function rules(node: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(node)) for (const x of node) rules(x, out);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === 'x-kubernetes-validations' && Array.isArray(v)) out.push(...(v as Record<string, unknown>[]));
      rules(v, out);
    }
  return out;
}

describe('supported versions: the CRDs’ CEL rules', () => {
  const dir = path.join(repoRoot, 'crds');
  const all = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => rules(yaml.load(fs.readFileSync(path.join(dir, f), 'utf8'))));

  it('every field the rules use is a feature with its version written down, and none is stale', () => {
    assert.ok(all.length >= 5, `${all.length} rules found`);
    const used = new Set(all.flatMap((r) => Object.keys(r)).filter((k) => k !== 'message'));
    const known = CRD_CEL_FEATURES.map((f) => f.field);
    assert.deepEqual(
      [...used].filter((k) => !known.includes(k)),
      [],
      'a field the CRDs use is missing from CRD_CEL_FEATURES (with the minor that has it on by default)',
    );
    assert.deepEqual(
      known.filter((k) => !used.has(k)),
      [],
      'CRD_CEL_FEATURES names a field no CRD uses',
    );
  });

  it('the chart refuses what the CRDs cannot work on: its kubeVersion floor is theirs', () => {
    const chart = yaml.load(fs.readFileSync(path.join(repoRoot, 'charts', 'inv', 'Chart.yaml'), 'utf8')) as {
      kubeVersion?: string;
    };
    const floor = CRD_CEL_FEATURES.map((f) => f.onByDefault).reduce((a, b) =>
      compareMinor(a, b) >= 0 ? a : b,
    );
    assert.equal(chart.kubeVersion, `>=${floor.major}.${floor.minor}.0-0`);
  });

  it('each is on by default in the oldest supported minor', () => {
    for (const f of CRD_CEL_FEATURES) {
      assert.ok(compareMinor(f.onByDefault, SUPPORTED_KUBERNETES.oldest) <= 0, f.field);
      assert.ok(compareMinor(f.onByDefault, f.ga) <= 0, f.field);
    }
  });
});
