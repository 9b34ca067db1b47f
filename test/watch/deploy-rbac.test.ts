// The daemon runs with nothing more than the install bundle's RBAC: the bundle (deploy/) is
// applied to the RBAC-enforcing API server, a token of its ServiceAccount is requested, and
// `inv watch --leader-elect` runs with that token, cluster-wide: it passes inv check, is denied
// what the ClusterRole does not grant, reconciles every kind, runs the erase controllers and
// releases its Lease on SIGTERM, with no request denied. The bundle's files: deploy.test.ts.
import { submitErase, waitForJob } from '../../src/core/erase-request/request.js';
import { connect, criEndpoint } from '../support/cri.js';
import { addImages } from '../support/oci.js';
import { createNodes, FakeKubelet } from '../erase/kubelet.js';
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeRest } from '../../src/core/kube/rest.js';
import { accessCheck, SCAN_ACCESS } from '../../src/core/check/checks.js';
import { setupEnv, template, podSpec, type Env } from '../inventory/helpers.js';
import { newNamespace } from '../support/kube.js';
import { applyBundle, SA, SYSTEM_NS, WORKERS_NS } from './deploy-helpers.js';
import {
  inventory,
  killDaemon,
  metric,
  sameInventory,
  scrape,
  spawnDaemon,
  until,
  type ChildDaemon,
} from './helpers.js';
import { serviceAccountToken, writeTokenKubeconfig } from '../support/service-account.js';

/**
 * A log line that reports a denied request: a 403 or "forbidden" in one of its text fields (a
 * JSON record's numbers, such as a rebuild's "ms":403, say nothing about permissions).
 */
function deniedLine(line: string): boolean {
  const texts: string[] = [];
  const walk = (v: unknown, key = ''): void => {
    if (typeof v === 'string') texts.push(v);
    else if (v === 403 && /^(status|code|statusCode)$/.test(key)) texts.push('403');
    else if (v && typeof v === 'object') Object.entries(v).forEach(([k, x]) => walk(x, k));
  };
  try {
    walk(JSON.parse(line));
  } catch {
    texts.push(line);
  }
  return texts.some((t) => /\b403\b|forbidden/i.test(t));
}

