// Pure: the scanner side of Eraser's contract (src/core/scanner): the candidate list's shape and
// limits, the answer's bytes (Eraser's shape plus inv's extension), the settings read from an
// EraserConfig the way Eraser's Trivy scanner reads them but stricter, Trivy's command line,
// and the verdict from Trivy's JSON report.
import assert from 'node:assert/strict';
import { parseImageList, scanRefs, serializeAnswer } from '../../../src/core/scanner/contract.js';
import { MAX_LIST_IMAGES as MAX_IMAGES } from '../../../src/core/contract/scanner-contract.js';
import { trivyArgs, trivyEnv } from '../../../src/core/scanner/trivy-args.js';
import {
  DEFAULT_TRIVY_CONFIG,
  parseScannerConfigFile,
  parseTrivySettings,
} from '../../../src/core/scanner/trivy-config.js';
import { judgeReport } from '../../../src/core/scanner/trivy-report.js';

const eraserConfig = (inner: string) =>
  `apiVersion: eraser.sh/v1alpha3\nkind: EraserConfig\ncomponents:\n  scanner:\n    enabled: true\n    config: |\n${inner
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n')}\n`;

describe('scanner contract: the image list', () => {
  it("reads Eraser's shape, drops empty arrays and ignores unknown keys", () => {
    const list = parseImageList(
      JSON.stringify([
        { image_id: 'sha256:aa', names: ['docker.io/a:1'], digests: ['docker.io/a@sha256:bb'], extra: 1 },
        { image_id: 'sha256:cc', names: [], digests: null },
      ]),
    );
    assert.deepEqual(list, [
      { image_id: 'sha256:aa', names: ['docker.io/a:1'], digests: ['docker.io/a@sha256:bb'] },
      { image_id: 'sha256:cc' },
    ]);
    assert.deepEqual(scanRefs(list[0]!), ['docker.io/a@sha256:bb', 'docker.io/a:1']);
  });

  it('refuses garbage with a reason', () => {
    for (const [text, re] of [
      ['not json', /not JSON/],
      ['{}', /not a JSON array/],
      ['[1]', /image 0 is not an object/],
      ['[{"names":["a"]}]', /no image_id/],
      ['[{"image_id":"x","names":"a"}]', /names is not an array of strings/],
      [JSON.stringify(Array.from({ length: MAX_IMAGES + 1 }, () => ({ image_id: 'x' }))), /more than/],
    ] as const) {
      assert.throws(() => parseImageList(text), re);
    }
  });

  it("answers in Eraser's shape with inv's extension under `inv`", () => {
    const text = serializeAnswer([
      {
        image_id: 'sha256:aa',
        names: ['a:1'],
        inv: { status: 'vulnerable', cveCount: 2, highestSeverity: 'CRITICAL', cves: ['CVE-1', 'CVE-2'] },
      },
      { image_id: 'sha256:bb', names: [], digests: [] },
    ]);
    assert.deepEqual(JSON.parse(text), [
      {
        image_id: 'sha256:aa',
        names: ['a:1'],
        inv: { status: 'vulnerable', cveCount: 2, highestSeverity: 'CRITICAL', cves: ['CVE-1', 'CVE-2'] },
      },
      { image_id: 'sha256:bb' },
    ]);
  });
});

describe('scanner contract: the Trivy settings', () => {
  it('defaults keep what cannot be judged (stricter than Eraser)', () => {
    const c = parseScannerConfigFile('apiVersion: eraser.sh/v1alpha3\nkind: EraserConfig\n');
    assert.equal(c.deleteFailedImages, false);
    assert.equal(c.deleteEOLImages, false);
    assert.equal(c.cacheDir, '/var/lib/trivy');
  });

  it("reads Eraser's keys from components.scanner.config, plus server and skipDBUpdate", () => {
    const c = parseScannerConfigFile(
      eraserConfig(
        [
          'cacheDir: /var/cache/trivy',
          'dbRepo: registry.local/trivy-db',
          'skipDBUpdate: true',
          'server: http://inv-trivy.image-inventory-system:4954',
          'deleteFailedImages: true',
          'vulnerabilities:',
          '  ignoreUnfixed: true',
          '  types: [os]',
          '  severities: [critical, HIGH]',
          '  ignoredStatuses: [will_not_fix]',
          'timeout:',
          '  total: 1h0m0s',
          '  perImage: 90s',
        ].join('\n'),
      ),
    );
    assert.deepEqual(c, {
      ...DEFAULT_TRIVY_CONFIG,
      cacheDir: '/var/cache/trivy',
      dbRepo: 'registry.local/trivy-db',
      skipDBUpdate: true,
      server: 'http://inv-trivy.image-inventory-system:4954',
      deleteFailedImages: true,
      ignoreUnfixed: true,
      types: ['os'],
      severities: ['CRITICAL', 'HIGH'],
      ignoredStatuses: ['will_not_fix'],
      totalMs: 3_600_000,
      perImageMs: 90_000,
    });
  });

  it('names unknown keys, wrong types and bad values (Eraser ignores them)', () => {
    for (const [yaml, re] of [
      ['cachedir: /x', /unknown key "cachedir"/],
      ['vulnerabilities: {severity: [HIGH]}', /unknown key "severity"/],
      ['vulnerabilities: {severities: [SEVERE]}', /"SEVERE" is not one of/],
      ['deleteFailedImages: "yes"', /must be true or false/],
      ['timeout: {total: "10"}', /has no unit/],
      ['timeout: {perImage: 10}', /must be a string/],
      ['server: file:///etc/passwd', /http\(s\) URL/],
      ['[1, 2]', /must be a mapping/],
    ] as const) {
      assert.throws(() => parseTrivySettings(yaml), re);
    }
    assert.throws(
      () => parseScannerConfigFile('components: {scanner: {config: {cacheDir: /x}}}'),
      /must be a YAML string/,
    );
  });
});

