// Retries. A transport error while starting a job (the API server unreachable for a moment, a reset) is
// retried, never recorded as a rejected request: the list's generation stays startable. Worker
// Pods the API refuses (admission) are retried with exponential backoff, not every 2 s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';
import { EraseEnv } from './helpers.js';
import { ImageListController } from '../../src/core/erase/imagelist-controller.js';
import {
  IMAGEJOBS_PATH,
  IMAGELISTS_PATH,
  type ImageJob,
  type ImageList,
} from '../../src/core/erase/api/types.js';
import type { EraseConfig } from '../../src/core/erase/config/config.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest, KubeTransportError } from '../../src/core/kube/rest.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { denyInNamespace } from '../support/servers/admission.js';
import { waitFor } from '../support/cri.js';
import { envFlags } from './cli/cli-helpers.js';

class FlakyConfig extends ImageListController {
  failures = 1;
  override loadConfig(): Promise<EraseConfig> {
    if (this.failures-- > 0)
      return Promise.reject(
        new KubeTransportError(
          'GET /api/v1/namespaces/x/configmaps: socket hang up',
          'GET',
          '/x',
          'ECONNRESET',
        ),
      );
    return super.loadConfig();
  }
}

describe('erase: a transient error never rejects a request (real API server)', () => {
  it('is thrown for the work queue to retry, and the next attempt starts the job', async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    // A CRD just installed can answer 429 while its storage initializes.
    await waitFor('ImageJobs served', () =>
      rest.list(IMAGEJOBS_PATH).then(
        () => true,
        () => false,
      ),
    );
    const ns = await newNamespace('transient');
    const name = `transient-${ns}`;
    await rest.request('POST', IMAGELISTS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageList',
        metadata: { name },
        spec: { images: ['docker.io/library/nothing:1'] },
      },
    });
    await rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: { metadata: { name: 'inv-erase-config' }, data: { 'config.yaml': '' } },
    });
    const c = new FlakyConfig({ rest, namespace: ns, configNamespace: ns });
    await assert.rejects(c.reconcile(name), KubeTransportError);
    let list = await rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
    assert.notEqual(list.status?.phase, 'Error', 'not recorded as a rejected request');
    await c.reconcile(name);
    list = await rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
    // Accepted: its job exists, not started yet (no ImageJob controller runs here).
    assert.equal(list.status?.phase, 'Queued', list.status?.message);
    assert.ok(list.status?.lastJob);
    await rest.request('DELETE', `${IMAGELISTS_PATH}/${name}`);
    rest.close();
  });
});

describe('erase: refused worker Pods are retried with backoff (real API server)', function () {
  this.timeout(60_000);
  let env: EraseEnv;
  const policy = `deny-workers-${Math.random().toString(36).slice(2, 8)}`;
  let cleanup: (() => Promise<void>) | undefined;
  before(async () => {
    env = await new EraseEnv().setup();
  });
  after(async () => {
    await cleanup?.();
    await env.teardown();
  });

  it('spaces the failing creates out exponentially and says why in the job status', async () => {
    cleanup = await denyInNamespace(env.kc, {
      name: policy,
      namespace: env.namespace,
      rule: { apiGroups: [''], operations: ['CREATE'], resources: ['pods'] },
      expression: 'false',
      message: 'worker Pods refused by test policy',
      probe: () =>
        env.rest.request('POST', `/api/v1/namespaces/${env.namespace}/pods`, {
          query: { dryRun: 'All' },
          body: { metadata: { name: 'probe' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        }),
    });
    await env.nodes([{ name: 'n' }]);
    const controllers = env.startControllers();
    const posts: number[] = [];
    controllers.rest.onRequest = (m, p) => {
      if (m === 'POST' && p.endsWith('/pods')) posts.push(Date.now());
    };
    const name = `refused-${env.tag}`;
    await env.erase({ name, images: ['docker.io/library/nothing:1'] });
    await waitFor('eight refused attempts', async () => posts.length >= 8, 30_000, 50);
    const gaps = posts.slice(1).map((t, i) => t - posts[i]!);
    // Exponential: each retry waits about twice as long as the one before (a fixed 2 s retry
    // would show gaps of 2 s, flat).
    const n = gaps.length;
    assert.ok(gaps[n - 1]! >= 2 * gaps[n - 3]! && gaps[n - 1]! < 2000, `gaps ${gaps.join(', ')} ms`);
    const job = (await env.rest.list<ImageJob>(IMAGEJOBS_PATH)).items.find(
      (j) => j.spec.imageList.name === name,
    );
    assert.match(job?.status?.message ?? '', /could not be created, first: .*refused by test policy/);
    assert.equal(job?.status?.phase, 'Running', 'still running: retried until its deadline');
  });

  it('inv erase --standalone says why on stderr instead of hiding behind the spinner', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          path.join(repoRoot, 'bin', 'run.js'),
          'erase',
          '--images',
          'docker.io/library/nothing:1',
          '--node-selector',
          `erase-test=${env.tag}`,
          ...envFlags(env),
          '--name',
          `standalone-${env.tag}`,
          '--standalone',
          '--timeout',
          '5s',
          '-o',
          'json',
        ],
        { env: { ...process.env, NO_COLOR: '1' } },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^warning: imagejob reconcile failed .*refused by test policy/m);
  });
});
