// One tenant cannot stop every namespace's inventory, on a private real API server: a
// Deployment larger than the daemon takes in one response (600 KB through a 512 KiB limit, as
// 30 applied Deployments of 1.3 MB once were through 32 MiB before pages) fails the cluster-wide
// LIST even at a page of one object. The daemon lists that kind one namespace at a time: it
// syncs, writes the other namespaces' Images, reports the tenant's namespace (its log, the
// inv_unreadable_namespaces gauge, InventoryCache.unreadable()), writes nothing there, and
// a * prune does not take its cache as the whole protected set.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { CacheProtection } from '../../src/core/erase/worker/inventory-protection.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { startDaemon, until, type InProcessDaemon } from './helpers.js';

describe('inventory: a namespace whose objects cannot be read does not stop the others', function () {
  this.timeout(180_000);
  let server: FreshApiServer;
  let rest: KubeRest;
  let kc: k8s.KubeConfig;
  let daemon: InProcessDaemon | undefined;
  before(async function () {
    this.timeout(120_000);
    server = await freshApiServer();
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
    await installCrds(rest);
  });
  after(async () => {
    await daemon?.stop();
    rest?.close();
    await server?.stop();
  });

  const deployment = (name: string, image: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, annotations: {} as Record<string, string> },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image } as Record<string, unknown>] },
      },
    },
  });

  it('syncs, builds the other namespaces, reports the tenant and writes nothing there', async () => {
    for (const ns of ['tenant', 'shop']) await ensureNamespace(rest, ns);
    const big = deployment('big', 'registry.example/tenant/big:1');
    big.metadata.annotations['example.com/last-applied'] = 'x'.repeat(250_000);
    big.spec.template.spec.containers[0]!.env = [{ name: 'BLOB', value: 'y'.repeat(350_000) }];
    await rest.request('POST', '/apis/apps/v1/namespaces/tenant/deployments', { body: big });
    await rest.request('POST', '/apis/apps/v1/namespaces/shop/deployments', {
      body: deployment('web', 'registry.example/shop/web:1'),
    });

    daemon = await startDaemon(kc, { rest: { maxResponseBytes: 512 * 1024 }, logLevel: 'info' });
    await until(
      "shop's Image written",
      async () =>
        (await rest.list<ImageResource>(imagesPath('shop'))).items.some(
          (i) => i.spec?.image === 'registry.example/shop/web:1',
        ),
      30_000,
      200,
    );
    const unreadable = daemon.daemon.cache.unreadable();
    assert.deepEqual([...unreadable.keys()], ['tenant']);
    assert.match(unreadable.get('tenant')!, /^Deployment: .*larger than 524288 bytes/);
    const metrics = await (await fetch(`${daemon.daemon.manager.metricsUrl}/metrics`)).text();
    assert.match(metrics, /^inv_unreadable_namespaces 1$/m);
    assert.ok(
      daemon.logs.some((l) => l.includes('some namespaces cannot be read') && l.includes('tenant')),
      'logged',
    );
    // Nothing is written for the namespace it cannot see whole.
    assert.deepEqual((await rest.list<ImageResource>(imagesPath('tenant'))).items, []);
    // A * prune does not take this cache as the whole protected set.
    assert.equal(new CacheProtection(daemon.daemon.cache, rest).describe, 'a fresh scan of the cluster');
  });
});
