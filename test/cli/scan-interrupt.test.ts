// ^C during `inv scan -A` against the real API server: the namespaces whose Images are being
// written when SIGINT arrives are finished, no other namespace is started, and the command exits
// 130 saying how many namespaces were written. Every seeded namespace ends with all of its
// Images or none of them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { EXIT_INTERRUPTED } from '../../src/cli/process/exit-codes.js';
import { forEachConcurrent } from '../../src/core/concurrency.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { imagesPath } from '../../src/core/inventory/image-resource.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, kubeconfigPath } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';

const NAMESPACES = 200;
const IMAGES = 30;

describe('inv scan -A: ^C leaves no half-written namespace (real API server)', function () {
  this.timeout(90_000);
  let rest: KubeRest;
  const prefix = `sigint-${Date.now().toString(36)}`;
  const names = Array.from({ length: NAMESPACES }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

  before(async () => {
    rest = new KubeRest(adminConfig());
    await installCrds(rest);
    // One suspended CronJob per namespace with IMAGES containers, each its own image: a namespace
    // takes IMAGES Image creates, long enough for SIGINT to land while some are being written.
    // A CronJob rather than a Pod: a Pod would wait for the namespace's default ServiceAccount
    // (made by the controller-manager at its own pace, ~20 s for 100 namespaces).
    await forEachConcurrent(names, 16, async (ns) => {
      await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
      await rest.request('POST', `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
        body: {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'c' },
          spec: {
            schedule: '0 0 1 1 *',
            suspend: true,
            jobTemplate: {
              spec: {
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    containers: Array.from({ length: IMAGES }, (_, i) => ({
                      name: `c${i}`,
                      image: `registry.example/${ns}/app${i}:1`,
                    })),
                  },
                },
              },
            },
          },
        },
      });
    });
  });

  after(async () => {
    await forEachConcurrent(names, 16, async (ns) => {
      await rest.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    });
    rest.close();
  });

  const imageCounts = async (): Promise<number[]> => {
    const counts: number[] = [];
    await forEachConcurrent(names, 16, async (ns) => {
      counts.push((await rest.list(imagesPath(ns))).items.length);
    });
    return counts;
  };

  it('finishes the namespaces being written, starts no other, exits 130 with the count', async () => {
    const p = spawn(
      process.execPath,
      [path.join(repoRoot, 'bin', 'run.js'), 'scan', '-A', '-o', 'json', '--kubeconfig', kubeconfigPath()],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Read stdout too: on the suite's shared API server the JSON of every namespace outgrows a
    // pipe's buffer, and a child blocked writing it never gets to its exit.
    p.stdout.resume();
    const closed = new Promise<number | null>((r) => p.on('close', (c) => r(c)));
    // SIGINT once the first seeded namespace has an Image (the scan is writing).
    for (let i = 0; ; i++) {
      assert.ok(i < 600, 'no Image appeared within 30 s');
      const first = await rest.list(imagesPath(names[0]!));
      if (first.items.length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    p.kill('SIGINT');
    const code = await closed;
    assert.equal(code, EXIT_INTERRUPTED, `exit ${code}: ${stderr}`);
    const counts = await imageCounts();
    const complete = counts.filter((c) => c === IMAGES).length;
    assert.deepEqual(
      counts.filter((c) => c !== 0 && c !== IMAGES),
      [],
      'a namespace has only part of its Images',
    );
    assert.ok(complete >= 1, 'the namespace being written when ^C came was finished');
    assert.match(stderr, /^interrupted: finishing the namespaces being written/m);
    const m = /^(\d+) of (\d+) namespaces written; the other (\d+) were not touched$/m.exec(stderr);
    assert.ok(m, stderr);
    assert.ok(complete < NAMESPACES, 'the scan stopped before the last namespace');
    // The count covers every namespace of the cluster (other tests' too); ours are among them.
    assert.ok(Number(m[1]) >= complete, `${m[1]} written, ${complete} of ours complete`);
    assert.equal(Number(m[1]) + Number(m[3]), Number(m[2]));
  });

  it('a second ^C exits at once, without waiting for the namespaces being written', async () => {
    // The first case left most namespaces untouched: this scan writes them.
    const before = (await rest.list(imagesPath())).items.length;
    const p = spawn(
      process.execPath,
      [path.join(repoRoot, 'bin', 'run.js'), 'scan', '-A', '-o', 'json', '--kubeconfig', kubeconfigPath()],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Read stdout too: on the suite's shared API server the JSON of every namespace outgrows a
    // pipe's buffer, and a child blocked writing it never gets to its exit.
    p.stdout.resume();
    const closed = new Promise<number | null>((r) => p.on('close', (c) => r(c)));
    for (let i = 0; ; i++) {
      assert.ok(i < 600, 'no new Image appeared within 30 s');
      if ((await rest.list(imagesPath())).items.length > before) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    p.kill('SIGINT');
    for (let i = 0; !/^interrupted/m.test(stderr); i++) {
      assert.ok(i < 200, 'no interrupted line within 10 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const sent = Date.now();
    p.kill('SIGINT');
    const code = await closed;
    assert.equal(code, EXIT_INTERRUPTED, `exit ${code}: ${stderr}`);
    assert.ok(Date.now() - sent < 1000, `exited ${Date.now() - sent} ms after the second ^C`);
  });
});
