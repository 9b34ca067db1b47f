// `inv scan -A`'s merged listing (core/inventory/cluster-scan/) against the one-namespace-at-a-
// time listing, on a private real API server (fresh-apiserver.ts: nothing else's namespaces):
// the same report, from far fewer requests, with namespaces that are empty, that hold one kind
// only, whose names order differently as keys ("mg" and "mg-b"), pages split inside a
// namespace, a 410 Expired in the middle of a stream (a real etcd compaction), and a user who
// may list only some namespaces (the fallback).
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ScanJsonCollector } from '../../src/cli/scan/json-collector.js';
import { fromClusterScan, renderScan, scanDocument } from '../../src/cli/scan/render-scan.js';
import { BUILTIN } from '../../src/core/inventory/source-kinds.js';
import { collectionPath } from '../../src/core/inventory/sources.js';
import { namespaceKey } from '../../src/core/inventory/cluster-scan/namespace-merge.js';
import { scanCluster, type ScanOptions, type ScanReport } from '../../src/core/inventory/scan.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import { listPages } from '../../src/core/kube/paginate.js';
import { KubeApiError, KubeRest, type RequestOptions } from '../../src/core/kube/rest.js';
import { waitFor } from '../support/cri.js';
import { etcdOf, type Etcd } from '../support/servers/etcd-compaction.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { serviceAccountToken, writeTokenKubeconfig } from '../support/service-account.js';

const pod = (name: string, images: string[], labels: Record<string, string> = {}, owner?: object) => ({
  metadata: { name, labels, ...(owner ? { ownerReferences: [owner] } : {}) },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
});
const tmpl = (app: string, image: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image }] },
});

/** The report without how it was read: what the user sees. */
const seen = (r: ScanReport) => ({ results: r.results, failures: r.failures, readOnly: r.readOnly });

/** A client that runs `hook` once, before the first request that continues a list of `plural`. */
class HookedRest extends KubeRest {
  gone = 0;
  constructor(
    kc: k8s.KubeConfig,
    private readonly plural: string,
    private hook?: (path: string, token: string) => Promise<void>,
  ) {
    super(kc);
  }
  override async request<T>(method: string, p: string, opts: RequestOptions = {}): Promise<T> {
    const token = opts.query?.continue;
    if (this.hook && typeof token === 'string' && p.endsWith(`/${this.plural}`)) {
      const h = this.hook;
      this.hook = undefined;
      await h(p, token);
    }
    try {
      return await super.request<T>(method, p, opts);
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 410) this.gone++;
      throw e;
    }
  }
}

