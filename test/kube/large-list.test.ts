// A collection larger than the response limit, on the real API server: 12 ConfigMaps of 300 KB
// each (as `kubectl apply` leaves megabyte annotations on Deployments) read by a client whose
// responses may not exceed 1 MiB. The first page of 500 is too large; paginate.ts asks again at
// half the size until a page fits, and the list completes with every object. One object larger
// than the limit on its own still fails the list, with the reason.
import assert from 'node:assert/strict';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, newNamespace } from '../support/kube.js';

describe('a LIST larger than the response limit (real API server)', function () {
  this.timeout(120_000);
  let ns: string;
  let admin: KubeRest;
  before(async () => {
    admin = new KubeRest(adminConfig());
    ns = await newNamespace('large-list');
    for (let i = 0; i < 12; i++)
      await admin.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { metadata: { name: `big-${i}` }, data: { blob: String(i).repeat(300 * 1024) } },
      });
  });
  after(() => admin?.close());

  it('halves the page until it fits, and lists every object', async () => {
    const small = new KubeRest(adminConfig(), { maxResponseBytes: 1024 * 1024 });
    const requests: string[] = [];
    small.onRequest = (_m, p) => requests.push(p);
    try {
      const { items } = await small.list<{ metadata: { name: string } }, string>(
        `/api/v1/namespaces/${ns}/configmaps`,
        { map: (c) => c.metadata.name },
      );
      assert.deepEqual(
        items.filter((n) => n.startsWith('big-')).sort(),
        Array.from({ length: 12 }, (_, i) => `big-${i}`).sort(),
      );
      assert.ok(requests.length > 4, `pages asked: ${requests.length}`);
    } finally {
      small.close();
    }
  });

  it('an object larger than the limit on its own fails the list with the reason', async () => {
    const tiny = new KubeRest(adminConfig(), { maxResponseBytes: 200 * 1024 });
    try {
      await assert.rejects(
        tiny.list(`/api/v1/namespaces/${ns}/configmaps`),
        /response larger than 204800 bytes, the limit for one response/,
      );
    } finally {
      tiny.close();
    }
  });
});