describe('scanner contract: the Trivy command line', () => {
  it("has Eraser's flags, containerd as the image source, and the DB kept local", () => {
    const args = trivyArgs({ ...DEFAULT_TRIVY_CONFIG, skipDBUpdate: true }, 'docker.io/a:1', 60_000);
    assert.deepEqual(args.slice(0, 2), ['image', '--format=json']);
    for (const f of [
      '--skip-db-update',
      '--offline-scan',
      '--skip-version-check',
      '--image-src',
      '--cache-backend',
    ]) {
      assert.ok(args.includes(f), f);
    }
    assert.equal(args[args.indexOf('--image-src') + 1], 'containerd');
    assert.equal(args[args.indexOf('--cache-backend') + 1], 'memory');
    assert.equal(args[args.indexOf('--timeout') + 1], '60000ms');
    assert.equal(args[args.indexOf('--severity') + 1], 'CRITICAL,HIGH,MEDIUM,LOW');
    assert.equal(args.at(-1), 'docker.io/a:1');
  });

  it('in client mode names the server and no DB flags', () => {
    const args = trivyArgs({ ...DEFAULT_TRIVY_CONFIG, server: 'http://s:4954' }, 'a:1', 1000);
    assert.equal(args[args.indexOf('--server') + 1], 'http://s:4954');
    assert.ok(
      !args.includes('--db-repository') &&
        !args.includes('--skip-db-update') &&
        !args.includes('--cache-backend'),
    );
  });

  it("passes containerd's socket and namespace, TRIVY_* and nothing else of the caller's", () => {
    const env = trivyEnv(
      { PATH: '/bin', TRIVY_TOKEN: 't', KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      '/run/cri/cri.sock',
    );
    assert.deepEqual(env, {
      PATH: '/bin',
      TRIVY_TOKEN: 't',
      CONTAINERD_ADDRESS: '/run/cri/cri.sock',
      CONTAINERD_NAMESPACE: 'k8s.io',
    });
  });
});

describe("scanner contract: the verdict from Trivy's report", () => {
  const report = (vulns: object[], eosl = false) =>
    JSON.stringify({
      SchemaVersion: 2,
      Metadata: { OS: { Family: 'debian', Name: '12', EOSL: eosl } },
      Results: [{ Target: 'x (debian 12)', Vulnerabilities: vulns }, { Target: 'lib' }],
    });

  it('counts distinct CVEs, names the highest severity and the most severe first', () => {
    const v = judgeReport(
      report([
        { VulnerabilityID: 'CVE-2099-0003', Severity: 'MEDIUM' },
        { VulnerabilityID: 'CVE-2099-0002', Severity: 'HIGH' },
        { VulnerabilityID: 'CVE-2099-0001', Severity: 'CRITICAL' },
        { VulnerabilityID: 'CVE-2099-0002', Severity: 'HIGH' },
      ]),
      false,
    );
    assert.deepEqual(v, {
      status: 'vulnerable',
      cveCount: 3,
      highestSeverity: 'CRITICAL',
      cves: ['CVE-2099-0001', 'CVE-2099-0002', 'CVE-2099-0003'],
    });
  });

  it('keeps at most 5 ids', () => {
    const many = Array.from({ length: 9 }, (_, i) => ({
      VulnerabilityID: `CVE-2099-000${i}`,
      Severity: 'LOW',
    }));
    const v = judgeReport(report(many), false);
    assert.equal(v.status === 'vulnerable' && v.cves?.length, 5);
  });

  it('is ok without vulnerabilities; end of life counts only when asked', () => {
    assert.deepEqual(judgeReport(report([]), false), { status: 'ok' });
    assert.deepEqual(judgeReport(report([], true), false), { status: 'ok' });
    assert.deepEqual(judgeReport(report([], true), true), { status: 'eol', cveCount: 0 });
  });

  it('throws on output that is not a report', () => {
    assert.throws(() => judgeReport('garbage', false), /not JSON/);
    assert.throws(() => judgeReport('[]', false), /not a report/);
    assert.throws(() => judgeReport('{"Results": {}}', false), /not a list/);
  });
});