describe('inv scan -A: cluster-wide LISTs merged namespace by namespace', function () {
  this.timeout(120_000);
  let server: FreshApiServer;
  let kc: k8s.KubeConfig;
  let rest: KubeRest;
  let etcd: Etcd;

  const scan = (r: KubeRest, o: ScanOptions) => scanCluster(r, { allNamespaces: true, ...o });
  const both = async (o: ScanOptions, r: KubeRest = rest) => {
    const merged = await scan(r, { ...o, listing: 'merged', pageSize: 3 });
    const per = await scan(r, { ...o, listing: 'per-namespace' });
    return { merged, per };
  };

  before(async () => {
    server = await freshApiServer();
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
    await installCrds(rest);
    etcd = await etcdOf(server.kubeconfig);
    const post = (p: string, body: object) =>
      rest.request<{ metadata: { uid: string } }>('POST', p, { body });
    const podIn = async (ns: string, body: object) => {
      // A new namespace's Pods wait for its default ServiceAccount.
      await waitFor(`ServiceAccount default in ${ns}`, async () => {
        try {
          return await post(`/api/v1/namespaces/${ns}/pods`, body);
        } catch (e) {
          if (e instanceof KubeApiError && e.code === 403 && /serviceaccount/i.test(e.message))
            return undefined;
          throw e;
        }
      });
    };
    for (const ns of ['mg', 'mg-b', 'mg-empty', 'mg-cron', 'mg-many', 'mg-rs', 'mg-z'])
      await ensureNamespace(rest, ns);
    // "mg-b" comes before "mg" in the API server's order; both hold a little of everything.
    await post('/apis/apps/v1/namespaces/mg/deployments', {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: tmpl('web', 'registry.example.com/web:v1'),
      },
    });
    await podIn('mg', pod('solo', ['docker.io/library/busybox:1.36'], { app: 'solo' }));
    await podIn('mg', pod('keep', ['registry.example.com/keep:1']));
    await podIn('mg-b', pod('a', ['registry.example.com/b:1'], { app: 'web' }));
    await podIn('mg-b', pod('bad', ['Not A Valid Ref!']));
    // A CronJob only: every other kind is absent here.
    await post('/apis/batch/v1/namespaces/mg-cron/cronjobs', {
      metadata: { name: 'report' },
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: {
          spec: {
            template: {
              spec: { ...tmpl('r', 'registry.example.com/report:1').spec, restartPolicy: 'Never' },
            },
          },
        },
      },
    });
    // More Pods than a page (3): the namespace spans pages.
    for (let i = 0; i < 8; i++)
      await podIn('mg-many', pod(`p${i}`, [`registry.example.com/many:${i % 3}`], { app: 'many' }));
    await post('/apis/apps/v1/namespaces/mg-many/statefulsets', {
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: tmpl('db', 'docker.io/library/postgres:16'),
      },
    });
    await post('/apis/apps/v1/namespaces/mg-many/daemonsets', {
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: tmpl('agent', 'registry.example.com/agent:2'),
      },
    });
    // A Pod whose ReplicaSet is not named after a Deployment: the owners are read.
    const dep = await post('/apis/apps/v1/namespaces/mg-rs/deployments', {
      metadata: { name: 'api' },
      spec: {
        selector: { matchLabels: { app: 'api' } },
        template: tmpl('api', 'registry.example.com/api:3'),
      },
    });
    const rs = await post('/apis/apps/v1/namespaces/mg-rs/replicasets', {
      metadata: {
        name: 'renamed',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: dep.metadata.uid, controller: true },
        ],
      },
      spec: {
        selector: { matchLabels: { app: 'api' } },
        template: tmpl('api', 'registry.example.com/api:3'),
      },
    });
    await podIn(
      'mg-rs',
      pod(
        'api-x',
        ['registry.example.com/api:2'],
        { app: 'api' },
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'renamed',
          uid: rs.metadata.uid,
          controller: true,
        },
      ),
    );
    await podIn('mg-z', pod('last', ['registry.example.com/z:1']));
    // Images in some namespaces already, then a change, so the dry runs plan every kind of change.
    await scan(rest, { namespaces: ['mg', 'mg-many'], listing: 'per-namespace' });
    await rest.request('DELETE', '/api/v1/namespaces/mg/pods/solo');
    await podIn('mg-many', pod('p-new', ['registry.example.com/new:1']));
  });

  after(async () => {
    rest?.close();
    await server?.stop();
  });

  it('the API server returns a kind ordered by namespace as storage keys ("mg-b" before "mg")', async () => {
    const order: string[] = [];
    for await (const page of listPages<{ metadata: { namespace: string } }>(rest, '/api/v1/pods', {
      pageSize: 2,
    }))
      for (const p of page.items) order.push(p.metadata.namespace);
    assert.deepEqual(
      [...order].sort((a, b) =>
        namespaceKey(a) < namespaceKey(b) ? -1 : namespaceKey(a) > namespaceKey(b) ? 1 : 0,
      ),
      order,
    );
    assert.ok(order.indexOf('mg-b') < order.indexOf('mg'), order.join(' '));
  });

  it('a dry run reports the same as one namespace at a time, from far fewer requests', async () => {
    const calls = { merged: 0, per: 0 };
    rest.onRequest = () => calls.merged++;
    const merged = await scan(rest, { dryRun: true, listing: 'merged', pageSize: 3 });
    rest.onRequest = () => calls.per++;
    const per = await scan(rest, { dryRun: true, listing: 'per-namespace' });
    rest.onRequest = undefined;
    assert.deepEqual(seen(merged), seen(per));
    assert.deepEqual(merged.listing, { strategy: 'merged' });
    const changes = new Set(per.results.flatMap((r) => r.images.map((i) => i.change)));
    assert.deepEqual(
      [...changes].sort(),
      ['create', 'delete', 'none'],
      'the dry run plans creates, deletes and no-ops',
    );
    assert.ok(
      per.results.some((r) => r.invalid.length),
      'an invalid ref is reported',
    );
    assert.equal(merged.results.length, per.results.length);
    assert.ok(merged.results.some((r) => r.namespace === 'mg-empty' && r.images.length === 0));
    assert.ok(calls.merged < calls.per / 2, `merged ${calls.merged} requests, per namespace ${calls.per}`);
    // What `inv scan -A -o json` prints: the merged scan's namespaces rendered as they come
    // (cli/scan/json-collector.ts) against the whole document of the per-namespace one.
    const collector = new ScanJsonCollector(true, false);
    const streamed = await scan(rest, { dryRun: true, listing: 'merged', pageSize: 3, results: collector });
    assert.equal(streamed.results.length, 0);
    assert.equal(streamed.rebuilt, per.results.length);
    const out = collector.render(fromClusterScan(streamed, true));
    const expected = renderScan(scanDocument(fromClusterScan(per, true)), 'json');
    assert.equal(out.stdout.join(''), expected.stdout);
    assert.equal(out.stderr, expected.stderr);
  });

  it('without a listing asked for, counts the source objects and reads large namespaces one at a time', async () => {
    const small = await scan(rest, { dryRun: true, pageSize: 3 });
    assert.equal(small.listing?.strategy, 'merged', 'a few objects per namespace: merged');
    let objects = 0;
    for (const k of BUILTIN.all) objects += (await rest.list(collectionPath(k))).items.length;
    assert.equal(small.listing?.sourceObjects, objects, 'the count is of every source object');
    const large = await scan(rest, { dryRun: true, mergedMaxPerNamespace: 0 });
    assert.equal(large.listing?.strategy, 'per-namespace');
    assert.equal(large.listing?.sourceObjects, small.listing?.sourceObjects);
    assert.deepEqual(seen(large), seen(small));
  });

  it('the same read-only and with a selector', async () => {
    const ro = await both({ readOnly: true });
    assert.deepEqual(seen(ro.merged), seen(ro.per));
    const sel = await both({ selector: 'app=web' });
    assert.deepEqual(seen(sel.merged), seen(sel.per));
    assert.ok(sel.per.results.some((r) => r.images.length > 0));
  });

  it('writes what one namespace at a time would have planned, and nothing is left to change', async () => {
    const plan = await scan(rest, { dryRun: true, listing: 'per-namespace' });
    const written = await scan(rest, { listing: 'merged', pageSize: 3 });
    const shape = (r: ScanReport) =>
      r.results.map((n) => [n.namespace, n.images.map((i) => [i.name, i.image, i.kinds, i.change])]);
    assert.deepEqual(shape(written), shape(plan));
    assert.deepEqual(written.failures, []);
    const after = await scan(rest, { dryRun: true, listing: 'per-namespace' });
    assert.deepEqual(
      after.results.flatMap((n) => n.images.filter((i) => i.change !== 'none')),
      [],
    );
  });

  it('a continue token that expires mid-stream (410) is followed with the token the 410 carries', async () => {
    const hooked = new HookedRest(kc, 'pods', async (p, token) => {
      await etcd.compactNow();
      // The API server learns of the compaction from etcd, then the token is too old.
      await waitFor(
        'the continue token to expire',
        async () => {
          try {
            await rest.request('GET', p, { query: { limit: 3, continue: token } });
            return false;
          } catch (e) {
            if (e instanceof KubeApiError && e.code === 410) return true;
            throw e;
          }
        },
        30_000,
        200,
      );
    });
    try {
      const merged = await scan(hooked, { dryRun: true, listing: 'merged', pageSize: 3 });
      const per = await scan(rest, { dryRun: true, listing: 'per-namespace' });
      assert.equal(hooked.gone, 1, 'the API server answered 410 once');
      assert.deepEqual(merged.listing, { strategy: 'merged' }, 'no namespace fell back');
      assert.deepEqual(seen(merged), seen(per));
    } finally {
      hooked.close();
    }
  });

  it('a user who may read only some namespaces gets what one namespace at a time gives', async () => {
    await ensureNamespace(rest, 'mg-user');
    await rest.request('POST', '/api/v1/namespaces/mg-user/serviceaccounts', {
      body: { metadata: { name: 'dev' } },
    });
    const subject = [{ kind: 'ServiceAccount', name: 'dev', namespace: 'mg-user' }];
    await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: {
        metadata: { name: 'mg-reader' },
        rules: [
          {
            apiGroups: ['apps'],
            resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'],
            verbs: ['list'],
          },
          { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: ['list'] },
          { apiGroups: [''], resources: ['pods', 'replicationcontrollers'], verbs: ['list'] },
          { apiGroups: ['imageinventory.dev'], resources: ['images'], verbs: ['list'] },
        ],
      },
    });
    for (const ns of ['mg', 'mg-many'])
      await rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        body: {
          metadata: { name: 'dev' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'mg-reader' },
          subjects: subject,
        },
      });
    await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: {
        metadata: { name: 'mg-namespaces' },
        rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }],
      },
    });
    await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        metadata: { name: 'mg-namespaces' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'mg-namespaces' },
        subjects: subject,
      },
    });
    const file = path.join(path.dirname(server.kubeconfig), 'dev.kubeconfig');
    writeTokenKubeconfig(kc, await serviceAccountToken(rest, 'mg-user', 'dev'), file);
    const devKc = new k8s.KubeConfig();
    devKc.loadFromFile(file);
    const dev = new KubeRest(devKc);
    try {
      // RBAC reaches the authorizer's cache asynchronously.
      await waitFor(
        'the RoleBindings to apply',
        async () => {
          const r = await scan(dev, {
            dryRun: true,
            listing: 'per-namespace',
            namespaces: ['mg', 'mg-many'],
            allNamespaces: false,
          });
          return r.failures.length === 0;
        },
        20_000,
        200,
      );
      const { merged, per } = await both({ dryRun: true }, dev);
      // Which of a namespace's LISTs is refused first varies from run to run (they go in
      // parallel), so a failure is compared by namespace and reason.
      const brief = (r: ScanReport) => ({
        ...seen(r),
        failures: r.failures.map((f) => [f.namespace, f.reason]),
      });
      assert.deepEqual(brief(merged), brief(per));
      assert.equal(merged.listing?.fallback?.namespaces, merged.results.length + merged.failures.length);
      assert.match(merged.listing!.fallback!.reason, /forbidden/i);
      assert.deepEqual(
        merged.results.map((r) => r.namespace),
        ['mg', 'mg-many'],
      );
      assert.ok(merged.failures.every((f) => f.reason === 'Forbidden'));
    } finally {
      dev.close();
      fs.rmSync(file, { force: true });
    }
  });
});
