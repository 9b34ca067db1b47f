// Pure: scan mode's pieces. The scanner's answer narrows the * candidates and never widens them;
// a bad answer is an error (the node then removes nothing); the administrator's scanners are the
// only source of what runs; the worker Pod and the scanner's --config follow Eraser's contract.
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { scanProblems } from '../../src/core/erase/api/vuln-scan.js';
import { ConfigError, DEFAULT_CONFIG, parseConfig } from '../../src/core/erase/config/config.js';
import { unknownScanner } from '../../src/core/erase/config/scanners.js';
import { workerPodSpec } from '../../src/core/erase/worker/pod-spec.js';
import { scannerConfigText } from '../../src/core/erase/worker/scanner-container.js';
import type { ImageJob } from '../../src/core/erase/api/types.js';
import {
  AnswerError,
  candidateList,
  narrow,
  parseAnswer,
} from '../../src/core/noderemove/vuln-scan/answer.js';
import type { Decision } from '../../src/core/noderemove/types.js';
import { completeErase, validateErase, type EraseFlags } from '../../src/cli/erase/options.js';
import { Registry } from 'prom-client';
import { createEraseMetrics } from '../../src/core/erase/metrics.js';
import { pendingResult, resultFromPod } from '../../src/core/erase/api/results.js';
import { terminationSummary } from '../../src/core/noderemove/summary.js';
import { podImages } from '../../src/core/erase/requester/report.js';
import { scannerExit, workerPhase, type PodLike } from '../../src/core/erase/imagejob/pod.js';
import { decodeNodes, encodeNodes, NODES_BUDGET } from '../../src/core/erase/api/node-status.js';

const id = (c: string) => `sha256:${c.repeat(64)}`;
const d = (
  c: string,
  action: 'remove' | 'keep',
  outcome: Decision['outcome'] = 'remove',
  detail = '',
): Decision => ({
  target: '*',
  imageId: id(c),
  aliases: [`docker.io/library/${c}:1`, `docker.io/library/${c}@sha256:${'f'.repeat(64)}`, id(c)],
  size: 10,
  action,
  outcome: action === 'remove' ? 'remove' : outcome,
  detail,
});
const policy = { deleteFailedImages: false, deleteEOLImages: false };

