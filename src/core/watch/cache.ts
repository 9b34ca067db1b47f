// The inventory daemon's cache: one informer per watched kind (Pod, Deployment, StatefulSet,
// DaemonSet, Job, CronJob, Image), cluster-wide or one per namespace of --namespaces, each
// keeping only stripped objects. It is a Runnable that does not need leadership: standby
// replicas keep warm caches, so a new leader starts rebuilding at once.
import type { KubeConfig } from '@kubernetes/client-node';
import { imagesPath, stripImage, type ImageResource } from '../inventory/image-resource.js';
import { collectionPath, SOURCE_KINDS, stripFor, type SourceKind } from '../inventory/sources.js';
import type { RawObject, StrippedMeta, StrippedPodSpec } from '../inventory/strip.js';
import type { NamespaceObjects } from '../inventory/types.js';
import type { KubeRest } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';
import { Informer, intern, type CachedObject, type InformerHandlers } from './informer.js';
import type { Runnable } from '../controller/manager.js';

export type WatchedKind = SourceKind | 'Image';
export const WATCHED_KINDS: WatchedKind[] = [...(Object.keys(SOURCE_KINDS) as SourceKind[]), 'Image'];

export interface InventoryCacheOptions {
  rest: KubeRest;
  kubeConfig: KubeConfig;
  /** Watch only these namespaces; undefined or empty means all. */
  namespaces?: string[];
  resyncPeriodMs?: number;
  logger: Logger;
}

// Share repeated strings of stripped objects (image refs, container names, owner kinds/names).
function internSpec(s: StrippedPodSpec | undefined): void {
  for (const list of [s?.containers, s?.initContainers, s?.ephemeralContainers]) {
    for (const c of list ?? []) {
      c.name = intern(c.name);
      if (c.image !== undefined) c.image = intern(c.image);
    }
  }
}
function internMeta(m: StrippedMeta): void {
  for (const o of m.ownerReferences ?? []) {
    o.kind = intern(o.kind);
    o.name = intern(o.name);
    if (o.uid) o.uid = intern(o.uid);
  }
}
function stripper(kind: SourceKind): (raw: unknown) => CachedObject {
  const strip = stripFor(kind);
  return (raw) => {
    const o = strip(raw as RawObject) as {
      metadata: StrippedMeta;
      spec: StrippedPodSpec & {
        template?: { spec: StrippedPodSpec };
        jobTemplate?: { spec: { template: { spec: StrippedPodSpec } } };
      };
    };
    internMeta(o.metadata);
    if (kind === 'Pod') internSpec(o.spec);
    else if (kind === 'CronJob') internSpec(o.spec.jobTemplate?.spec.template.spec);
    else internSpec(o.spec.template?.spec);
    return o;
  };
}

export class InventoryCache implements Runnable {
  readonly name = 'inventory-cache';
  readonly needLeaderElection = false;
  private readonly informers = new Map<WatchedKind, Informer<CachedObject>[]>();
  private readonly scoped: boolean;

  constructor(private readonly opts: InventoryCacheOptions) {
    const namespaces = opts.namespaces?.length ? opts.namespaces : undefined;
    this.scoped = Boolean(namespaces);
    for (const kind of WATCHED_KINDS) {
      const scopes: (string | undefined)[] = namespaces ?? [undefined];
      this.informers.set(
        kind,
        scopes.map(
          (ns) =>
            new Informer<CachedObject>({
              name: `${kind}${ns ? `@${ns}` : ''}`,
              rest: opts.rest,
              path: kind === 'Image' ? imagesPath(ns) : collectionPath(kind, ns),
              strip:
                kind === 'Image'
                  ? (raw) => stripImage(raw as ImageResource) as CachedObject
                  : stripper(kind as SourceKind),
              // One resync signal is enough: the Pod informers carry it.
              resyncPeriodMs: kind === 'Pod' ? opts.resyncPeriodMs : undefined,
              logger: opts.logger,
            }),
        ),
      );
    }
  }

  /** Registers handlers on every informer of `kind`. */
  on<T extends CachedObject>(kind: WatchedKind, handlers: InformerHandlers<T>): void {
    for (const inf of this.informers.get(kind)!) inf.addHandlers(handlers as InformerHandlers<CachedObject>);
  }

  private informerFor(kind: WatchedKind, namespace: string): Informer<CachedObject> | undefined {
    const list = this.informers.get(kind)!;
    if (!this.scoped) return list[0];
    const i = this.opts.namespaces!.indexOf(namespace);
    return i < 0 ? undefined : list[i];
  }

  /** True when the cache watches every namespace (no --namespaces filter). */
  get clusterWide(): boolean {
    return !this.scoped;
  }

  /** True when `namespace` is inside the --namespaces filter (always true without one). */
  inScope(namespace: string): boolean {
    return !this.scoped || this.opts.namespaces!.includes(namespace);
  }

  /** The namespace's source objects, as reconcileNamespace takes them. */
  objects(namespace: string): NamespaceObjects {
    const out: Record<string, unknown[]> = {};
    for (const kind of Object.keys(SOURCE_KINDS) as SourceKind[]) {
      out[SOURCE_KINDS[kind].key] = this.informerFor(kind, namespace)?.list(namespace) ?? [];
    }
    return out as unknown as NamespaceObjects;
  }

  images(namespace: string): ImageResource[] {
    return (this.informerFor('Image', namespace)?.list(namespace) ?? []) as ImageResource[];
  }

  /** Every namespace that has a cached object of any watched kind. */
  namespaces(): Set<string> {
    const out = new Set<string>();
    for (const list of this.informers.values())
      for (const inf of list) for (const ns of inf.namespaces()) out.add(ns);
    return out;
  }

  /** Cached objects per kind (for metrics). */
  sizes(): Record<WatchedKind, number> {
    const out = {} as Record<WatchedKind, number>;
    for (const [kind, list] of this.informers) out[kind] = list.reduce((n, i) => n + i.size(), 0);
    return out;
  }

  /** Every informer has listed and keeps its watch open (not relisting over and over). */
  ready(): boolean {
    for (const list of this.informers.values()) for (const inf of list) if (!inf.healthy()) return false;
    return true;
  }

  /** Watch events received per kind (all informers of the kind), for tests and diagnostics. */
  events(): Record<WatchedKind, number> {
    const out = {} as Record<WatchedKind, number>;
    for (const [kind, list] of this.informers) out[kind] = list.reduce((n, i) => n + i.stats.events, 0);
    return out;
  }

  /** Informers' counters, for tests and diagnostics. */
  informerStats(): { name: string; lists: number; watches: number; watchErrors: number; events: number }[] {
    return [...this.informers.values()].flat().map((i) => ({ name: i.name, ...i.stats }));
  }

  hasSynced(): boolean {
    for (const list of this.informers.values()) for (const inf of list) if (!inf.hasSynced()) return false;
    return true;
  }

  async waitForSync(signal: AbortSignal): Promise<boolean> {
    const all = [...this.informers.values()].flat();
    const r = await Promise.all(all.map((i) => i.waitForSync(signal)));
    return r.every(Boolean);
  }

  async start(signal: AbortSignal): Promise<void> {
    await Promise.all([...this.informers.values()].flat().map((i) => i.run(signal)));
  }
}
