// Where a `*` prune learns which images the cluster's workloads reference. Two sources, one
// answer: the same rules as the inventory (rules.ts) over every namespace's source objects (the
// kinds of inventory/source-kinds.ts, built in and declared, and ReplicaSets' owners), so a Deployment scaled to zero, a suspended
// CronJob or a Job whose Pods are gone still protect their images; plus every Image resource in
// the cluster, so what the inventory recorded is never pruned either.
//
// - inv watch: the daemon's informer cache, when it watches every namespace and sees the whole
//   cluster now: every informer synced and current (its last LIST or watch succeeded lately),
//   no namespace unreadable;
// - inv erase --standalone (and any other case): a fresh in-memory scan that writes nothing.
//
// Either fails loudly rather than returning a partial set: the ImageJob controller then does
// not start the prune (fail closed), and says which namespace's objects block it
// (blocking-namespaces.ts).
import { isNotFound, type KubeRest } from '../../kube/rest.js';
import { imagesPath, type ImageResource } from '../../inventory/image-resource.js';
import { desiredImages } from '../../inventory/rules.js';
import type { OwnerKindSpec, SourceKindSpec, SourceKinds } from '../../inventory/source-kinds.js';
import { listKind, readKinds } from '../../inventory/sources.js';
import { emptyNamespaceObjects, type NamespaceObjects } from '../../inventory/source-fields.js';
import type { ProtectedUse } from '../../contract/protected-set.js';
import { blockersError, namingBlockers } from './blocking-namespaces.js';

export interface ProtectionSource {
  /** Every (namespace, ref, kinds) the cluster's workloads and Image resources reference. */
  uses(): Promise<ProtectedUse[]>;
  /** For logs and the job's message: "the daemon's cache" or "a fresh scan". */
  readonly describe: string;
  /** True when uses() lists the whole cluster (no cache): a waiting prune then asks less often. */
  readonly scansCluster?: boolean;
}

/** What the daemon's InventoryCache offers (kept narrow so erase does not depend on watch). */
export interface InventoryCacheView {
  /** True when the cache watches every namespace (no --namespaces filter). */
  readonly clusterWide: boolean;
  hasSynced(): boolean;
  namespaces(): Set<string>;
  objects(namespace: string): NamespaceObjects;
  /** The source kinds the cache watches (built-in plus declared). */
  readonly kinds?: SourceKinds;
  images(namespace: string): ImageResource[];
  /** Namespaces whose objects the cache could not read (then the cache is not the whole set). */
  unreadable(): ReadonlyMap<string, string>;
  /** The informers that are not the cluster now (not current), with why; empty when all are. */
  stale(): string[];
  /** The namespaces whose objects of `kind` the cache could not read, with the reason. */
  unreadableOf(kind: SourceKindSpec | OwnerKindSpec): ReadonlyMap<string, string>;
}

/** What is already known of the namespaces whose objects of a kind cannot be read. */
export type KnownBlockers = (kind: SourceKindSpec | OwnerKindSpec) => ReadonlyMap<string, string>;

function usesOf(
  byNamespace: Map<string, NamespaceObjects>,
  images: Iterable<ImageResource>,
  sourceKinds?: SourceKinds,
): ProtectedUse[] {
  const out: ProtectedUse[] = [];
  for (const [namespace, objs] of byNamespace) {
    for (const [image, kinds] of desiredImages(namespace, objs, sourceKinds).images)
      out.push({ namespace, image, kinds: [...kinds] });
  }
  for (const img of images) {
    if (!img.spec?.image || img.metadata.deletionTimestamp) continue;
    const kinds = (img.status?.kinds ?? '').split(',').filter(Boolean);
    out.push({ namespace: img.metadata.namespace ?? '', image: img.spec.image, kinds });
  }
  return out;
}

/**
 * How long one probe for blocking namespaces answers for its kind: a probe lists every
 * namespace (10,001 LISTs at 10,000), so a waiting prune probes at most every 10 minutes.
 */
const PROBE_REUSE_MS = 10 * 60_000;

