// `inv check --nodes` runs its dry run under the ImageList name inv-check; it never overwrites
// or deletes an ImageList of that name that it did not create. Its own (labelled) leftover is
// run again, and ^C deletes the list it made (the real CLI, piped, on the real API server).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { EXIT_INTERRUPTED } from '../../src/cli/process/exit-codes.js';
import { CHECK_IMAGELIST, CHECK_LABEL, CHECK_LABEL_VALUE, nodesCheck } from '../../src/core/check/nodes.js';
import { microTime } from '../../src/core/controller/lease.js';
import { isNotFound } from '../../src/core/kube/rest.js';
import { repoRoot } from '../support/paths.js';
import { IMAGELISTS_PATH, type ImageList } from '../../src/core/erase/api/types.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, kubeconfigPath, newNamespace } from '../support/kube.js';

describe('inv check --nodes and an existing inv-check ImageList (real API server)', () => {
  it('refuses, says how to go on, and leaves the list exactly as it was', async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    const path = `${IMAGELISTS_PATH}/${CHECK_IMAGELIST}`;
    const mine = await rest.request<ImageList>('POST', IMAGELISTS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageList',
        metadata: { name: CHECK_IMAGELIST },
        spec: { images: ['docker.io/library/someone-elses:1'] },
      },
    });
    try {
      const r = await nodesCheck(rest, { ready: true, timeoutMs: 10_000 });
      assert.equal(r.length, 1);
      assert.equal(r[0]!.status, 'fail');
      assert.match(r[0]!.detail ?? '', /an ImageList named inv-check already exists/);
      assert.match(r[0]!.hint ?? '', /kubectl delete imagelist inv-check/);
      const after = await rest.get<ImageList>(path);
      assert.equal(after.metadata.uid, mine.metadata.uid);
      assert.equal(after.metadata.resourceVersion, mine.metadata.resourceVersion, 'not written');
    } finally {
      await rest.request('DELETE', path).catch(() => undefined);
      rest.close();
    }
  });
});

describe('inv check --nodes: its own leftover and ^C (real API server, the CLI piped)', function () {
  this.timeout(60_000);
  it('runs its own leftover list again, and ^C deletes the list it made', async () => {
    const rest = new KubeRest(adminConfig());
    const listPath = `${IMAGELISTS_PATH}/${CHECK_IMAGELIST}`;
    try {
      await installCrds(rest);
      // Everything the checks before --nodes look at, passing: a live daemon Lease, the
      // workers' namespace at the privileged level, a configuration that parses.
      const [daemonNs, workers, configNs] = await Promise.all([
        newNamespace('chk-daemon'),
        newNamespace('chk-workers'),
        newNamespace('chk-config'),
      ]);
      await rest.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${daemonNs}/leases`, {
        body: {
          metadata: { name: 'ctl' },
          spec: {
            holderIdentity: 'a-test-daemon',
            leaseDurationSeconds: 3600,
            renewTime: microTime(Date.now()),
          },
        },
      });
      await rest.request('PATCH', `/api/v1/namespaces/${workers}`, {
        contentType: 'application/merge-patch+json',
        body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } },
      });
      await rest.request('POST', `/api/v1/namespaces/${configNs}/configmaps`, {
        body: { metadata: { name: 'inv-erase-config' }, data: { 'config.yaml': '{}\n' } },
      });
      // A leftover of a check that was killed (no cleanup): labelled as the check's own.
      const leftover = await rest.request<ImageList>('POST', IMAGELISTS_PATH, {
        body: {
          apiVersion: 'erase.imageinventory.dev/v1alpha1',
          kind: 'ImageList',
          metadata: { name: CHECK_IMAGELIST, labels: { [CHECK_LABEL]: CHECK_LABEL_VALUE } },
          spec: { images: ['*'], dryRun: true, request: 'killed-run' },
        },
      });
      const child = spawn(
        process.execPath,
        [
          path.join(repoRoot, 'bin', 'run.js'),
          'check',
          '--nodes',
          '--kubeconfig',
          kubeconfigPath(),
          '--daemon-namespace',
          daemonNs,
          '--leader-elect-id',
          'ctl',
          '--erase-namespace',
          workers,
          '--erase-config-namespace',
          configNs,
        ],
        { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.stdout.resume();
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      // The rerun takes the leftover over: a new request on the same (still labelled) list.
      for (const deadline = Date.now() + 30_000; ;) {
        const cur = await rest.get<ImageList>(listPath);
        if (cur.spec.request !== 'killed-run') {
          assert.equal(cur.metadata.uid, leftover.metadata.uid);
          assert.equal(cur.metadata.labels?.[CHECK_LABEL], CHECK_LABEL_VALUE);
          break;
        }
        if (Date.now() > deadline) throw new Error(`the check never ran its leftover again:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill('SIGINT');
      assert.equal(await exited, EXIT_INTERRUPTED, stderr);
      assert.match(stderr, /^interrupted: removing imagelist\/inv-check$/m);
      // Deleted (foreground: it may still wait for the garbage collector to drop its job).
      const after = await rest.get<ImageList>(listPath).catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      assert.ok(!after || after.metadata.deletionTimestamp, 'the list is deleted');
    } finally {
      await rest.request('DELETE', listPath).catch(() => undefined);
      rest.close();
    }
  });
});
