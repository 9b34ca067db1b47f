// The test harness plays the kubelet of every fake Node, honestly: it binds each worker Pod to the
// node its affinity names through the binding subresource, as the scheduler does (the plain API
// server runs none), and for each worker Pod bound to a node it runs the real `inv node-remove` (node bin/run.js) with that Pod's arguments, the
// mounted ConfigMaps written to temp files, against the run's real containerd, then writes the
// Pod status the way a kubelet does (Running, then phase + terminated state + termination
// message). Pods being deleted are finalized (grace period 0), as a kubelet does once the
// containers are gone.
//
// Where the harness is still used, and why: the erase end-to-end cases run on real kubelets
// (test/nodes/). The harness stays only for what a real kubelet cannot give on demand or at
// that scale: a worker that fails or hangs forever on a healthy node, many Nodes with labels
// and conditions set directly, a controller SIGKILLed at random points, and the 1,000- and
// 5,000-node figures of the benchmark and size tests.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isNotFound, type KubeRest } from '../../src/core/kube/rest.js';
import { JOB_LABEL } from '../../src/core/erase/api/types.js';
import { CRI_SOCKET_IN_POD } from '../../src/core/erase/worker/pod-spec.js';
import { targetNode, type AffinitySpec } from '../../src/core/erase/worker/placement.js';
import { repoRoot } from '../support/paths.js';

/**
 * run: real node-remove; fail: exit 1 with a message; hang: Running forever; ignore: nothing;
 * an object: the container ends with that exit code and that termination message, as written
 * by hand (a worker image that is not ours, or a garbled report).
 */
export type Behavior = 'run' | 'fail' | 'hang' | 'ignore' | { exitCode: number; message: string };

interface ConfigMapSource {
  name: string;
  items?: { key: string; path: string }[];
}
interface Pod {
  metadata: { name: string; namespace: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec: {
    nodeName?: string;
    affinity?: AffinitySpec['affinity'];
    containers: {
      name: string;
      image: string;
      args?: string[];
      volumeMounts?: { name: string; mountPath: string }[];
    }[];
    volumes?: {
      name: string;
      configMap?: ConfigMapSource;
      projected?: { sources: { configMap?: ConfigMapSource }[] };
    }[];
  };
  status?: { phase?: string };
}

export interface KubeletRun {
  pod: string;
  node: string;
  args: string[];
  exitCode: number;
  message: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class FakeKubelet {
  readonly runs: KubeletRun[] = [];
  private readonly seen = new Set<string>();
  private stopped = false;
  private loop?: Promise<void>;
  private chain: Promise<void> = Promise.resolve();
  /** Set to false to stop marking new Pods (they stay Pending, as on a slow node). */
  active = true;

  constructor(
    private readonly rest: KubeRest,
    private readonly namespace: string,
    private readonly criEndpoint: string,
    private readonly behavior: (node: string) => Behavior = () => 'run',
  ) {}

  start(): this {
    this.loop = (async () => {
      while (!this.stopped) {
        try {
          await this.tick();
        } catch (e) {
          if (!this.stopped) process.stderr.write(`kubelet: ${(e as Error).message}\n`);
        }
        await sleep(100);
      }
    })();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.chain;
  }

  private async tick(): Promise<void> {
    const pods = await this.rest.list<Pod>(`/api/v1/namespaces/${this.namespace}/pods`, {
      query: { labelSelector: JOB_LABEL },
    });
    for (const pod of pods.items) {
      const key = pod.metadata.name;
      if (pod.metadata.deletionTimestamp) {
        await this.rest
          .request('DELETE', `/api/v1/namespaces/${this.namespace}/pods/${key}`, {
            body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 },
          })
          .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
        continue;
      }
      if (!pod.spec.nodeName && !(await this.bind(pod))) continue;
      if (
        !this.active ||
        this.seen.has(`${key}/${pod.metadata.labels?.[JOB_LABEL]}`) ||
        pod.status?.phase === 'Succeeded' ||
        pod.status?.phase === 'Failed'
      )
        continue;
      const node = pod.spec.nodeName ?? '';
      const b = this.behavior(node);
      if (b === 'ignore') continue;
      this.seen.add(`${key}/${pod.metadata.labels?.[JOB_LABEL]}`);
      // One worker at a time: the "nodes" share one containerd, so results stay deterministic.
      this.chain = this.chain
        .then(() => this.runPod(pod, b))
        .catch((e) => {
          process.stderr.write(`kubelet: pod ${key}: ${(e as Error).message}\n`);
        });
    }
  }

