// The inventory daemon's cache: one informer per watched kind (the source kinds of the registry,
// ./source-kinds.ts, built in and declared; ReplicaSets as metadata only; Images), cluster-wide or one per namespace of --namespaces, each
// keeping only stripped objects. It is a Runnable that does not need leadership: standby
// replicas keep warm caches, so a new leader starts rebuilding at once.
import * as resources from '../kube/resources.js';
import { withFanOut } from '../concurrency.js';
import { imageResourceName } from '../inventory/naming.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { imagesPath, stripImage, type ImageResource } from '../inventory/image-resource.js';
import {
  BUILTIN,
  type OwnerKindSpec,
  type SourceKinds,
  type SourceKindSpec,
} from '../inventory/source-kinds.js';
import { collectionPath, readKinds, stripFor } from '../inventory/sources.js';
import type { RawObject, StrippedMeta, StrippedObject, StrippedPodSpec } from '../inventory/strip.js';
import type { NamespaceObjects } from '../inventory/source-fields.js';
import type { KubeRest } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';
import { sharedOwners, sharedSpec } from './shared-parts.js';
import { Informer, type CachedObject, type InformerHandlers } from '../controller/informer.js';
import { intern } from '../controller/intern.js';
import { MAX_NAMESPACES, type PerNamespaceList } from '../controller/namespace-list.js';
import { METADATA_LIST_ACCEPT } from '../kube/paginate.js';
import type { Runnable } from '../controller/manager.js';

/** A watched kind's name: the kind for built-in and owner kinds, `Kind.group` for declared ones. */
export type WatchedKind = string;
export const watchedName = (k: SourceKindSpec | OwnerKindSpec): WatchedKind =>
  'declared' in k && k.declared ? k.key : k.kind;
/** The kinds watched with the built-in source kinds only (metrics list these even before a sync). */
export const WATCHED_KINDS: WatchedKind[] = [...readKinds(BUILTIN).map(watchedName), 'Image'];
/** Counts per watched kind; Pod and Image are always there. */
export type KindCounts = { [kind: string]: number; Pod: number; Image: number };

export interface InventoryCacheOptions {
  rest: KubeRest;
  kubeConfig: KubeConfig;
  /** Watch only these namespaces; undefined or empty means all. */
  namespaces?: string[];
  resyncPeriodMs?: number;
  /** The source kinds in force (built-in plus the served declared ones). Default: built-in. */
  kinds?: SourceKinds;
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
    if (o.apiVersion) o.apiVersion = intern(o.apiVersion);
  }
}
function stripper(k: SourceKindSpec | OwnerKindSpec): (raw: unknown) => CachedObject {
  const strip = stripFor(k);
  const paths = 'podSpecs' in k ? k.podSpecs.map((p) => p.split('.')) : [];
  return (raw) => {
    const o = strip(raw as RawObject);
    internMeta(o.metadata);
    if (o.metadata.ownerReferences) o.metadata.ownerReferences = sharedOwners(o.metadata.ownerReferences);
    for (const path of paths) {
      let parent: unknown = o;
      for (const p of path.slice(0, -1)) parent = (parent as Record<string, unknown> | undefined)?.[p];
      const at = parent as Record<string, unknown> | undefined;
      const v = at?.[path.at(-1)!] as StrippedPodSpec | undefined;
      internSpec(v);
      // Pods of one template hold equal specs: one frozen copy for all (shared-parts.ts).
      if (at && v && typeof v === 'object') at[path.at(-1)!] = sharedSpec(v);
    }
    return o as StrippedObject & CachedObject;
  };
}

export class InventoryCache implements Runnable {
  readonly name = 'inventory-cache';
  readonly needLeaderElection = false;
  private readonly informers = new Map<WatchedKind, Informer<CachedObject>[]>();
  private readonly scoped: boolean;
  /** Cluster-scoped declared kinds, and the namespace their objects count in. */
  private readonly clusterScoped = new Map<WatchedKind, string>();

  readonly kinds: SourceKinds;
  private readonly read: (SourceKindSpec | OwnerKindSpec)[];

  constructor(private readonly opts: InventoryCacheOptions) {
    const namespaces = opts.namespaces?.length ? opts.namespaces : undefined;
    this.scoped = Boolean(namespaces);
    this.kinds = opts.kinds ?? BUILTIN;
    this.read = readKinds(this.kinds);
    const scopes: (string | undefined)[] = namespaces ?? [undefined];
    // A cluster-wide informer falls back to one namespace at a time (namespace-list.ts).
    const perNamespace = (path: (ns: string) => string): PerNamespaceList | undefined =>
      namespaces
        ? undefined
        : {
            path,
            namespaces: async () =>
              (
                await resources.list<{ metadata: { name: string } }, string>(
                  opts.rest,
                  'Namespace',
                  undefined,
                  {
                    accept: METADATA_LIST_ACCEPT,
                    map: (n) => n.metadata.name,
                    bounds: { maxItems: MAX_NAMESPACES },
                  },
                )
              ).items,
          };
    const add = (kind: WatchedKind, make: (ns: string | undefined) => Informer<CachedObject>) =>
      this.informers.set(kind, scopes.map(make));
    for (const k of this.read) {
      const kind = watchedName(k);
      const clusterNs = 'namespace' in k ? k.namespace : undefined;
      if (clusterNs !== undefined) {
        // A cluster-scoped kind: one informer of its one collection, its objects kept under
        // the namespace its entry names (the stripper sets it); watched when that namespace is.
        if (!namespaces || namespaces.includes(clusterNs)) {
          this.clusterScoped.set(kind, clusterNs);
          this.informers.set(kind, [
            new Informer<CachedObject>({
              name: kind,
              rest: opts.rest,
              path: collectionPath(k),
              strip: stripper(k),
              logger: opts.logger,
            }),
          ]);
        }
        continue;
      }
      add(
        kind,
        (ns) =>
          new Informer<CachedObject>({
            name: `${kind}${ns ? `@${ns}` : ''}`,
            rest: opts.rest,
            path: collectionPath(k, ns),
            metadataOnly: !('podSpecs' in k),
            strip: stripper(k),
            ...(ns ? {} : { perNamespace: perNamespace((n) => collectionPath(k, n)) }),
            // One resync signal is enough: the Pod informers carry it.
            resyncPeriodMs: kind === 'Pod' ? opts.resyncPeriodMs : undefined,
            logger: opts.logger,
          }),
      );
    }
    add(
      'Image',
      (ns) =>
        new Informer<CachedObject>({
          name: `Image${ns ? `@${ns}` : ''}`,
          rest: opts.rest,
          path: imagesPath(ns),
          strip: (raw) => stripImage(raw as ImageResource) as CachedObject,
          ...(ns ? {} : { perNamespace: perNamespace((n) => imagesPath(n)) }),
          logger: opts.logger,
        }),
    );
  }

