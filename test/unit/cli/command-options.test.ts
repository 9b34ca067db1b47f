// Every command reports all its bad flags at once (kubectl's Options shape: complete, then
// validate, then run): the pure options modules of scan, images, install and erase status
// each name every problem of a command line with several, before any request.
import assert from 'node:assert/strict';
import { completeScanOptions } from '../../../src/cli/scan/scan-options.js';
import { completeImagesOptions } from '../../../src/cli/images/images-options.js';
import { completeInstallOptions } from '../../../src/cli/install/install-options.js';
import { completeStatusOptions } from '../../../src/cli/erase/status-options.js';

const scanFlags = {
  'dry-run': false,
  'max-input-size': '256Mi',
  concurrency: 4,
  output: 'table',
};

describe('command options: every problem at once', () => {
  it('inv scan: bad namespaces, selector, --sort-by, -f with two namespaces and a bad size', () => {
    const { problems } = completeScanOptions({
      ...scanFlags,
      namespace: ['Bad_NS', 'ok', 'also bad'],
      selector: 'app in (',
      'sort-by': '{.a',
      filename: 'x.yaml',
      'max-input-size': 'lots',
    });
    assert.equal(problems.length, 6, problems.join('\n'));
    assert.match(problems[0]!, /^invalid namespace "Bad_NS"/);
    assert.match(problems[1]!, /^invalid namespace "also bad"/);
    assert.match(problems[2]!, /^--selector "app in \(":/);
    assert.match(problems[3]!, /^--sort-by:/);
    assert.match(problems[4]!, /at most one --namespace/);
    assert.match(problems[5]!, /^--max-input-size "lots":/);
  });

  it('inv scan: good flags complete into options; the size is read only with -f', () => {
    const cluster = completeScanOptions({ ...scanFlags, namespace: ['shop'], 'max-input-size': 'lots' });
    assert.deepEqual(cluster.problems, []);
    assert.deepEqual(cluster.options.namespaces, ['shop']);
    assert.equal(cluster.options.filename, undefined);
    const offline = completeScanOptions({ ...scanFlags, filename: '-', 'max-input-size': '1Mi' });
    assert.deepEqual(offline.problems, []);
    assert.equal(offline.options.maxInputBytes, 1024 * 1024);
  });

  it('inv images: bad namespace, image glob, registry and --sort-by together', () => {
    const { problems, options } = completeImagesOptions({
      namespace: ['NOPE'],
      image: 'two words',
      registry: 'not a host',
      by: 'image',
      'max-input-size': '256Mi',
      output: 'table',
      'sort-by': '{}',
    });
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.match(problems.join('\n'), /--image "two words"/);
    assert.match(problems.join('\n'), /--registry "not a host": not a registry host/);
    assert.equal(options.filters.registry, undefined);
  });

  it('inv images: a registry is matched lower-cased, the sort path is checked once', () => {
    const { problems, options } = completeImagesOptions({
      registry: 'Docker.IO',
      by: 'registry',
      'max-input-size': '256Mi',
      output: 'json',
      'sort-by': 'userCount',
    });
    assert.deepEqual(problems, []);
    assert.equal(options.filters.registry, 'docker.io');
    assert.equal(options.sortPath, '.userCount');
  });

  it('inv install: a bad --timeout and a bad --image are both named', () => {
    const { problems } = completeInstallOptions({
      daemon: true,
      image: 'not an image',
      'force-conflicts': false,
      timeout: '60',
    });
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0]!, /--timeout/);
    assert.match(problems[1]!, /--image "not an image": not an image reference/);
  });

  it('inv install: --image-pull-secret is repeatable, de-duplicated, and each name checked', () => {
    const ok = completeInstallOptions({
      daemon: true,
      image: 'reg.example/inv:1',
      'image-pull-secret': ['regcred', 'other.one', 'regcred'],
      'force-conflicts': false,
      timeout: '60s',
    });
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(ok.options.imagePullSecrets, ['regcred', 'other.one']);
    assert.deepEqual(
      completeInstallOptions({ daemon: true, 'force-conflicts': false, timeout: '60s' }).options
        .imagePullSecrets,
      [],
    );
    const bad = completeInstallOptions({
      daemon: true,
      'image-pull-secret': ['RegCred'],
      'force-conflicts': false,
      timeout: '60s',
    });
    assert.deepEqual(bad.problems, [
      '--image-pull-secret "RegCred": not a Secret name (lowercase letters, digits, - and .)',
    ]);
  });

  it('inv erase status: timeout, job selection, --standalone without --follow and --sort-by together', () => {
    const { problems } = completeStatusOptions('job-1', {
      name: 'list',
      follow: false,
      timeout: '0s',
      standalone: true,
      'workers-namespace': 'w',
      'config-namespace': 'c',
      output: 'table',
      'no-headers': false,
      'sort-by': '{',
    });
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.match(problems.join('\n'), /--timeout must be longer than 0s/);
    assert.match(problems.join('\n'), /add --follow/);
    assert.match(problems.join('\n'), /--sort-by:/);
  });
});
