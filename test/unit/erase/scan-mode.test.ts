// Pure: scan mode's request and configuration. spec.scan and `inv erase --vulnerable` are
// validated; the administrator's scanners are the only source of what runs; the worker Pod and the
// scanner's --config follow Eraser's contract. The node's side is in scan-answer.test.ts, what a
// scan's results become in scan-results.test.ts.
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { scanProblems } from '../../../src/core/erase/spec/vuln-scan.js';
import { ConfigError, DEFAULT_CONFIG, parseConfig } from '../../../src/core/erase/config/config.js';
import { unknownScanner } from '../../../src/core/erase/config/scanners.js';
import { workerPodSpec } from '../../../src/core/erase/worker/pod-spec.js';
import {
  scannerConfigText,
  scannerContainer,
  scanVolumes,
} from '../../../src/core/erase/worker/scanner-container.js';
import { parseTrivySettings } from '../../../src/core/scanner/trivy-config.js';
import type { ImageJob } from '../../../src/core/erase/api/types.js';
import { completeErase, validateErase, type EraseFlags } from '../../../src/cli/erase/erase-options.js';

describe('scan mode (pure)', () => {
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

  it("CRI-O: the administrator's store path mounted read-only in the scanner, with only the capability to read", () => {
    const cfg = parseConfig('scanners:\n  trivy:\n    image: s:1\n    runtimeName: crio\n');
    const crio = cfg.scanners!.trivy!;
    assert.equal(crio.storageHostPath, '/var/lib/containers/storage');
    const other = parseConfig(
      'scanners:\n  trivy:\n    image: s:1\n    runtimeName: crio\n    storageHostPath: /data/crio\n',
    );
    assert.equal(other.scanners!.trivy!.storageHostPath, '/data/crio');
    assert.throws(
      () => parseConfig('scanners:\n  trivy:\n    image: s:1\n    storageHostPath: /data/crio\n'),
      /storageHostPath: only for runtimeName: crio/,
    );
    assert.throws(
      () =>
        parseConfig('scanners:\n  trivy:\n    image: s:1\n    runtimeName: crio\n    storageHostPath: rel\n'),
      /must be an absolute host path/,
    );
    const c = scannerContainer('trivy', crio) as {
      volumeMounts: { name: string; mountPath: string; readOnly?: boolean; mountPropagation?: string }[];
      securityContext: { capabilities: unknown; readOnlyRootFilesystem: boolean };
    };
    assert.deepEqual(
      c.volumeMounts.find((m) => m.name === 'crio-storage'),
      {
        name: 'crio-storage',
        mountPath: '/run/inv/crio-storage',
        readOnly: true,
        mountPropagation: 'HostToContainer',
      },
    );
    assert.deepEqual(c.securityContext.capabilities, { drop: ['ALL'], add: ['DAC_READ_SEARCH'] });
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
    assert.deepEqual(
      scanVolumes('cm', crio).find((v) => v.name === 'crio-storage'),
      { name: 'crio-storage', hostPath: { path: '/var/lib/containers/storage', type: 'Directory' } },
    );
    // containerd: no store, no capability.
    const plain = parseConfig('scanners:\n  trivy:\n    image: s:1\n').scanners!.trivy!;
    const p = scannerContainer('trivy', plain) as {
      volumeMounts: { name: string }[];
      securityContext: { capabilities: unknown };
    };
    assert.ok(!p.volumeMounts.some((m) => m.name === 'crio-storage'));
    assert.deepEqual(p.securityContext.capabilities, { drop: ['ALL'] });
    assert.ok(!scanVolumes('cm', plain).some((v) => v.name === 'crio-storage'));
    // The scanner's own per-image byte bound.
    assert.equal(parseTrivySettings('').maxImageBytes, 20 * 1024 ** 3);
    assert.equal(parseTrivySettings('maxImageSize: 2Gi').maxImageBytes, 2 * 1024 ** 3);
    assert.throws(() => parseTrivySettings('maxImageSize: lots'), /maxImageSize: not a size/);
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
});