/** A fresh, read-only scan of the whole cluster: six cluster-wide LISTs plus the Images. */
export class ScanProtection implements ProtectionSource {
  readonly describe = 'a fresh scan of the cluster';
  readonly scansCluster = true;

  /**
   * The last probe's answer per kind: a waiting prune asks again every few seconds to a minute,
   * and a probe lists every namespace, so one probe per PROBE_REUSE_MS names the blockers.
   */
  private readonly probed = new Map<string, { at: number; error: Error }>();

  constructor(
    private readonly rest: KubeRest,
    private readonly kinds?: SourceKinds,
    /** The daemon's knowledge of unreadable namespaces: named from it, no probe. */
    private readonly known?: KnownBlockers,
  ) {}

  /** The error of a failed LIST of `kind`, naming whose objects block it (known, or probed lately). */
  private async blocked(kind: SourceKindSpec | OwnerKindSpec, err: unknown): Promise<Error> {
    const known = [...(this.known?.(kind) ?? [])].map(([namespace, reason]) => ({ namespace, reason }));
    if (known.length)
      return blockersError(
        kind,
        known.sort((a, b) => (a.namespace < b.namespace ? -1 : 1)),
        err,
      );
    const hit = this.probed.get(kind.key);
    if (hit && Date.now() - hit.at < PROBE_REUSE_MS) return hit.error;
    const error = await namingBlockers(this.rest, kind, err);
    this.probed.set(kind.key, { at: Date.now(), error });
    return error;
  }

  async uses(): Promise<ProtectedUse[]> {
    const byNamespace = new Map<string, NamespaceObjects>();
    await Promise.all(
      readKinds(this.kinds).map(async (kind) => {
        // A failed cluster-wide LIST still fails the set (closed), naming whose objects block it.
        const { items } = await listKind(this.rest, kind).catch(async (e: unknown) =>
          Promise.reject(await this.blocked(kind, e)),
        );
        for (const o of items) {
          const ns = o.metadata.namespace ?? '';
          let objs = byNamespace.get(ns);
          if (!objs) byNamespace.set(ns, (objs = emptyNamespaceObjects()));
          (objs[kind.key] ??= []).push(o);
        }
      }),
    );
    let images: ImageResource[] = [];
    try {
      images = (await this.rest.list<ImageResource>(imagesPath())).items;
    } catch (e) {
      // No Image CRD: there is no recorded inventory, the workloads above are the whole answer.
      if (!isNotFound(e)) throw e;
    }
    return usesOf(byNamespace, images, this.kinds);
  }
}

/**
 * The daemon's cache when it covers the whole cluster now; otherwise (a --namespaces filter,
 * not synced yet, an informer that is not current, or namespaces it could not read) a fresh
 * scan, since a partial or frozen view would leave images that workloads now reference
 * unprotected. The fresh scan fails closed, naming what blocks it from the cache's knowledge.
 */
export class CacheProtection implements ProtectionSource {
  private readonly fallback: ScanProtection;

  constructor(
    private readonly cache: InventoryCacheView,
    rest: KubeRest,
  ) {
    this.fallback = new ScanProtection(rest, cache.kinds, (k) => cache.unreadableOf(k));
  }

  get describe(): string {
    return this.usable() ? "the daemon's cache" : this.fallback.describe;
  }

  get scansCluster(): boolean {
    return !this.usable();
  }

  private usable(): boolean {
    return (
      this.cache.clusterWide &&
      this.cache.hasSynced() &&
      this.cache.unreadable().size === 0 &&
      this.cache.stale().length === 0
    );
  }

  async uses(): Promise<ProtectedUse[]> {
    if (!this.usable()) return this.fallback.uses();
    const byNamespace = new Map<string, NamespaceObjects>();
    const images: ImageResource[] = [];
    for (const ns of this.cache.namespaces()) {
      byNamespace.set(ns, this.cache.objects(ns));
      images.push(...this.cache.images(ns));
    }
    return usesOf(byNamespace, images, this.cache.kinds);
  }
}
