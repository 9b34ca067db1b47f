// Shared set-up for the erase tests: a namespace, the CRDs, the controllers in-process, the
// fake kubelet, and Nodes labeled per test (every request narrows to them with a node
// selector, so tests never see each other's Nodes).
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { EraseControllers } from '../../src/core/erase/controllers.js';
import { CONFIG_KEY, CONFIG_MAP_NAME } from '../../src/core/erase/config/config.js';
import { submitErase, waitForJob, type EraseRequest } from '../../src/core/erase-request/request.js';
import type { NodeResult } from '../../src/core/contract/results.js';
import { statusNodes } from '../../src/core/erase/api/status-budget.js';
import type { EraseMetrics } from '../../src/core/erase/metrics/metrics.js';
import { IMAGEJOBS_PATH, IMAGELISTS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { isNotFound, KubeRest } from '../../src/core/kube/rest.js';
import { criAvailable, criEndpoint } from '../support/cri.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { createLogger } from '../../src/core/observability/logger.js';
import { createNodes, FakeKubelet, type Behavior } from './kubelet.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ImageJob, or undefined once it is gone. */
export async function imageJob(rest: KubeRest, name: string): Promise<ImageJob | undefined> {
  return rest
    .get<ImageJob>(`${IMAGEJOBS_PATH}/${name}`)
    .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
}

export class EraseEnv {
  readonly kc = adminConfig();
  readonly rest = new KubeRest(this.kc);
  readonly tag = randomBytes(3).toString('hex');
  namespace = '';
  controllers?: EraseControllers;
  private abort?: AbortController;
  private running?: Promise<void>;
  kubelet?: FakeKubelet;

  async setup(): Promise<this> {
    await installCrds(this.rest);
    this.namespace = await newNamespace('erase');
    // An empty configuration (every default; a missing one means the same).
    await this.config('');
    return this;
  }

  /** Node names `<prefix>-<tag>-<i>`, all labeled erase-test=<tag> (plus extra labels). */
  async nodes(
    specs: { name: string; labels?: Record<string, string>; ready?: boolean; cordoned?: boolean }[],
  ): Promise<string[]> {
    const full = specs.map((s) => ({
      ...s,
      name: `${s.name}-${this.tag}`,
      labels: { 'erase-test': this.tag, ...s.labels },
    }));
    await createNodes(this.rest, full);
    return full.map((s) => s.name);
  }

  async config(yaml: string): Promise<void> {
    const path = `/api/v1/namespaces/${this.namespace}/configmaps`;
    await this.rest.request('DELETE', `${path}/${CONFIG_MAP_NAME}`).catch(() => undefined);
    await this.rest.request('POST', path, {
      body: { metadata: { name: CONFIG_MAP_NAME }, data: { [CONFIG_KEY]: yaml } },
    });
  }

  startControllers(
    opts: { jobResyncMs?: number; metrics?: EraseMetrics; kubeConfig?: KubeConfig } = {},
  ): EraseControllers {
    this.abort = new AbortController();
    this.controllers = new EraseControllers({
      kubeConfig: opts.kubeConfig ?? this.kc,
      namespace: this.namespace,
      configNamespace: this.namespace,
      jobResyncMs: opts.jobResyncMs ?? 1000,
      metrics: opts.metrics,
      logger: process.env.ERASE_DEBUG
        ? createLogger({ level: 'debug', format: 'text', stream: process.stderr })
        : undefined,
    });
    this.running = this.controllers.start(this.abort.signal);
    return this.controllers;
  }

  async stopControllers(): Promise<void> {
    this.abort?.abort();
    await this.running;
    this.running = undefined;
  }

  startKubelet(behavior?: (node: string) => Behavior): FakeKubelet {
    this.kubelet = new FakeKubelet(this.rest, this.namespace, criEndpoint(), behavior).start();
    return this.kubelet;
  }

  async erase(req: Omit<EraseRequest, 'nodeSelector'> & { nodeSelector?: string }): Promise<number> {
    return submitErase(this.rest, { ...req, nodeSelector: req.nodeSelector ?? `erase-test=${this.tag}` });
  }

  async wait(name: string, generation: number, timeoutMs = 60_000): Promise<ImageJob> {
    const r = await waitForJob(this.rest, name, generation, { pollMs: 100, timeoutMs });
    if (!r.job) throw new Error('job already gone');
    return r.job;
  }

  async job(name: string): Promise<ImageJob | undefined> {
    return imageJob(this.rest, name);
  }

  async objects(
    kind: 'pods' | 'configmaps' | 'podtemplates',
    selector = 'erase.imageinventory.dev/job',
  ): Promise<{ metadata: { name: string; labels?: Record<string, string> } }[]> {
    return (
      await this.rest.list<{ metadata: { name: string } }>(`/api/v1/namespaces/${this.namespace}/${kind}`, {
        query: { labelSelector: selector },
      })
    ).items;
  }

  async teardown(): Promise<void> {
    await this.kubelet?.stop();
    await this.stopControllers();
    const lists = await this.rest.list<{ metadata: { name: string } }>(IMAGELISTS_PATH);
    for (const l of lists.items)
      if (l.metadata.name.includes(this.tag))
        await this.rest.request('DELETE', `${IMAGELISTS_PATH}/${l.metadata.name}`).catch(() => undefined);
    const jobs = await this.rest.list<ImageJob>(IMAGEJOBS_PATH);
    for (const j of jobs.items)
      if (j.spec.namespace === this.namespace) {
        await this.rest.request('DELETE', `${IMAGEJOBS_PATH}/${j.metadata.name}`).catch(() => undefined);
        // The controllers are stopped: take the cleanup finalizer off, as the README says to.
        await this.rest
          .request('PATCH', `${IMAGEJOBS_PATH}/${j.metadata.name}`, {
            contentType: 'application/merge-patch+json',
            body: { metadata: { finalizers: null } },
          })
          .catch(() => undefined);
      }
    this.rest.close();
  }
}

/**
 * A Lease in the env's namespace that looks held by a live controller (renewed every 2 s, as a
 * leader renews it), so the CLI's preflight accepts it. Returns the function that stops renewing.
 */
export async function holdLease(env: EraseEnv, name: string): Promise<() => Promise<void>> {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${env.namespace}/leases`;
  const spec = () => ({
    holderIdentity: `test-${env.tag}`,
    leaseDurationSeconds: 15,
    renewTime: new Date().toISOString().replace('Z', '000Z'),
  });
  await env.rest.request('POST', base, {
    body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: spec() },
  });
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(2000);
      const cur = await env.rest.get<{ metadata: object }>(`${base}/${name}`);
      await env.rest.request('PUT', `${base}/${name}`, {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: cur.metadata, spec: spec() },
      });
    }
  })();
  return async () => {
    stopped = true;
    await loop.catch(() => undefined);
  };
}

export const results = (job: ImageJob): Record<string, NodeResult> =>
  Object.fromEntries(statusNodes(job.status).map((r) => [r.node, r]));

/**
 * The mocha hooks of a suite that runs erase end to end: skipped without containerd, a fresh
 * EraseEnv for each test (handed over with `set`), torn down after it, with what the suite adds
 * to the teardown before or after.
 */
export function eraseEnvPerTest(
  set: (env: EraseEnv) => void,
  hooks: { beforeTeardown?: () => Promise<unknown>; afterTeardown?: () => Promise<unknown> } = {},
): void {
  let env: EraseEnv;
  before(function () {
    if (!criAvailable()) this.skip();
  });
  beforeEach(async () => {
    env = await new EraseEnv().setup();
    set(env);
  });
  afterEach(async () => {
    await hooks.beforeTeardown?.();
    await env.teardown();
    await hooks.afterTeardown?.();
  });
}
