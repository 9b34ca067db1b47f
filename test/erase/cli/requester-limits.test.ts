// Requesters cannot hold the cluster's cleanup, on the real API server with the shipped RBAC: the
// install bundle (deploy/) is applied, and the erase controllers run with a token of its
// ServiceAccount in its namespaces, with `maxConcurrentJobs: 2`. A requester's list asking for
// `--pause 1000h --job-timeout 2000h` is refused, naming the administrator's bounds (by the
// controller, and by `inv erase` before it writes anything); two requesters' lists take one place
// and the second waits, Queued (never Running) in its job, its list and `inv erase status`, counted
// by the queue gauges; the administrator's list takes the place kept for it at once; a queued job
// over a bound the administrator lowers meanwhile is refused before it starts. No kubelet
// runs: worker Pods stay Pending, so a planned job holds its place for as long as the test needs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { EraseControllers } from '../../../src/core/erase/controllers.js';
import { createEraseMetrics } from '../../../src/core/erase/metrics/metrics.js';
import { CONFIG_KEY, CONFIG_MAP_NAME } from '../../../src/core/erase/config/config.js';
import { submitErase, type EraseRequest } from '../../../src/core/erase-request/request.js';
import {
  IMAGEJOBS_PATH,
  IMAGELIST_LABEL,
  IMAGELISTS_PATH,
  type ImageJob,
  type ImageList,
} from '../../../src/core/erase/api/types.js';
import { installCrds } from '../../../src/core/kube/crd-install.js';
import { KubeRest } from '../../../src/core/kube/rest.js';
import { adminConfig, kubeconfigPath } from '../../support/kube.js';
import { waitFor } from '../../support/cri.js';
import { applyBundle, SA, SYSTEM_NS, WORKERS_NS } from '../../watch/deploy-helpers.js';
import { createNodes } from '../kubelet.js';
import { inv } from './cli-helpers.js';
import { serviceAccountToken, writeTokenKubeconfig } from '../../support/service-account.js';

const tag = randomBytes(3).toString('hex');
const configPath = `/api/v1/namespaces/${SYSTEM_NS}/configmaps/${CONFIG_MAP_NAME}`;
const ADMIN_LIST = `nightly-${tag}`;
const OVER = /requesterLimits\.maxJobTimeout, 6h.*requesterLimits\.maxPause, 1h/;

