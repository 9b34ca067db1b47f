// Shared set-up for the real-node suites: images imported into chosen nodes' containerd, real
// Pods pinned to a node, and the erase controllers in-process against the whole cluster, with
// the configuration a real install would have (the runtime socket that every node has at the
// same path, and the worker image built from this checkout).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CONFIG_KEY, CONFIG_MAP_NAME } from '../../src/core/erase/config/config.js';
import { EraseControllers } from '../../src/core/erase/controllers.js';
import type { ProtectionSource } from '../../src/core/erase/worker/inventory-protection.js';
import { submitErase, waitForJob, type EraseRequest } from '../../src/core/erase-request/request.js';
import type { NodeResult } from '../../src/core/contract/results.js';
import { decodeNodes } from '../../src/core/erase/api/node-status.js';
import { IMAGEJOBS_PATH, IMAGELISTS_PATH, JOB_LABEL, type ImageJob } from '../../src/core/erase/api/types.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { isNotFound, KubeRest } from '../../src/core/kube/rest.js';
import { createLogger } from '../../src/core/observability/logger.js';
import { buildImagesArchive, type BuiltImage, type ImageInput } from '../support/oci.js';
import { clusterConfig, newClusterNamespace, nodeCri, until, type WholeCluster } from '../support/nodes.js';
import { repoRoot } from '../support/paths.js';
import { imageJob } from '../erase/helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

interface OciModule {
  importArchive(opts: { address: string; file: string; snapshotter?: string }): void;
}
interface CrioModule {
  importArchiveFile(dir: string, file: string): Promise<string[]>;
}

