// What the erase controllers read, and from where. Two implementations of one interface:
//
//   EraseCache   informers (list+watch through KubeRest, src/core/controller/informer.ts) on ImageLists,
//                ImageJobs, Nodes and, in the controllers' namespace, the worker Pods, the
//                ConfigMaps and the worker PodTemplates. Reads answer from memory: a reconcile of
//                a running job on an unchanged cluster makes no LIST and no GET.
//   RestReader   direct GETs and LISTs (tests that drive one reconcile by hand; no watch to run).
//
// A cache lags the API server by the time an event takes to arrive, so two reads are treated
// with care (controller-runtime has the same issue and the same answers):
//   - our own writes: `wrote(before, after)` remembers the object we wrote; until the cache
//     shows a resourceVersion other than the one we replaced, reads return what we wrote, so
//     the next reconcile does not start from a state we already left behind;
//   - absence: a worker object missing from the cache may be one we created a moment ago.
//     Callers that would act on "it is gone" (drop it from the inventory, fail its node) confirm
//     with `confirmGone`, one GET, only in that rare case.
import * as resources from '../../kube/resources.js';
import { resourcePath } from '../../kube/resources.js';
import { withFanOut } from '../../concurrency.js';
import { isNotFound, type KubeRest } from '../../kube/rest.js';
import type { Logger } from '../../observability/logger.js';
import type { KubeObject } from '../../apply-inventory/objects.js';
import { Informer, type CachedObject } from '../../controller/informer.js';
import type { NodeLike } from '../nodes/selection.js';
import { prescreenFacts, type PrescreenFacts } from '../nodes/prescreen.js';
import { matches, parseSelector } from '../spec/selector.js';
import { IMAGELIST_LABEL, JOB_LABEL, type ImageJob, type ImageList } from '../api/types.js';

export interface ConfigMapLike {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

/** A Node as the erase controllers need it: labels, cordon, the Ready condition. */
export interface ErasedNode extends NodeLike {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] };
  /** For threshold runs: the node's listed images and capacity, summed (../nodes/prescreen.ts). */
  prescreen?: PrescreenFacts;
}

export type WorkerKind = 'Pod' | 'ConfigMap' | 'PodTemplate';

export interface EraseReader {
  job(name: string): Promise<ImageJob | undefined>;
  list(name: string): Promise<ImageList | undefined>;
  /** The ImageJobs labelled as jobs of this ImageList. */
  jobsOf(list: string): Promise<ImageJob[]>;
  /** Every ImageJob (the cluster-wide bound on running jobs counts them). */
  allJobs(): Promise<ImageJob[]>;
  nodes(): Promise<ErasedNode[]>;
  /** Objects of one kind in `namespace` labelled as the job's workers. */
  workers(kind: WorkerKind, namespace: string, job: string): Promise<KubeObject[]>;
  configMap(namespace: string, name: string): Promise<ConfigMapLike | undefined>;
  configMaps(namespace: string, labelSelector: string): Promise<ConfigMapLike[]>;
  /** Records a successful write of `obj` that replaced the version `replacedRv`. */
  wrote(kind: 'ImageJob' | 'ImageList', obj: ImageJob | ImageList, replacedRv: string | undefined): void;
  /** True when `path` is gone at the API server (a GET, never answered from a cache). */
  confirmGone(path: string): Promise<boolean>;
}

const notFoundAsUndefined = <T>(p: Promise<T>): Promise<T | undefined> =>
  p.catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));

const workerPath = (kind: WorkerKind, ns: string) => resourcePath(kind, ns);

async function goneAt(rest: KubeRest, path: string): Promise<boolean> {
  try {
    await rest.get(path);
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  }
}

/** Reads straight from the API server. */
export class RestReader implements EraseReader {
  constructor(private readonly rest: KubeRest) {}