describe('erase: requesters cannot hold the cleanup (shipped RBAC)', function () {
  this.timeout(90_000);
  let rest: KubeRest;
  const registry = new Registry();
  let controllers: EraseControllers;
  const abort = new AbortController();
  let running: Promise<void>;
  let savedConfig: string | undefined;

  before(async () => {
    rest = new KubeRest(adminConfig());
    await installCrds(rest);
    await applyBundle(rest);
    const cm = await rest.get<{ data?: Record<string, string> }>(configPath);
    savedConfig = cm.data?.[CONFIG_KEY];
    await rest.request('PATCH', configPath, {
      contentType: 'application/merge-patch+json',
      body: {
        data: {
          [CONFIG_KEY]: `maxConcurrentJobs: 2\nrequesterLimits: {administratorLists: [${ADMIN_LIST}]}\n`,
        },
      },
    });
    await createNodes(rest, [{ name: `rl-${tag}`, labels: { 'erase-test': tag } }]);
    const token = await serviceAccountToken(rest, SYSTEM_NS, SA);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-rl-'));
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(writeTokenKubeconfig(adminConfig(), token, path.join(dir, 'kubeconfig')));
    controllers = new EraseControllers({
      kubeConfig: kc,
      namespace: WORKERS_NS,
      configNamespace: SYSTEM_NS,
      jobResyncMs: 1000,
      metrics: createEraseMetrics(registry),
    });
    running = controllers.start(abort.signal);
  });

  after(async () => {
    abort.abort();
    await running;
    for (const l of (await rest.list<ImageList>(IMAGELISTS_PATH)).items)
      if (l.metadata.name.includes(tag))
        await rest.request('DELETE', `${IMAGELISTS_PATH}/${l.metadata.name}`).catch(() => undefined);
    for (const j of (await rest.list<ImageJob>(IMAGEJOBS_PATH)).items) {
      if (!j.spec.imageList.name.includes(tag)) continue;
      await rest.request('DELETE', `${IMAGEJOBS_PATH}/${j.metadata.name}`).catch(() => undefined);
      await rest
        .request('PATCH', `${IMAGEJOBS_PATH}/${j.metadata.name}`, {
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers: null } },
        })
        .catch(() => undefined);
    }
    for (const kind of ['pods', 'configmaps', 'podtemplates'])
      await rest
        .request('DELETE', `/api/v1/namespaces/${WORKERS_NS}/${kind}`, {
          query: { labelSelector: 'erase.imageinventory.dev/job' },
        })
        .catch(() => undefined);
    await rest.request('DELETE', `/api/v1/nodes/rl-${tag}`).catch(() => undefined);
    await rest.request('PATCH', configPath, {
      contentType: 'application/merge-patch+json',
      body: { data: { [CONFIG_KEY]: savedConfig ?? '' } },
    });
    rest.close();
  });

  const erase = (name: string, req: Partial<EraseRequest> = {}) =>
    submitErase(rest, {
      name,
      images: [`docker.io/library/nothing-${tag}:1`],
      nodeSelector: `erase-test=${tag}`,
      ...req,
    });
  const list = (name: string) => rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
  const jobOf = async (name: string) =>
    (await rest.list<ImageJob>(IMAGEJOBS_PATH, { query: { labelSelector: `${IMAGELIST_LABEL}=${name}` } }))
      .items[0];
  const gauge = async (name: string) => {
    const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(await registry.metrics());
    return m ? Number(m[1]) : undefined;
  };
  const long = { jobTimeout: '2000h', rollout: { maxParallel: 1, pause: '1000h' } };

  it("refuses a requester's list that asks for longer than the administrator's bounds, naming them", async () => {
    const name = `long-${tag}`;
    await erase(name, long);
    const l = await waitFor(
      'the list rejected',
      async () => {
        const cur = await list(name);
        return cur.status?.phase === 'Error' ? cur : undefined;
      },
      20_000,
    );
    assert.match(l.status!.message!, OVER);
    assert.equal(await jobOf(name), undefined, 'no job was made');
    // `inv erase` says the same before it writes anything, when its user may read the configuration.
    const other = `long-cli-${tag}`;
    const r = await inv([
      'erase',
      '--images',
      'nothing:1',
      '--name',
      other,
      '--job-timeout',
      '2000h',
      '--max-parallel',
      '1',
      '--pause',
      '1000h',
      '--kubeconfig',
      kubeconfigPath(),
      '--workers-namespace',
      WORKERS_NS,
      '--config-namespace',
      SYSTEM_NS,
      '--no-wait',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.replace(/\s+/g, ' '), OVER);
    await assert.rejects(list(other), /not ?found/i, 'nothing written');
  });

  it("keeps a place for the administrator's list; a requester's job not started is Queued everywhere", async () => {
    const [r1, r2] = [`req1-${tag}`, `req2-${tag}`];
    await erase(r1, { jobTimeout: '1h' });
    await waitFor('the first requester job planned', async () => (await jobOf(r1))?.status?.planned, 20_000);
    await erase(r2, { jobTimeout: '1h' });
    const queued = await waitFor(
      'the second requester job queued',
      async () => {
        const j = await jobOf(r2);
        return j?.status?.phase === 'Queued' && j.status.message?.includes("requesters' share")
          ? j
          : undefined;
      },
      20_000,
    );
    assert.match(
      queued.status!.message!,
      /^queued: 1 job\(s\) of requesters' lists running \(req1-.+\) and 0 queued before this one, at requesters' share of 1 of the cluster's 2 places/,
    );
    assert.equal(queued.status!.planned, undefined);
    await waitFor('its list says Queued', async () => (await list(r2)).status?.phase === 'Queued', 20_000);
    const st = await inv([
      'erase',
      'status',
      queued.metadata.name,
      '--kubeconfig',
      kubeconfigPath(),
      '-o',
      'json',
    ]);
    assert.equal(st.code, 0, st.stderr);
    assert.equal((JSON.parse(st.stdout) as { phase: string }).phase, 'Queued');
    await waitFor(
      'the queue gauges count it',
      async () => (await gauge('inv_erase_queued_jobs')) === 1,
      10_000,
    );
    assert.ok((await gauge('inv_erase_oldest_queued_job_age_seconds'))! > 0);

    // The administrator's list: unbounded durations, and the kept place at once.
    await erase(ADMIN_LIST, long);
    await waitFor(
      'the administrator job planned',
      async () => (await jobOf(ADMIN_LIST))?.status?.phase === 'Running',
      20_000,
    );
    assert.equal((await jobOf(r2))?.status?.phase, 'Queued', 'the requester still waits');
    assert.equal((await list(ADMIN_LIST)).status?.phase, 'Running');
  });

  it('refuses a queued job, before it starts, once the administrator lowers a bound it is over', async () => {
    const r3 = `req3-${tag}`;
    await erase(r3, { jobTimeout: '5h' });
    await waitFor(
      'the third requester job queued',
      async () => (await jobOf(r3))?.status?.phase === 'Queued',
      20_000,
    );
    await rest.request('PATCH', configPath, {
      contentType: 'application/merge-patch+json',
      body: {
        data: {
          [CONFIG_KEY]: `maxConcurrentJobs: 2\nrequesterLimits: {maxJobTimeout: 4h, administratorLists: [${ADMIN_LIST}]}\n`,
        },
      },
    });
    const refused = await waitFor(
      'the queued job refused',
      async () => {
        const j = await jobOf(r3);
        return j?.status?.phase === 'Failed' ? j : undefined;
      },
      30_000,
    );
    assert.match(
      refused.status!.message!,
      /^refused by the erase configuration: a job timeout \(--job-timeout, spec\.jobTimeout\) of 5h is over requesterLimits\.maxJobTimeout, 4h/,
    );
    assert.equal(refused.status!.planned, undefined, 'nothing of it ran');
    assert.equal((await jobOf(`req2-${tag}`))?.status?.phase, 'Queued', 'a job within the bound still waits');
  });
});
