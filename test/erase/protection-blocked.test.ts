// A `*` prune whose protected set cannot be complete names the namespace that blocks it, on the
// real API server: one tenant's Deployment larger than the client takes in one response (600 KB
// through a 512 KiB limit, as 1.3 MB through the daemon's 32 MiB would be at scale) fails
// the cluster-wide LIST (even at a page of one object); the prune still waits (fail closed), and
// the job's message says whose Deployment and why, where it used to say only that a LIST failed.
import assert from 'node:assert/strict';
import { ImageJobController } from '../../src/core/erase/imagejob-controller.js';
import { ImageListController } from '../../src/core/erase/imagelist-controller.js';
import { ScanProtection } from '../../src/core/erase/worker/inventory-protection.js';
import { IMAGEJOBS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import { adminConfig } from '../support/kube.js';
import { EraseEnv, eraseEnvPerTest } from './helpers.js';
import { waitFor } from '../support/cri.js';

describe('erase: a * prune names the namespace that blocks its protected set', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  eraseEnvPerTest((e) => (env = e));
  const cleanup: string[] = [];
  after(async () => {
    const rest = new KubeRest(adminConfig());
    for (const ns of cleanup) await rest.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    rest.close();
  });

  it('waits, naming the tenant whose Deployment cannot be read and why', async () => {
    await env.nodes([{ name: 'a' }]);
    // Named to sort first: the message names the first three blocking namespaces by name.
    const tenant = `aa-tenant-${env.tag}`;
    const other = `other-${env.tag}`;
    cleanup.push(tenant, other);
    for (const ns of [tenant, other]) await ensureNamespace(env.rest, ns);
    const deployment = (name: string, annotations: Record<string, string> = {}) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, annotations },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'c', image: `registry.example/${name}:1` }] },
        },
      },
    });
    // 600 KB: 250 KB of annotations (as `kubectl apply` leaves on a large manifest; 256 KiB is
    // the most the API server takes) and 350 KB of environment in the template.
    const big = deployment('big', { 'example.com/last-applied': 'x'.repeat(250_000) });
    (big.spec.template.spec.containers[0] as Record<string, unknown>).env = [
      { name: 'BLOB', value: 'y'.repeat(350_000) },
    ];
    await env.rest.request('POST', `/apis/apps/v1/namespaces/${tenant}/deployments`, { body: big });
    await env.rest.request('POST', `/apis/apps/v1/namespaces/${other}/deployments`, {
      body: deployment('web'),
    });

    // A client that takes at most 512 KiB in one response.
    const small = new KubeRest(adminConfig(), { maxResponseBytes: 512 * 1024 });
    try {
      const protection = new ScanProtection(small);
      await env.erase({ name: `all-${env.tag}`, images: ['*'] });
      const lists = new ImageListController({
        rest: env.rest,
        namespace: env.namespace,
        configNamespace: env.namespace,
      });
      // (Just installed, the CRDs' storage may answer 429 for a moment.)
      await waitFor('the list reconciled', () =>
        lists.reconcile(`all-${env.tag}`).then(
          () => true,
          () => false,
        ),
      );
      let name = '';
      await waitFor('the job made', async () => {
        const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH).catch(() => undefined);
        name = jobs?.items.find((j) => j.spec.imageList.name === `all-${env.tag}`)?.metadata.name ?? '';
        return name !== '';
      });
      const ctl = new ImageJobController({
        rest: env.rest,
        namespace: env.namespace,
        configNamespace: env.namespace,
        protection,
      });
      const r = await ctl.reconcile(name);
      assert.ok(r.requeueAfter !== undefined, 'it looks again');
      const job = (await env.job(name))!;
      assert.equal(job.status?.planned, undefined, 'not planned: nothing runs without the full set');
      const msg = job.status?.message ?? '';
      assert.match(
        msg,
        /^waiting for the inventory \(a fresh scan of the cluster\) to protect referenced images: /,
      );
      assert.match(msg, new RegExp(`the Deployment objects of namespace ${tenant} \\(.*larger than`), msg);
      assert.ok(!msg.includes(`namespace ${other}`), msg);
    } finally {
      small.close();
    }
  });
});