  job(name: string) {
    return notFoundAsUndefined(resources.get<ImageJob>(this.rest, 'ImageJob', undefined, name));
  }
  list(name: string) {
    return notFoundAsUndefined(resources.get<ImageList>(this.rest, 'ImageList', undefined, name));
  }
  async jobsOf(list: string) {
    return (
      await resources.list<ImageJob>(this.rest, 'ImageJob', undefined, {
        query: { labelSelector: `${IMAGELIST_LABEL}=${list}` },
      })
    ).items;
  }
  async allJobs() {
    return (await resources.list<ImageJob>(this.rest, 'ImageJob')).items;
  }
  async nodes() {
    return (await resources.list<ErasedNode>(this.rest, 'Node')).items;
  }
  async workers(kind: WorkerKind, namespace: string, job: string) {
    return (
      await resources.list<KubeObject>(this.rest, kind, namespace, {
        query: { labelSelector: `${JOB_LABEL}=${job}` },
      })
    ).items;
  }
  configMap(namespace: string, name: string) {
    return notFoundAsUndefined(resources.get<ConfigMapLike>(this.rest, 'ConfigMap', namespace, name));
  }
  async configMaps(namespace: string, labelSelector: string) {
    return (
      await resources.list<ConfigMapLike>(this.rest, 'ConfigMap', namespace, {
        query: { labelSelector },
      })
    ).items;
  }
  wrote(): void {
    // Every read goes to the server: nothing to remember.
  }
  confirmGone(path: string) {
    return goneAt(this.rest, path);
  }
}

/** A Node reduced to what node selection and readiness need (a Node object is ~10 KiB). */
export function stripNode(raw: unknown): ErasedNode {
  const n = raw as {
    metadata?: { name?: string; labels?: Record<string, string> };
    spec?: { unschedulable?: boolean };
    status?: {
      conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
      images?: { sizeBytes?: number }[];
      capacity?: Record<string, string>;
    };
  };
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    metadata: { name: n.metadata?.name ?? '', labels: n.metadata?.labels },
    spec: { unschedulable: n.spec?.unschedulable },
    status: {
      conditions: ready
        ? [
            {
              type: 'Ready',
              status: ready.status,
              reason: ready.reason,
              message: ready.message?.slice(0, 300),
            },
          ]
        : [],
    },
    prescreen: prescreenFacts(n.status ?? {}),
  };
}

export interface EraseCacheOptions {
  rest: KubeRest;
  /** The workers' namespace: worker Pods, their ConfigMaps and PodTemplates. */
  namespace: string;
  /** The configuration namespace: inv-erase-config and the exclusion lists (default: `namespace`). */
  configNamespace?: string;
  logger?: Logger;
  /** Passed to every informer (tests: short watch windows). */
  watchTimeoutSeconds?: [number, number];
}

type Cached = CachedObject & KubeObject;

/** The informers behind the erase controllers, and reads from them. */
export class EraseCache implements EraseReader {
  readonly lists: Informer<ImageList & CachedObject>;
  readonly jobs: Informer<ImageJob & CachedObject>;
  readonly nodeInformer: Informer<ErasedNode & CachedObject>;
  readonly pods: Informer<Cached>;
  readonly configMapInformer: Informer<ConfigMapLike & CachedObject>;
  /** The configuration namespace's ConfigMaps, when it is not the workers' namespace. */
  readonly settingsInformer?: Informer<ConfigMapLike & CachedObject>;
  readonly podTemplates: Informer<Cached>;
  private readonly overlay = new Map<string, { replacedRv: string; obj: ImageJob | ImageList }>();
  private readonly parsedSelectors = new Map<string, ReturnType<typeof parseSelector>>();

  constructor(private readonly opts: EraseCacheOptions) {
    const { rest, namespace: ns, logger } = opts;
    const common = { rest, logger, watchTimeoutSeconds: opts.watchTimeoutSeconds };
    this.lists = new Informer({
      ...common,
      name: 'imagelists',
      path: resourcePath('ImageList'),
      strip: (o) => o as ImageList & CachedObject,
    });
    this.jobs = new Informer({
      ...common,
      name: 'imagejobs',
      path: resourcePath('ImageJob'),
      strip: (o) => o as ImageJob & CachedObject,
    });
    this.nodeInformer = new Informer({
      ...common,
      name: 'nodes',
      path: resourcePath('Node'),
      strip: (o) => stripNode(o) as ErasedNode & CachedObject,
    });
    this.pods = new Informer({
      ...common,
      name: `worker-pods@${ns}`,
      path: workerPath('Pod', ns),
      query: { labelSelector: JOB_LABEL },
      strip: (o) => o as Cached,
    });
    this.configMapInformer = new Informer({
      ...common,
      name: `configmaps@${ns}`,
      path: workerPath('ConfigMap', ns),
      strip: (o) => o as ConfigMapLike & CachedObject,
    });
    const cfgNs = opts.configNamespace ?? ns;
    if (cfgNs !== ns)
      this.settingsInformer = new Informer({
        ...common,
        name: `configmaps@${cfgNs}`,
        path: workerPath('ConfigMap', cfgNs),
        strip: (o) => o as ConfigMapLike & CachedObject,
      });
    this.podTemplates = new Informer({
      ...common,
      name: `worker-podtemplates@${ns}`,
      path: workerPath('PodTemplate', ns),
      query: { labelSelector: JOB_LABEL },
      strip: (o) => o as Cached,
    });
  }