  /** The scheduler's part: binds the Pod to the one node its affinity names; false if none. */
  private async bind(pod: Pod): Promise<boolean> {
    const node = targetNode(pod.spec);
    if (!node) return false;
    await this.rest.request(
      'POST',
      `/api/v1/namespaces/${this.namespace}/pods/${pod.metadata.name}/binding`,
      {
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name: pod.metadata.name },
          target: { apiVersion: 'v1', kind: 'Node', name: node },
        },
      },
    );
    pod.spec.nodeName = node;
    return true;
  }

  private statusPath(pod: Pod) {
    return `/api/v1/namespaces/${this.namespace}/pods/${pod.metadata.name}/status`;
  }

  private async writeStatus(pod: Pod, status: Record<string, unknown>): Promise<void> {
    const cur = await this.rest.get<Pod & { metadata: { resourceVersion: string } }>(
      `/api/v1/namespaces/${this.namespace}/pods/${pod.metadata.name}`,
    );
    await this.rest.request('PUT', this.statusPath(pod), { body: { ...cur, status } });
  }

  private async runPod(pod: Pod, b: Behavior): Promise<void> {
    const c = pod.spec.containers[0]!;
    const started = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const base = { name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0 };
    try {
      await this.writeStatus(pod, {
        phase: 'Running',
        startTime: started,
        containerStatuses: [
          { ...base, ready: true, started: true, state: { running: { startedAt: started } } },
        ],
      });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (b === 'hang') return;
    let exitCode = 1;
    let message = 'simulated failure: runtime crashed';
    let args: string[] = [];
    if (typeof b === 'object') ({ exitCode, message } = b);
    if (b === 'run') {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-kubelet-'));
      try {
        args = await this.localArgs(pod, dir);
        const term = path.join(dir, 'termination-log');
        exitCode = await new Promise<number>((resolve) => {
          execFile(
            process.execPath,
            [path.join(repoRoot, 'bin', 'run.js'), ...args, '--termination-message-path', term],
            {
              cwd: repoRoot,
              env: { ...process.env, NO_COLOR: '1', NODE_NAME: pod.spec.nodeName ?? '' },
              timeout: 60_000,
            },
            (err) => resolve(err ? (typeof err.code === 'number' ? err.code : 1) : 0),
          );
        });
        message = fs.existsSync(term) ? fs.readFileSync(term, 'utf8') : '';
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    this.runs.push({ pod: pod.metadata.name, node: pod.spec.nodeName ?? '', args, exitCode, message });
    const finished = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await this.writeStatus(pod, {
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      startTime: started,
      containerStatuses: [
        {
          ...base,
          started: false,
          state: {
            terminated: {
              exitCode,
              reason: exitCode === 0 ? 'Completed' : 'Error',
              message,
              startedAt: started,
              finishedAt: finished,
            },
          },
        },
      ],
    }).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
  }

  /** The Pod's args with mounted ConfigMap files written under `dir` and the test CRI socket. */
  private async localArgs(pod: Pod, dir: string): Promise<string[]> {
    const c = pod.spec.containers[0]!;
    const map = new Map<string, string>();
    for (const m of c.volumeMounts ?? []) {
      const vol = pod.spec.volumes?.find((v) => v.name === m.name);
      // A ConfigMap's keys as files; a projected volume's ConfigMaps' items at their paths.
      const sources = vol?.configMap
        ? [{ configMap: vol.configMap }]
        : (vol?.projected?.sources.filter((x) => x.configMap) ?? []);
      if (!sources.length) continue;
      const local = path.join(dir, m.name);
      fs.mkdirSync(local);
      for (const { configMap } of sources) {
        const cm = await this.rest.get<{ data?: Record<string, string> }>(
          `/api/v1/namespaces/${this.namespace}/configmaps/${configMap!.name}`,
        );
        const items = configMap!.items ?? Object.keys(cm.data ?? {}).map((key) => ({ key, path: key }));
        for (const { key, path: f } of items) fs.writeFileSync(path.join(local, f), cm.data?.[key] ?? '');
      }
      map.set(m.mountPath, local);
    }
    return (c.args ?? []).map((a) => {
      if (a === `unix://${CRI_SOCKET_IN_POD}`) return this.criEndpoint;
      if (map.has(a)) return map.get(a)!;
      for (const [mount, local] of map) if (a.startsWith(`${mount}/`)) return local + a.slice(mount.length);
      return a;
    });
  }
}

/** Creates Node objects (Ready unless told otherwise), as a kubelet registering would. */
export async function createNodes(
  rest: KubeRest,
  nodes: { name: string; labels?: Record<string, string>; ready?: boolean; cordoned?: boolean }[],
): Promise<void> {
  for (const n of nodes) {
    const body = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: n.name, labels: { 'kubernetes.io/hostname': n.name, ...n.labels } },
      spec: n.cordoned ? { unschedulable: true } : {},
    };
    const created = await rest.request<Record<string, unknown>>('POST', '/api/v1/nodes', { body });
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await rest.request('PUT', `/api/v1/nodes/${n.name}/status`, {
      body: {
        ...created,
        status: {
          conditions: [
            {
              type: 'Ready',
              status: n.ready === false ? 'False' : 'True',
              reason: n.ready === false ? 'KubeletNotReady' : 'KubeletReady',
              message: 'test harness',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
    });
  }
}