describe('scan mode (pure)', () => {
  it("hands over the candidates and the images in use, pinned or protected (never excluded or the sandbox), in Eraser's shape", () => {
    const list = candidateList([
      d('a', 'remove'),
      d('b', 'keep', 'in-use', 'container x'),
      d('a', 'remove'),
      d('c', 'keep', 'excluded', 'pattern'),
      d('e', 'keep', 'sandbox-image', 'pause'),
      d('f', 'keep', 'protected', 'Deployment web'),
    ]);
    const shape = (c: string) => ({
      image_id: id(c),
      names: [`docker.io/library/${c}:1`],
      digests: [`sha256:${'f'.repeat(64)}`],
    });
    assert.deepEqual(list, [shape('a'), shape('b'), shape('f')]);
  });

  it('reads an answer strictly: garbage, a non-list, an entry without image_id are errors', () => {
    for (const bad of ['', 'nope', '{}', '[1]', '[{"names":["x"]}]', '[{"image_id":""}]'])
      assert.throws(() => parseAnswer(bad), AnswerError, bad);
    assert.deepEqual(parseAnswer('[{"image_id":"x"}]'), [{ id: 'x', vuln: { status: 'vulnerable' } }]);
    const [e] = parseAnswer(
      JSON.stringify([
        {
          image_id: 'x',
          inv: {
            status: 'eol',
            cveCount: 7,
            highestSeverity: 'critical',
            cves: ['a', 'b', 'c', 'd', 'e', 'f', 1],
          },
        },
      ]),
    );
    assert.deepEqual(e!.vuln, {
      status: 'eol',
      cveCount: 7,
      highestSeverity: 'CRITICAL',
      cves: ['a', 'b', 'c', 'd', 'e'],
    });
  });

  it('narrows: named candidates go, others are clean, named kept images are vulnerable-kept, unknown names warn', () => {
    const ds = [
      d('a', 'remove'),
      d('b', 'remove'),
      d('c', 'keep', 'in-use', 'container x'),
      d('e', 'keep', 'protected', 'Deployment ns/app'),
    ];
    const answer = parseAnswer(
      JSON.stringify([
        { image_id: id('a') },
        { image_id: id('c') },
        { image_id: id('e') },
        { image_id: id('9') },
      ]),
    );
    const n = narrow(ds, answer, policy);
    assert.deepEqual(
      n.decisions.map((x) => [x.imageId.slice(7, 8), x.action, x.outcome]),
      [
        ['a', 'remove', 'remove'],
        ['b', 'keep', 'clean'],
        ['c', 'keep', 'vulnerable-kept'],
        ['e', 'keep', 'vulnerable-kept'],
      ],
    );
    assert.equal(n.decisions[2]!.detail, 'in-use: container x');
    assert.match(n.warnings[0]!, /named 1 image\(s\) this node does not have/);
  });

  it('scan-failed and end-of-life images go only when the policy says so', () => {
    const ds = [d('a', 'remove'), d('b', 'remove')];
    const answer = parseAnswer(
      JSON.stringify([
        { image_id: id('a'), inv: { status: 'scan-failed' } },
        { image_id: id('b'), inv: { status: 'eol' } },
      ]),
    );
    assert.deepEqual(
      narrow(ds, answer, policy).decisions.map((x) => x.outcome),
      ['scan-failed', 'clean'],
    );
    assert.deepEqual(
      narrow(ds, answer, { deleteFailedImages: true, deleteEOLImages: true }).decisions.map((x) => x.outcome),
      ['remove', 'remove'],
    );
  });

  it('spec.scan: known severities and types, images must be ["*"]', () => {
    assert.deepEqual(scanProblems({ scanner: 'trivy', severities: ['HIGH'] }, ['*']), []);
    const p = scanProblems({ scanner: 'Bad!', severities: ['SEVERE'], vulnerabilityTypes: ['kernel'] }, [
      'nginx:1',
    ]);
    assert.equal(p.length, 4, p.join('\n'));
  });

  it("the administrator's scanners: validated, unknown names refused with the list", () => {
    const cfg = parseConfig(
      'scanners:\n  trivy:\n    image: example/scanner:1\n    config: {cacheDir: /c, timeout: {total: 90s}}\n',
    );
    assert.equal(cfg.scanners!.trivy!.totalTimeoutSeconds, 90);
    assert.equal(cfg.scanners!.trivy!.runtimeName, 'containerd');
    assert.throws(() => parseConfig('scanners:\n  trivy:\n    image: a b\n'), ConfigError);
    assert.throws(() => parseConfig('scanners:\n  trivy:\n    image: x\n    command: [sh]\n'), /unknown key/);
    assert.throws(
      () => parseConfig('scanners:\n  trivy:\n    image: x\n    config: {timeout: {total: 5}}\n'),
      /no unit/,
    );
    assert.match(
      unknownScanner('custom', cfg.scanners!)!,
      /"custom" is not configured .*scanners: trivy\); nothing was removed/,
    );
    assert.equal(unknownScanner('trivy', cfg.scanners!), undefined);
    assert.equal(unknownScanner('constructor', {}) !== undefined, true);
  });

  it("the scanner's --config: an EraserConfig whose components.scanner.config is a YAML string, policy on top, deletes false", () => {
    const cfg = parseConfig(
      'scanners:\n  trivy:\n    image: s:1\n    config:\n      dbRepo: r\n      deleteFailedImages: true\n      vulnerabilities: {securityChecks: [vuln]}\n',
    );
    const text = scannerConfigText(cfg.scanners!.trivy!, {
      scanner: 'trivy',
      severities: ['CRITICAL'],
      ignoreUnfixed: true,
    });
    const doc = parse(text) as {
      components: { scanner: { config: string } };
      manager: { runtime: { name: string } };
    };
    assert.equal(doc.manager.runtime.name, 'containerd');
    assert.equal(typeof doc.components.scanner.config, 'string');
    assert.deepEqual(parse(doc.components.scanner.config), {
      dbRepo: 'r',
      deleteFailedImages: false,
      deleteEOLImages: false,
      vulnerabilities: { securityChecks: ['vuln'], ignoreUnfixed: true, severities: ['CRITICAL'] },
      timeout: { total: '30m' },
    });
  });

  it("the worker Pod in scan mode: the scanner container beside node-remove, Eraser's paths, the config verified by digest", () => {
    const cfg = parseConfig('scanners:\n  trivy:\n    image: s:1\n    env: [{name: A, value: b}]\n');
    const job = {
      metadata: { name: 'j', uid: 'u' },
      spec: {
        images: ['*'],
        namespace: 'ns',
        imageList: { name: 'l', uid: 'u', generation: 1 },
        config: DEFAULT_CONFIG,
        scan: { scanner: 'trivy' },
      },
      status: {
        inputs: [
          { role: 'images', name: 'j-images', sha256: 'a' },
          { role: 'exclude', name: 'j-exclude', sha256: 'b' },
          { role: 'scanner-config', name: 'j-scanner', sha256: 'c' },
        ],
      },
    } as unknown as ImageJob;
    const spec = workerPodSpec(job, {
      worker: cfg.worker,
      runtimeSocket: '/run/containerd/containerd.sock',
      scanners: cfg.scanners,
    }) as {
      activeDeadlineSeconds: number;
      containers: {
        name: string;
        image: string;
        args: string[];
        env: { name: string; value?: string }[];
        volumeMounts: { name: string; mountPath: string }[];
      }[];
      volumes: { name: string; emptyDir?: object; configMap?: { name: string } }[];
    };
    const [worker, scanner] = spec.containers;
    assert.equal(scanner!.name, 'scanner');
    assert.equal(scanner!.image, 's:1');
    assert.deepEqual(scanner!.args, ['--config=/run/inv/scanner/config.yaml']);
    assert.deepEqual(
      scanner!.volumeMounts
        .filter((m) => m.name !== 'scanner-cache' && m.name !== 'scanner-tmp')
        .map((m) => m.mountPath),
      ['/run/eraser.sh/shared-data', '/run/inv/scanner', '/run/cri/cri.sock'],
    );
    assert.deepEqual(
      scanner!.env.filter((e) => e.value !== undefined).map((e) => `${e.name}=${e.value}`),
      [
        'CONTAINERD_NAMESPACE=k8s.io',
        'ERASER_RUNTIME_NAME=containerd',
        'OTEL_SERVICE_NAME=trivy-scanner',
        'A=b',
      ],
    );
    assert.ok(
      worker!.args
        .join(' ')
        .includes(
          '--scan-dir /run/eraser.sh/shared-data --scan-timeout 1800s --scanner-config /run/inv/scanner/config.yaml --scanner-config-sha256 c',
        ),
    );
    assert.equal(spec.activeDeadlineSeconds, 1800 + 120);
    assert.deepEqual(
      spec.volumes.find((v) => v.name === 'shared-data'),
      { name: 'shared-data', emptyDir: {} },
    );
    assert.equal(spec.volumes.find((v) => v.name === 'scanner-config')?.configMap?.name, 'j-scanner');
    // A job whose scanner the administrator removed never gets a Pod.
    assert.throws(
      () => workerPodSpec(job, { worker: cfg.worker, runtimeSocket: '/x', scanners: {} }),
      /not configured/,
    );
  });

  it('inv erase --vulnerable: the * targets and spec.scan; policy flags need --vulnerable; bad values named', () => {
    const base = {
      'all-unused': false,
      yes: true,
      'protect-inventory': true,
      'dry-run': false,
      name: 'l',
      timeout: '1h',
      suspend: false,
      output: 'table',
    } as unknown as EraseFlags;
    const ok = completeErase({
      ...base,
      vulnerable: true,
      severity: 'critical,HIGH',
      'ignore-unfixed': true,
    });
    assert.deepEqual(ok.options.images, ['*']);
    assert.deepEqual(ok.options.scan, {
      scanner: 'trivy',
      severities: ['CRITICAL', 'HIGH'],
      ignoreUnfixed: true,
    });
    assert.deepEqual(validateErase(ok.options, ok.problems, false), []);
    const bad = completeErase({ ...base, vulnerable: true, severity: 'SEVERE', scanner: 'No!' });
    assert.deepEqual(
      validateErase(bad.options, bad.problems, false).map((p) => p.split(':')[0]),
      ['--scanner', '--severity'],
    );
    const stray = completeErase({ ...base, images: ['a:1'], severity: 'HIGH' });
    assert.deepEqual(validateErase(stray.options, stray.problems, false), ['--severity needs --vulnerable']);
  });

  it("the worker's summary carries the scan; the node result, the report rows and the metrics read it", async () => {
    const report = {
      node: 'n1',
      runtime: { name: 'containerd', version: '2', apiVersion: 'v1' },
      results: [
        {
          target: '*',
          imageId: id('a'),
          aliases: [],
          size: 5,
          outcome: 'removed' as const,
          error: '',
          detail: '',
          vuln: { status: 'vulnerable' as const, cveCount: 4, highestSeverity: 'CRITICAL', cves: ['CVE-1'] },
        },
        {
          target: '*',
          imageId: id('b'),
          aliases: [],
          size: 5,
          outcome: 'vulnerable-kept' as const,
          error: '',
          detail: 'in-use: container x',
          vuln: { status: 'vulnerable' as const },
        },
        {
          target: '*',
          imageId: id('c'),
          aliases: [],
          size: 5,
          outcome: 'clean' as const,
          error: '',
          detail: '',
        },
      ],
      scan: { candidates: 2, vulnerable: 1, kept: 1, cves: 4, highestSeverity: 'CRITICAL', ms: 2500 },
    };
    const message = terminationSummary(report);
    const r = resultFromPod('n1', { phase: 'Succeeded', message });
    assert.deepEqual(
      [r.outcome, r.removed, r.vulnerable, r.vulnerableKept, r.cves, r.highestSeverity, r.scanMs],
      ['Succeeded', 1, 1, 1, 4, 'CRITICAL', 2500],
    );
    const rows = podImages({
      metadata: { name: 'p' },
      status: { containerStatuses: [{ state: { terminated: { message } } }] },
    });
    assert.deepEqual(rows!.images[0]!.vulnerability, { cves: 4, severity: 'CRITICAL', ids: ['CVE-1'] });
    assert.deepEqual(rows!.images[1]!.vulnerability, { cves: null, severity: '', ids: [] });
    assert.equal(rows!.images[1]!.detail, 'in-use: container x');

    const registry = new Registry();
    const m = createEraseMetrics(registry);
    m.nodeScanned!(r, false);
    m.nodeScanned!(pendingResult('n2'), false); // not a scan: nothing counted
    const text = await registry.metrics();
    assert.match(text, /inv_erase_vulnerable_images_total\{result="removed"\} 1/);
    assert.match(text, /inv_erase_vulnerable_images_total\{result="kept"\} 1/);
    assert.match(text, /inv_erase_scan_duration_seconds_count 1/);
    assert.match(text, /inv_erase_scan_duration_seconds_bucket\{le="5"\} 1/);
  });

  it("the node's end is the worker container's; a scanner that exits with an error stops the wait after the grace", () => {
    const pod = (remover: object, scanner: object, phase = 'Running'): PodLike => ({
      status: {
        phase,
        containerStatuses: [
          { name: 'remover', state: remover },
          { name: 'scanner', state: scanner },
        ],
      },
    });
    const now = new Date('2026-01-01T00:00:10Z');
    assert.equal(workerPhase(pod({ running: {} }, { running: {} }), 'remover'), undefined);
    assert.equal(workerPhase(pod({ terminated: { exitCode: 0 } }, { running: {} }), 'remover'), 'Succeeded');
    // The scanner failing after the worker finished makes the Pod Failed, not the node.
    assert.equal(
      workerPhase(pod({ terminated: { exitCode: 0 } }, { terminated: { exitCode: 2 } }, 'Failed'), 'remover'),
      'Succeeded',
    );
    assert.equal(
      workerPhase(pod({ terminated: { exitCode: 1 } }, { terminated: { exitCode: 0 } }, 'Failed'), 'remover'),
      'Failed',
    );
    const crashed = pod(
      { running: {} },
      { terminated: { exitCode: 1, reason: 'Error', message: 'boom\n', finishedAt: '2026-01-01T00:00:05Z' } },
    );
    assert.deepEqual(scannerExit(crashed, 'scanner', now, 15), { retryInMs: 5000 });
    assert.match(
      (scannerExit(crashed, 'scanner', now, 3) as { reason: string }).reason,
      /^the scanner exited with code 1 \(Error: boom\) before the worker finished/,
    );
    assert.equal(
      scannerExit(pod({ running: {} }, { terminated: { exitCode: 0 } }), 'scanner', now, 3),
      undefined,
    );
  });

  it('scan results are stored in status.nodes, and 5,000 scanned nodes stay within the budget', () => {
    const r = {
      ...pendingResult('node-00001-abcdefghij'),
      outcome: 'Succeeded' as const,
      removed: 12,
      inUse: 30,
      excluded: 2,
      protected: 40,
      bytes: 123456789012,
      vulnerable: 12,
      vulnerableKept: 3,
      cves: 1234,
      highestSeverity: 'CRITICAL',
      scanMs: 123456,
    };
    assert.deepEqual(decodeNodes(encodeNodes([r])), [r]);
    const many = Array.from({ length: 5000 }, (_, i) => ({
      ...r,
      node: `node-${String(i).padStart(5, '0')}-abcdefghij`,
    }));
    const stored = encodeNodes(many);
    assert.ok(Buffer.byteLength(JSON.stringify(stored)) <= NODES_BUDGET);
    assert.equal(decodeNodes(stored)[0]!.vulnerable, 12, 'the count the totals are made of is kept');
  });
});