  /** The watched kinds, as `on()` and the counters name them. */
  watched(): WatchedKind[] {
    return [...this.informers.keys()];
  }

  /** Registers handlers on every informer of `kind`. */
  on<T extends CachedObject>(kind: WatchedKind, handlers: InformerHandlers<T>): void {
    for (const inf of this.informers.get(kind) ?? [])
      inf.addHandlers(handlers as InformerHandlers<CachedObject>);
  }

  private informerFor(kind: WatchedKind, namespace: string): Informer<CachedObject> | undefined {
    const list = this.informers.get(kind);
    if (!list) return undefined;
    const clusterNs = this.clusterScoped.get(kind);
    if (clusterNs !== undefined) return namespace === clusterNs ? list[0] : undefined;
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
    const out: NamespaceObjects = {};
    for (const k of this.read)
      out[k.key] = (this.informerFor(watchedName(k), namespace)?.list(namespace) ?? []) as StrippedObject[];
    return out;
  }

  /** Whether the cache holds the Image of `normalized` (a normalized ref) in `namespace`. */
  hasImage(namespace: string, normalized: string): boolean {
    const i = this.informerFor('Image', namespace)?.get(namespace, imageResourceName(normalized)) as
      ImageResource | undefined;
    return i?.spec?.image === normalized;
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

  /**
   * Namespaces some watched kind could not read at its last LIST, with the first reason
   * (`Deployment: ...`). Their cached objects are stale: the controller does not rebuild them.
   */
  unreadable(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [kind, list] of this.informers)
      for (const inf of list)
        for (const [ns, why] of inf.unreadable()) if (!out.has(ns)) out.set(ns, `${kind}: ${why}`);
    return out;
  }

  /** Cached objects per kind (for metrics). */
  sizes(): KindCounts {
    const out = { Pod: 0, Image: 0 } as KindCounts;
    for (const [kind, list] of this.informers) out[kind] = list.reduce((n, i) => n + i.size(), 0);
    return out;
  }

  /**
   * Every informer has listed and keeps its watch open (not relisting over and over); else, for
   * /readyz, the first that does not and why (a kind that cannot be listed even one namespace at
   * a time says so here, and in the log).
   */
  ready(): true | string {
    for (const list of this.informers.values())
      for (const inf of list)
        if (!inf.healthy())
          return `${inf.name}: ${inf.hasSynced() ? '' : 'not listed yet; '}${inf.lastError || 'starting'}`;
    return true;
  }

  /**
   * The informers whose cache is not the cluster now (not healthy, or no LIST or watch has
   * succeeded lately: informer-health.ts), with why; empty when every one is current.
   */
  stale(): string[] {
    return [...this.informers.values()]
      .flat()
      .filter((i) => !i.current())
      .map((i) => `${i.name}${i.lastError ? ` (${i.lastError})` : ''}`);
  }

  /** The namespaces whose objects of `kind` could not be read at its last LIST, with the reason. */
  unreadableOf(kind: SourceKindSpec | OwnerKindSpec): ReadonlyMap<string, string> {
    const out = new Map<string, string>();
    for (const inf of this.informers.get(watchedName(kind)) ?? [])
      for (const [ns, why] of inf.unreadable()) out.set(ns, why);
    return out;
  }

  /** Every (kind, namespace) that could not be read, in kind then namespace order (for metrics). */
  unreadableKinds(): { kind: WatchedKind; namespace: string }[] {
    const out: { kind: WatchedKind; namespace: string }[] = [];
    for (const [kind, list] of this.informers)
      for (const ns of list.flatMap((i) => [...i.unreadable().keys()]).sort())
        out.push({ kind, namespace: ns });
    return out;
  }

  /** Kinds with an informer that is not current (the gauge inv_informer_stale). */
  staleKinds(): Set<WatchedKind> {
    const out = new Set<WatchedKind>();
    for (const [kind, list] of this.informers) if (list.some((i) => !i.current())) out.add(kind);
    return out;
  }

  /** Watch events received per kind (all informers of the kind), for tests and diagnostics. */
  events(): KindCounts {
    const out = { Pod: 0, Image: 0 } as KindCounts;
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
    const r = await withFanOut(signal, (s) => Promise.all(all.map((i) => i.waitForSync(s))));
    return r.every(Boolean);
  }

  async start(signal: AbortSignal): Promise<void> {
    const all = [...this.informers.values()].flat();
    await withFanOut(signal, (s) => Promise.all(all.map((i) => i.run(s))));
  }
}
