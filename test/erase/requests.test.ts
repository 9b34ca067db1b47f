// API requests per reconcile: the erase controllers read ImageLists, ImageJobs, Nodes, their
// worker Pods and ConfigMaps from informers, so a reconcile of a running job on an unchanged
// cluster sends nothing: no LIST, no GET, no write. Counted twice: at the client (every request
// KubeRest sends) and at the API server (apiserver_request_total), which sees any path.
import assert from 'node:assert/strict';
import { serverRequests, requestDelta } from '../support/apiserver-metrics.js';
import { waitFor } from '../support/cri.js';
import { decodeInventory } from '../../src/core/apply-inventory/item-lines.js';
import { IMAGEJOBS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';
import { EraseEnv } from './helpers.js';

describe('erase: API requests per reconcile (real API server)', function () {
  this.timeout(60_000);
  let env: EraseEnv;
  before(async () => {
    env = await new EraseEnv().setup();
  });
  after(async () => {
    await env.stopControllers();
    await env.kubelet?.stop();
    await env.teardown();
  });

  it('a reconcile of a running job on an unchanged cluster makes no request', async () => {
    await env.nodes([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    // Long resyncs: nothing but events brings the job back while we count.
    const controllers = env.startControllers({ jobResyncMs: 600_000 });
    const kubelet = env.startKubelet(() => 'hang'); // workers start and keep running
    const name = `requests-${env.tag}`;
    await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`], jobTimeout: '10m' });
    const job = await waitFor(
      'three running workers recorded',
      async () => {
        const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH);
        const j = jobs.items.find((x) => x.spec.imageList.name === name);
        const pods = (await env.objects('pods')) as { status?: { phase?: string } }[];
        const ready = decodeInventory(j?.status?.inventory).filter(
          (i) => i.kind === 'Pod' && i.phase === 'Ready',
        );
        return ready.length === 3 && pods.filter((p) => p.status?.phase === 'Running').length === 3 && j;
      },
      20_000,
    );
    await kubelet.stop();
    // Quiet: the cache has the Pods' last state and the queue has nothing left to do.
    await waitFor(
      'the job queue to settle',
      async () =>
        controllers.jobQueue.len() === 0 &&
        controllers.jobQueue.inFlight() === 0 &&
        (await controllers.cache.job(job.metadata.name))?.metadata.resourceVersion ===
          (await env.job(job.metadata.name))?.metadata.resourceVersion,
    );
    const sent: string[] = [];
    controllers.rest.onRequest = (m, p) => sent.push(`${m} ${p}`);
    const before = await serverRequests(env.kc);
    const reconciles = 5;
    for (let i = 0; i < reconciles; i++) await controllers.jobs.reconcile(job.metadata.name);
    const after = await serverRequests(env.kc);
    controllers.rest.onRequest = undefined;
    const delta = requestDelta(before, after);
    // The test's own two reads of /metrics are not apiserver_request_total requests; anything
    // else on the server is the controllers'.
    const lists = Object.entries(delta).filter(([k]) => k.startsWith('LIST '));
    process.stderr.write(
      `      (${reconciles} reconciles of a running 3-node job: ${sent.length} client requests; server: ${JSON.stringify(delta)})\n`,
    );
    assert.deepEqual(lists, [], 'no LIST');
    assert.deepEqual(sent, [], 'no request at all');
  });
});