  informers(): Informer<CachedObject>[] {
    return [
      this.lists,
      this.jobs,
      this.nodeInformer,
      this.pods,
      this.configMapInformer,
      ...(this.settingsInformer ? [this.settingsInformer] : []),
      this.podTemplates,
    ] as Informer<CachedObject>[];
  }

  /** Runs every informer until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    // Each informer (and each of its waits) listens on the one signal.
    return withFanOut(signal, (s) => Promise.all(this.informers().map((i) => i.run(s)))).then(
      () => undefined,
    );
  }

  /** True once every informer has listed; false if `signal` aborted first. */
  async waitForSync(signal: AbortSignal): Promise<boolean> {
    const r = await withFanOut(signal, (s) => Promise.all(this.informers().map((i) => i.waitForSync(s))));
    return r.every(Boolean);
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  private fresh<T extends ImageJob | ImageList>(key: string, cached: T | undefined): T | undefined {
    const o = this.overlay.get(key);
    if (!o) return cached;
    // The cache still shows the version we replaced: our write has not arrived yet.
    if (cached && cached.metadata.resourceVersion === o.replacedRv) return o.obj as T;
    this.overlay.delete(key);
    return cached;
  }

  job(name: string) {
    return Promise.resolve(this.fresh(`ImageJob/${name}`, this.jobs.get('', name)));
  }
  list(name: string) {
    return Promise.resolve(this.fresh(`ImageList/${name}`, this.lists.get('', name)));
  }
  jobsOf(list: string) {
    return Promise.resolve(
      this.jobs
        .list('')
        .filter((j) => j.metadata.labels?.[IMAGELIST_LABEL] === list)
        .map((j) => this.fresh(`ImageJob/${j.metadata.name}`, j)!),
    );
  }
  allJobs() {
    return Promise.resolve(this.jobs.list('').map((j) => this.fresh(`ImageJob/${j.metadata.name}`, j)!));
  }
  nodes() {
    return Promise.resolve(this.nodeInformer.list(''));
  }
  workers(kind: WorkerKind, namespace: string, job: string) {
    if (namespace !== this.opts.namespace)
      throw new Error(`erase cache: namespace ${namespace} is not cached`);
    const inf =
      kind === 'Pod' ? this.pods : kind === 'PodTemplate' ? this.podTemplates : this.configMapInformer;
    return Promise.resolve(
      (inf.list(namespace) as KubeObject[]).filter((o) => o.metadata?.labels?.[JOB_LABEL] === job),
    );
  }
  /** The informer of a namespace's ConfigMaps: the workers' or the configuration's. */
  private configMapsOf(namespace: string): Informer<ConfigMapLike & CachedObject> {
    if (namespace === this.opts.namespace) return this.configMapInformer;
    if (this.settingsInformer && namespace === this.opts.configNamespace) return this.settingsInformer;
    throw new Error(`erase cache: namespace ${namespace} is not cached`);
  }
  configMap(namespace: string, name: string) {
    return Promise.resolve(this.configMapsOf(namespace).get(namespace, name));
  }
  configMaps(namespace: string, labelSelector: string) {
    const informer = this.configMapsOf(namespace);
    let sel = this.parsedSelectors.get(labelSelector);
    if (!sel) {
      sel = parseSelector(labelSelector);
      this.parsedSelectors.set(labelSelector, sel);
    }
    const s = sel;
    return Promise.resolve(informer.list(namespace).filter((c) => matches(s, c.metadata.labels)));
  }
  wrote(kind: 'ImageJob' | 'ImageList', obj: ImageJob | ImageList, replacedRv: string | undefined): void {
    if (replacedRv) this.overlay.set(`${kind}/${obj.metadata.name}`, { replacedRv, obj });
  }
  confirmGone(path: string) {
    return goneAt(this.opts.rest, path);
  }
}