/** Builds the images once and imports them into the containerd of each listed node (0-based). */
export async function importToNodes(
  c: WholeCluster,
  nodes: number[],
  images: ImageInput[],
): Promise<BuiltImage[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-node-img-'));
  try {
    const file = path.join(dir, 'images.tar');
    const built = await buildImagesArchive(file, images);
    const oci = (await import(path.join(repoRoot, 'scripts', 'oci-archive.mjs'))) as OciModule;
    let crio = false;
    for (const i of nodes) {
      const criDir = path.join(c.dir, `node-${i + 1}`, 'cri');
      if (fs.readFileSync(path.join(criDir, 'runtime'), 'utf8').trim() === 'crio') {
        // CRI-O only pulls: from the loopback registry of scripts/crio.mjs.
        crio = true;
        await ((await import(path.join(repoRoot, 'scripts', 'crio.mjs'))) as CrioModule).importArchiveFile(
          criDir,
          file,
        );
        continue;
      }
      const snapshotter = fs.readFileSync(path.join(criDir, 'snapshotter'), 'utf8').trim();
      oci.importArchive({ address: c.nodes[i]!.criEndpoint.replace(/^unix:\/\//, ''), file, snapshotter });
    }
    // CRI-O's image IDs are the config digest's bare hex (containerd's carry "sha256:").
    if (crio) for (const b of built) b.id = b.id.replace(/^sha256:/, '');
    // CRI learns about ctr imports through events: wait until every node lists them.
    for (const i of nodes) {
      const cri = await nodeCri(c, i);
      try {
        await until(`images on node ${i + 1}`, async () => {
          const ids = new Set((await cri.listImages()).map((x) => x.id));
          return built.every((b) => ids.has(b.id));
        });
      } finally {
        cri.close();
      }
    }
    return built;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Image IDs that node i's containerd lists. */
export async function nodeImageIds(c: WholeCluster, i: number): Promise<Set<string>> {
  const cri = await nodeCri(c, i);
  try {
    return new Set((await cri.listImages()).map((x) => x.id));
  } finally {
    cri.close();
  }
}

interface PodStatus {
  metadata: { name: string; deletionTimestamp?: string; creationTimestamp?: string };
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    containerStatuses?: {
      name?: string;
      state?: { terminated?: { exitCode?: number; message?: string }; waiting?: { reason?: string } };
    }[];
  };
}

export class NodeEraseEnv {
  readonly kc;
  readonly rest;
  readonly tag = randomBytes(3).toString('hex');
  namespace = '';
  /** Where the configuration and exclusion lists live: the workers' namespace unless set up apart. */
  configNamespace = '';
  private abort?: AbortController;
  private running?: Promise<void>;
  readonly lists: string[] = [];

  constructor(readonly c: WholeCluster) {
    this.kc = clusterConfig(c);
    this.rest = new KubeRest(this.kc);
  }

  /** `separateConfig`: the configuration in a namespace of its own, as an install has it. */
  async setup(opts: { separateConfig?: boolean } = {}): Promise<this> {
    await installCrds(this.rest);
    this.namespace = await newClusterNamespace(this.c, 'erase');
    this.configNamespace = opts.separateConfig
      ? await newClusterNamespace(this.c, 'erasecfg')
      : this.namespace;
    await this.config();
    return this;
  }

  /**
   * The controllers' configuration: the common runtime socket, this checkout's worker image,
   * a short start grace, finished jobs kept for an hour (so their Pods can be inspected), plus
   * `extra` YAML lines.
   */
  async config(extra = '', image = this.c.workerImage, socket = this.c.runtimeSocket): Promise<void> {
    const yaml = [
      `runtimeSocket: ${socket}`,
      'workerStartGrace: 3s',
      'delayOnSuccess: 1h',
      'delayOnFailure: 1h',
      'worker:',
      `  image: ${image}`,
      '  criTimeout: 10s',
      extra,
    ].join('\n');
    const p = `/api/v1/namespaces/${this.configNamespace}/configmaps`;
    await this.rest.request('DELETE', `${p}/${CONFIG_MAP_NAME}`).catch(() => undefined);
    await this.rest.request('POST', p, {
      body: { metadata: { name: CONFIG_MAP_NAME }, data: { [CONFIG_KEY]: yaml } },
    });
  }

  /** `protection`: where a `*` prune learns the references (default: a scan of built-in kinds). */
  /** `now` and `resyncMs`: a test that moves the clock has every job looked at again that often. */
  startControllers(opts: { protection?: ProtectionSource; now?: () => Date; resyncMs?: number } = {}): void {
    this.abort = new AbortController();
    const controllers = new EraseControllers({
      kubeConfig: this.kc,
      namespace: this.namespace,
      configNamespace: this.configNamespace,
      jobResyncMs: 1000,
      resyncMs: opts.resyncMs,
      protection: opts.protection,
      now: opts.now,
      logger: process.env.ERASE_DEBUG
        ? createLogger({ level: 'debug', format: 'text', stream: process.stderr })
        : undefined,
    });
    this.running = controllers.start(this.abort.signal);
  }

  async erase(
    req: Omit<EraseRequest, 'name'> & { name?: string },
  ): Promise<{ name: string; generation: number }> {
    const name = req.name ?? `e2e-${this.tag}-${this.lists.length + 1}`;
    this.lists.push(name);
    return { name, generation: await submitErase(this.rest, { ...req, name }) };
  }

  async wait(r: { name: string; generation: number }, timeoutMs = 90_000): Promise<ImageJob> {
    const out = await waitForJob(this.rest, r.name, r.generation, { pollMs: 100, timeoutMs });
    if (!out.job) throw new Error('job already gone');
    return out.job;
  }

  /** The job's worker Pods, by node name. */
  async workers(job: string): Promise<Map<string, PodStatus>> {
    const pods = await this.rest.list<PodStatus>(`/api/v1/namespaces/${this.namespace}/pods`, {
      query: { labelSelector: `${JOB_LABEL}=${job}` },
    });
    return new Map(pods.items.map((p) => [p.spec.nodeName ?? '', p]));
  }

  /** Runs `image` in a real Pod pinned to `node` (never pulled) and waits until it is Running. */
  async runPod(node: string, image: string): Promise<string> {
    const name = `run-${randomBytes(3).toString('hex')}`;
    const p = `/api/v1/namespaces/${this.namespace}/pods`;
    await this.rest.request('POST', p, {
      body: {
        metadata: { name },
        spec: {
          nodeName: node,
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'main', image, imagePullPolicy: 'Never', command: ['/bin/sleep', '3600'] }],
        },
      },
    });
    await until(`Pod ${name} Running on ${node}`, async () => {
      const pod = await this.rest.get<PodStatus>(`${p}/${name}`);
      return pod.status?.phase === 'Running';
    });
    return name;
  }

  async patchNode(node: string, patch: Record<string, unknown>): Promise<void> {
    await this.rest.request('PATCH', `/api/v1/nodes/${node}`, {
      contentType: 'application/merge-patch+json',
      body: patch,
    });
  }

  /** The ImageJob, or undefined once it is gone. */
  async job(name: string): Promise<ImageJob | undefined> {
    return imageJob(this.rest, name);
  }

  /** Every object of a job, in any namespace. */
  async leftovers(job: string): Promise<string[]> {
    const out: string[] = [];
    for (const kind of ['pods', 'configmaps', 'podtemplates']) {
      const l = await this.rest.list<{ metadata: { namespace: string; name: string } }>(`/api/v1/${kind}`, {
        query: { labelSelector: `${JOB_LABEL}=${job}` },
      });
      out.push(...l.items.map((o) => `${kind}/${o.metadata.namespace}/${o.metadata.name}`));
    }
    return out;
  }

  /** The test's ImageJobs (of its ImageLists). */
  async jobs(): Promise<ImageJob[]> {
    const jobs = await this.rest.list<ImageJob>(IMAGEJOBS_PATH);
    return jobs.items.filter((j) => this.lists.includes(j.spec?.imageList?.name));
  }

  async stopControllers(): Promise<void> {
    this.abort?.abort();
    await this.running;
    this.running = undefined;
  }

  async teardown(): Promise<void> {
    // Delete while the controllers still run: the cleanup finalizer removes every worker
    // object, then the job; the real garbage collector removes the jobs of deleted lists.
    for (const name of this.lists) {
      await this.rest.request('DELETE', `${IMAGELISTS_PATH}/${name}`).catch(() => undefined);
    }
    for (const j of await this.jobs())
      await this.rest.request('DELETE', `${IMAGEJOBS_PATH}/${j.metadata.name}`).catch(() => undefined);
    if (this.running)
      await until('the jobs cleaned up', async () => (await this.jobs()).length === 0, 60_000, 250);
    await this.stopControllers();
    // A real namespace deletion: the namespace controller removes the Pods, the kubelets stop them.
    for (const ns of new Set([this.namespace, this.configNamespace]))
      await this.rest
        .request('DELETE', `/api/v1/namespaces/${ns}`)
        .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    this.rest.close();
  }
}

export const results = (job: ImageJob): Record<string, NodeResult> =>
  Object.fromEntries(decodeNodes(job.status?.nodes).map((r) => [r.node, r]));

/**
 * The mocha hooks of a suite that erases on the whole cluster (started by the first suite that
 * asks): a fresh NodeEraseEnv with its controllers running for each test (handed over with `set`,
 * with the cluster), torn down after it.
 */
export function nodeEraseEnvPerTest(set: (c: WholeCluster, env: NodeEraseEnv) => void): void {
  let c: WholeCluster;
  let env: NodeEraseEnv;
  useWholeCluster((x) => (c = x));
  beforeEach(async () => {
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
    set(c, env);
  });
  afterEach(async () => {
    await env.teardown();
  });
}