describe('deploy/ install bundle', function () {
  this.timeout(120_000);

  describe('the daemon with the ServiceAccount token (RBAC enforced)', () => {
    let env: Env;
    let ns: string;
    let saRest: KubeRest;
    let kubeconfig: string;
    let d: ChildDaemon | undefined;
    const lease = `inv-sa-test-${process.pid}`;

    before(async () => {
      env = await setupEnv();
      await applyBundle(env.rest);
      const token = await serviceAccountToken(env.rest, SYSTEM_NS, SA);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-sa-'));
      kubeconfig = writeTokenKubeconfig(env.kc, token, path.join(dir, 'kubeconfig'));
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kubeconfig);
      saRest = new KubeRest(kc);
      ns = await newNamespace('watch-rbac');
      const spec = (app: string, img: string) => ({
        selector: { matchLabels: { app } },
        template: template(app, [img]),
      });
      await env.apps.createNamespacedDeployment({
        namespace: ns,
        body: { metadata: { name: 'd' }, spec: spec('d', 'dep:1') },
      });
      await env.apps.createNamespacedStatefulSet({
        namespace: ns,
        body: { metadata: { name: 's' }, spec: { ...spec('s', 'sts:1'), serviceName: 's' } },
      });
      await env.apps.createNamespacedDaemonSet({
        namespace: ns,
        body: { metadata: { name: 'ds' }, spec: spec('ds', 'ds:1') },
      });
      await env.batch.createNamespacedCronJob({
        namespace: ns,
        body: {
          metadata: { name: 'cj' },
          spec: {
            schedule: '@daily',
            jobTemplate: { spec: { template: { spec: { ...podSpec(['cron:1']), restartPolicy: 'Never' } } } },
          },
        },
      });
      await env.batch.createNamespacedJob({
        namespace: ns,
        body: {
          metadata: { name: 'j' },
          spec: { template: { spec: { ...podSpec(['job:1']), restartPolicy: 'Never' } } },
        },
      });
      await env.core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'p' }, spec: podSpec(['pod:1', 'Bad Ref']) },
      });
    });

    after(async () => {
      if (d) await killDaemon(d);
      saRest?.close();
    });

    it("passes inv check's scan permissions: they are the verbs scan sends (patch, not update)", async () => {
      // The ClusterRole grants exactly what the inventory writes need; `inv check` must agree.
      const r = await accessCheck(saRest, 'scan', SCAN_ACCESS);
      assert.equal(r.status, 'pass', r.detail);
    });

    it('is denied what the ClusterRole does not grant', async () => {
      const can = async (attrs: Record<string, string>) =>
        (
          await saRest.request<{ status: { allowed: boolean } }>(
            'POST',
            '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
            {
              body: {
                apiVersion: 'authorization.k8s.io/v1',
                kind: 'SelfSubjectAccessReview',
                spec: { resourceAttributes: attrs },
              },
            },
          )
        ).status.allowed;
      assert.equal(await can({ verb: 'watch', resource: 'pods' }), true);
      assert.equal(
        await can({ verb: 'create', group: 'imageinventory.dev', resource: 'images', namespace: ns }),
        true,
      );
      assert.equal(
        await can({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: SYSTEM_NS }),
        true,
      );
      assert.equal(await can({ verb: 'get', resource: 'secrets', namespace: ns }), false);
      assert.equal(await can({ verb: 'get', resource: 'pods', namespace: ns }), false);
      assert.equal(await can({ verb: 'delete', resource: 'pods', namespace: ns }), false);
      assert.equal(
        await can({ verb: 'update', group: 'apps', resource: 'deployments', namespace: ns }),
        false,
      );
      assert.equal(
        await can({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: ns }),
        false,
      );
      assert.equal(await can({ verb: 'get', resource: 'events', namespace: ns }), false);
    });

    it('reconciles every kind, writes Events and holds the Lease, with no request denied', async () => {
      // Cluster-wide on the suite's shared API server, which holds every earlier file's
      // namespaces: paced at the default write rate, the first build of all of them takes longer
      // than this test waits (the pacing has its own tests: test/kube/rate-limit.test.ts).
      d = spawnDaemon([
        '--kubeconfig',
        kubeconfig,
        '--leader-elect',
        '--leader-elect-id',
        lease,
        '--kube-api-qps',
        '0',
      ]);
      await d.waitForLog('leadership', (r) => r.msg === 'became leader; starting controllers', 30_000);
      const want = {
        'docker.io/library/dep:1': 'Deployment',
        'docker.io/library/sts:1': 'StatefulSet',
        'docker.io/library/ds:1': 'DaemonSet',
        'docker.io/library/cron:1': 'CronJob',
        'docker.io/library/job:1': 'Job',
        'docker.io/library/pod:1': 'Pod',
      };
      await until(
        'Images of every kind',
        async () => sameInventory(await inventory(env.rest, ns), want),
        30_000,
      );
      assert.deepEqual(await inventory(env.rest, ns), want);
      // A change, then a deletion, through the watches.
      await env.apps.deleteNamespacedDaemonSet({ name: 'ds', namespace: ns });
      await until(
        'ds Image deleted',
        async () => !('docker.io/library/ds:1' in (await inventory(env.rest, ns))),
        10_000,
      );
      await until('InvalidImageRef Event', async () =>
        (await env.core.listNamespacedEvent({ namespace: ns })).items.some(
          (e) => e.reason === 'InvalidImageRef',
        ),
      );
      const leaseObj = await env.kc
        .makeApiClient(k8s.CoordinationV1Api)
        .readNamespacedLease({ name: lease, namespace: SYSTEM_NS });
      assert.ok(leaseObj.spec?.holderIdentity, 'Lease held');
      const text = await scrape(await d.metricsUrl);
      assert.equal(metric(text, 'inv_rebuilds_total', { result: 'error' }), 0);
      assert.equal(metric(text, 'inv_leader'), 1);
      const denied = d.lines.filter(deniedLine);
      assert.deepEqual(denied, [], 'no request was denied');
    });

    it('runs the erase controllers with the same token: an ImageJob completes on real containerd', async () => {
      assert.ok(d, 'the daemon from the previous test is running');
      const tag = `${process.pid}`;
      const [target] = await addImages([
        { refs: [`docker.io/library/rbac-erase-${tag}:1`], distinct: `rbac-${tag}` },
      ]);
      await createNodes(env.rest, [
        { name: `rbac-a-${tag}`, labels: { 'rbac-erase': tag } },
        { name: `rbac-b-${tag}`, labels: { 'rbac-erase': tag } },
      ]);
      // The kubelet harness plays the nodes: this checks the daemon's RBAC, which a real kubelet
      // would not change (erase on real kubelets: test/nodes/erase.test.ts).
      const kubelet = new FakeKubelet(env.rest, WORKERS_NS, criEndpoint()).start();
      try {
        const name = `rbac-${tag}`;
        const gen = await submitErase(env.rest, {
          name,
          images: [`rbac-erase-${tag}:1`],
          nodeSelector: `rbac-erase=${tag}`,
        });
        const { job } = await waitForJob(env.rest, name, gen, { pollMs: 100, timeoutMs: 60_000 });
        assert.equal(job?.status?.phase, 'Completed', job?.status?.message);
        assert.equal(job?.status?.succeeded, 2);
        const cri = await connect();
        try {
          assert.ok(
            !(await cri.listImages()).some((i) => i.id === target!.id),
            'image removed from containerd',
          );
        } finally {
          cri.close();
        }
        // Deleting the job: the narrowed role still deletes its worker objects and lets go of
        // the cleanup finalizer (patch), so the job is gone.
        await env.rest.request(
          'DELETE',
          `/apis/erase.imageinventory.dev/v1alpha1/imagejobs/${job!.metadata.name}`,
        );
        await until(
          'the ImageJob deleted through its finalizer',
          async () =>
            env.rest.get(`/apis/erase.imageinventory.dev/v1alpha1/imagejobs/${job!.metadata.name}`).then(
              () => false,
              (e: { code?: number }) => e.code === 404,
            ),
          30_000,
        );
        const left = await env.rest.list(`/api/v1/namespaces/${WORKERS_NS}/pods`, {
          query: { labelSelector: `erase.imageinventory.dev/job=${job!.metadata.name}` },
        });
        assert.equal(left.items.length, 0, 'its worker Pods are gone');
      } finally {
        await kubelet.stop();
      }
      assert.deepEqual(d!.lines.filter(deniedLine), [], 'no request of the erase controllers was denied');
    });

    it('exits cleanly on SIGTERM and releases the Lease', async () => {
      assert.ok(d, 'the daemon from the previous tests is running');
      // SIGTERM: clean exit, Lease released.
      d!.proc.kill('SIGTERM');
      const exit = await d!.exited;
      assert.equal(exit.code, 0, d!.lines.slice(-15).join('\n'));
      const released = await env.kc
        .makeApiClient(k8s.CoordinationV1Api)
        .readNamespacedLease({ name: lease, namespace: SYSTEM_NS });
      assert.ok(!released.spec?.holderIdentity, 'Lease released on shutdown');
      assert.deepEqual(d!.lines.filter(deniedLine), []);
    });
  });
});
