// One tenant's object that a conversion webhook refuses, in a declared kind, against the daemon
// running with the install bundle's ServiceAccount and ClusterRole (deploy/) on the real API
// server. The kind's cluster-wide LIST fails, and the API server's watch cache of that version
// cannot start, so the daemon's cache of the kind freezes. Then:
//   1. the per-namespace fallback runs with the shipped RBAC (list namespaces): the tenant's
//      namespace is logged and in the metrics by kind and namespace, `inv check` verifies the
//      daemon's rights, and /readyz says why it is not ready;
//   2. a `*` prune does not plan from the frozen cache (a workload changed since to a new
//      image): it waits, naming the namespace and the kind;
//   3. the kind is not listed one namespace at a time again at once (backoff on its own clock),
//      and the prune fails at the administrator's protectionWait with the reason.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { submitErase } from '../../src/core/erase-request/request.js';
import { IMAGEJOBS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';
import { daemonAccessCheck } from '../../src/core/check/daemon-access.js';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { conversionWebhook, POISON } from '../support/servers/conversion-webhook.js';
import { setupEnv, type Env } from '../inventory/helpers.js';
import { newNamespace } from '../support/kube.js';
import { applyBundle, bundle, SA, SYSTEM_NS } from './deploy-helpers.js';
import { killDaemon, metric, scrape, spawnDaemon, until, type ChildDaemon } from './helpers.js';
import { serviceAccountToken, writeTokenKubeconfig } from '../support/service-account.js';

const GROUP = 'poison.example.com';
const KIND = `Gadget.${GROUP}`;

const gadget = (name: string, image: string, labels: Record<string, string> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Gadget',
  metadata: { name, labels },
  spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
});

describe('a poisoned declared kind under the shipped RBAC: the daemon says so, a * prune waits, then fails', function () {
  this.timeout(300_000);
  let env: Env;
  let hook: Awaited<ReturnType<typeof conversionWebhook>>;
  let d: ChildDaemon | undefined;
  let dir: string;
  let originalConfig: string | undefined;
  const tag = `${process.pid}`;
  const role = `inv-test-poison-${tag}`;
  const list = `poison-${tag}`;
  const v1 = (ns: string) => `/apis/${GROUP}/v1/namespaces/${ns}/gadgets`;
  const configPath = `/api/v1/namespaces/${SYSTEM_NS}/configmaps/inv-erase-config`;
  let shop = '';
  /** The administrator points shop's Gadget at another image. */
  const setImage = async (ns: string, image: string) => {
    const cur = await env.rest.get<{ metadata: { resourceVersion: string } }>(`${v1(ns)}/g`);
    const body = gadget('g', image);
    await env.rest.request('PUT', `${v1(ns)}/g`, {
      body: { ...body, metadata: { ...body.metadata, resourceVersion: cur.metadata.resourceVersion } },
    });
  };

  before(async () => {
    env = await setupEnv();
    await applyBundle(env.rest);
    hook = await conversionWebhook();
    await installCrds(env.rest, [
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `gadgets.${GROUP}` },
        spec: {
          group: GROUP,
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
          versions: ['v1', 'v2'].map((name) => ({
            name,
            served: true,
            storage: name === 'v1',
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          })),
          conversion: {
            strategy: 'Webhook',
            webhook: {
              conversionReviewVersions: ['v1'],
              clientConfig: { url: hook.url, caBundle: Buffer.from(hook.ca).toString('base64') },
            },
          },
        },
      } as never,
    ]);
    // What `inv install --daemon --source-kinds` grants on a declared kind.
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await env.rest.request('POST', `${rbac}/clusterroles`, {
      body: {
        metadata: { name: role },
        rules: [{ apiGroups: [GROUP], resources: ['gadgets'], verbs: ['list', 'watch'] }],
      },
    });
    await env.rest.request('POST', `${rbac}/clusterrolebindings`, {
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: SA, namespace: SYSTEM_NS }],
      },
    });
    // The administrator's bound on a blocked prune, short for the test.
    const cm = await env.rest.get<{ data: Record<string, string> }>(configPath);
    originalConfig = cm.data['config.yaml'];
    await env.rest.request('PATCH', configPath, {
      body: { data: { 'config.yaml': `${originalConfig ?? ''}\nprotectionWait: 10s\n` } },
      contentType: 'application/merge-patch+json',
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-poison-'));
    fs.writeFileSync(
      path.join(dir, 'kinds.yaml'),
      `apiVersion: cli.imageinventory.dev/v1\nkind: SourceKinds\nkinds:\n  - {group: ${GROUP}, version: v2, kind: Gadget, plural: gadgets, podTemplates: [spec.template]}\n`,
    );
    const token = await serviceAccountToken(env.rest, SYSTEM_NS, SA);
    writeTokenKubeconfig(env.kc, token, path.join(dir, 'kubeconfig'));
    await until('v2 served through the webhook', () =>
      env.rest.list(`/apis/${GROUP}/v2/gadgets`).then(
        () => true,
        () => false,
      ),
    );
    shop = await newNamespace('poison-shop');
    await env.rest.request('POST', v1(shop), { body: gadget('g', 'example.com/gadget:1') });
  });

  after(async () => {
    if (d) await killDaemon(d);
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const del = (p: string) => env.rest.request('DELETE', p).catch(() => undefined);
    for (const l of [list, `${list}-2`]) await del(`/apis/erase.imageinventory.dev/v1alpha1/imagelists/${l}`);
    await del(`${rbac}/clusterrolebindings/${role}`);
    await del(`${rbac}/clusterroles/${role}`);
    await del(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${GROUP}`);
    if (originalConfig !== undefined)
      await env.rest
        .request('PATCH', configPath, {
          body: { data: { 'config.yaml': originalConfig } },
          contentType: 'application/merge-patch+json',
        })
        .catch(() => undefined);
    await hook?.close();
    env?.rest.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the namespace and kind everywhere, keeps * prunes off the frozen cache, and fails them at protectionWait', async () => {
    const tenant = await newNamespace('poison-tenant');
    d = spawnDaemon([
      '--kubeconfig',
      path.join(dir, 'kubeconfig'),
      '--source-kinds',
      path.join(dir, 'kinds.yaml'),
      '--leader-elect',
      '--leader-elect-id',
      `inv-poison-${tag}`,
      '--kube-api-qps',
      '0',
    ]);
    const health = String((await d.waitForLog('health server', (r) => r.msg === 'serving health')).url);
    await d.waitForLog('leadership', (r) => r.msg === 'became leader; starting controllers', 30_000);
    const images = async (ns: string) =>
      (await env.rest.list<ImageResource>(imagesPath(ns))).items.map((i) => i.spec?.image).sort();
    await until(
      'the Gadget of shop in the inventory',
      async () => (await images(shop)).includes('example.com/gadget:1'),
      30_000,
    );

    // The tenant's object, written in the stored version (v1): only reading it as v2 fails.
    await env.rest.request('POST', v1(tenant), {
      body: gadget('bad', 'example.com/tenant:1', { [POISON]: 'true' }),
    });
    // 1. The fallback runs with the shipped RBAC and says which namespace and kind.
    await d.waitForLog(
      'the per-namespace fallback',
      (r) =>
        r.msg === 'listed one namespace at a time: some namespaces cannot be read' &&
        JSON.stringify(r.unreadable).includes(tenant),
      60_000,
    );
    const url = await d.metricsUrl;
    await until('metrics name the namespace and kind', async () => {
      const text = await scrape(url);
      return metric(text, 'inv_unreadable_namespace', { kind: KIND, source_namespace: tenant }) === 1;
    });
    const access = await daemonAccessCheck(env.rest, SYSTEM_NS);
    assert.equal(access[0]?.status, 'pass', access[0]?.detail);

    // 2. An administrator changes a workload in another namespace to a new image: the frozen
    // cache cannot know; the * prune must not plan from it.
    await setImage(shop, 'example.com/gadget:2');
    await submitErase(env.rest, {
      name: list,
      images: ['*'],
      dryRun: true,
      nodeSelector: `poison-test=${tag}`,
    });
    let job: ImageJob | undefined;
    await until(
      'the prune waits, naming the namespace and kind',
      async () => {
        const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH);
        job = jobs.items.find((j) => j.spec.imageList.name === list);
        return /the Gadget objects of namespace /.test(job?.status?.message ?? '');
      },
      30_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}: ${job?.status?.phase} ${job?.status?.message}`);
    });
    assert.equal(job!.status?.planned, undefined, 'not planned from the frozen cache');
    assert.match(job!.status!.message!, /^waiting for the inventory \(a fresh scan of the cluster\)/);
    assert.ok(job!.status!.message!.includes(`namespace ${tenant} (`), job!.status!.message);

    // 3. Not listed one namespace at a time again at once; /readyz says why it is not ready.
    let ready = '';
    await until(
      '/readyz names the kind and when it is listed one namespace at a time again',
      async () => {
        const r = await fetch(`${health}/readyz`);
        ready = await r.text();
        return (
          r.status === 503 &&
          ready.includes(KIND) &&
          ready.includes('next listing one namespace at a time at')
        );
      },
      150_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}: ${ready}`);
    });
    const passes = d
      .records()
      .filter((r) => r.msg === 'listed one namespace at a time: some namespaces cannot be read');
    assert.equal(passes.length, 1, 'one pass, then backoff');
    const text = await scrape(url);
    assert.equal(metric(text, 'inv_informer_stale', { kind: KIND }), 1);

    await until(
      "the prune fails at the administrator's protectionWait, with the reason",
      async () => {
        job = await env.rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${job!.metadata.name}`);
        return job.status?.phase === 'Failed';
      },
      60_000,
    );
    assert.match(
      job!.status!.message!,
      /the Gadget objects of namespace .*gave up after 10s \(the administrator's protectionWait\), nothing was removed$/,
    );
  });
  it('without list namespaces (an older ClusterRole): a * prune does not plan from the frozen cache; inv check, /readyz, the log and a metric say why', async () => {
    if (d) await killDaemon(d);
    const roles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    type Role = { rules: { resources: string[] }[] };
    const shipped = bundle().find(
      (o) => o.kind === 'ClusterRole' && o.metadata.name === SA,
    )! as unknown as Role;
    await env.rest.request('PATCH', `${roles}/${SA}`, {
      body: { rules: shipped.rules.filter((r) => !r.resources.includes('namespaces')) },
      contentType: 'application/merge-patch+json',
    });
    try {
      await until('inv check fails the missing right', async () => {
        const r = (await daemonAccessCheck(env.rest, SYSTEM_NS))[0];
        return r?.status === 'fail' && r.detail?.includes('list namespaces');
      });
      // The first test's poisoned object goes, so that the daemon syncs before the next one.
      const bad = await env.rest.list<{ metadata: { name: string; namespace: string } }>(
        `/apis/${GROUP}/v1/gadgets`,
        {
          query: { labelSelector: POISON },
        },
      );
      for (const o of bad.items)
        await env.rest.request('DELETE', `${v1(o.metadata.namespace)}/${o.metadata.name}`);
      d = spawnDaemon([
        '--kubeconfig',
        path.join(dir, 'kubeconfig'),
        '--source-kinds',
        path.join(dir, 'kinds.yaml'),
        '--leader-elect',
        '--leader-elect-id',
        `inv-poison2-${tag}`,
        '--kube-api-qps',
        '0',
      ]);
      const health = String((await d.waitForLog('health server', (r) => r.msg === 'serving health')).url);
      await d.waitForLog('leadership', (r) => r.msg === 'became leader; starting controllers', 30_000);
      await until('synced and ready', async () => (await fetch(`${health}/readyz`)).status === 200, 30_000);
      const tenant = await newNamespace('poison-tenant2');
      await env.rest.request('POST', v1(tenant), {
        body: gadget('bad', 'example.com/tenant:1', { [POISON]: 'true' }),
      });
      let ready = '';
      await until(
        '/readyz says the kind cannot be listed one namespace at a time, and why',
        async () => {
          const r = await fetch(`${health}/readyz`);
          ready = await r.text();
          return (
            r.status === 503 &&
            ready.includes(KIND) &&
            /listing the namespaces failed: .*forbidden/i.test(ready)
          );
        },
        90_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}: ${ready}`);
      });
      await d.waitForLog('the log says so', (r) =>
        /cannot be listed one namespace at a time: listing the namespaces failed/.test(String(r.err ?? '')),
      );
      assert.equal(metric(await scrape(await d.metricsUrl), 'inv_informer_stale', { kind: KIND }), 1);
      // The cache synced, then froze, and nothing is marked unreadable: still no plan from it.
      await setImage(shop, 'example.com/gadget:3');
      await submitErase(env.rest, {
        name: `${list}-2`,
        images: ['*'],
        dryRun: true,
        nodeSelector: `poison-test=${tag}`,
      });
      let job: ImageJob | undefined;
      await until('the prune waits for a fresh scan', async () => {
        job = (await env.rest.list<ImageJob>(IMAGEJOBS_PATH)).items.find(
          (j) => j.spec.imageList.name === `${list}-2`,
        );
        return Boolean(job?.status?.message);
      });
      assert.equal(job!.status?.planned, undefined, job!.status?.message);
      assert.match(
        job!.status!.message!,
        /^waiting for the inventory \(a fresh scan of the cluster\) .*Kind=Gadget/,
      );
    } finally {
      await applyBundle(env.rest);
    }
  });
});
