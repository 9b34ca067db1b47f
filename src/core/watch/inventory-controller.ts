// The inventory controller: the namespace-coalescing reconciler of `inv watch`.
//
// Every cache event that passes its predicate (./predicates.ts) marks its namespace dirty; the
// key `namespace/_` then goes through the rate-limited work queue to a worker, which rebuilds
// the whole namespace with the same reconcileNamespace as `inv scan`, from the informer caches
// (sources and existing Images, so a rebuild makes no LIST call at all). Events never patch an
// Image directly.
//
// Coalescing, in two stages:
//   1. A per-namespace window: the first event schedules the key `quietMs` later; each further
//      event pushes it back to `quietMs` after itself, but never beyond `maxDelayMs` after the
//      first. A single change is rebuilt after ~quietMs; a burst of 1,000 Pod events becomes
//      about one rebuild per maxDelayMs of burst, plus one at its end.
//   2. The work queue (client-go semantics): a key waiting is not queued twice, a key is never
//      processed twice at once, and a key added while in flight is processed once more after.
//      Bulk passes (a new term's first build, each resync) go in at low priority, events at the
//      normal one: a change is rebuilt next, not after thousands of confirming rebuilds. Events
//      that can only remove an Image or refresh status.users (a Pod deleted, a Pod whose images
//      all have Images) go in between (PRIORITY_REFRESH; why in predicates.ts). A workload
//      created or changed (its template) goes first of all (PRIORITY_WORKLOAD): Pod events come
//      from machines at any rate (100 Pods a second across a large cluster, each naked Pod with a
//      new image a write or two), workload changes from people and deploy pipelines, rarely; and a
//      workload's template is what protects images that no container runs (a Deployment at 0).
//      Under a Pod churn that outruns the write rate, a FIFO at one priority made a Deployment's
//      change wait behind every churned namespace (bench scale: p99 11 s at 150,000 Pods).
//
// Own writes: a rebuild that creates or deletes an Image will see that Image's ADDED/DELETED
// event. Those carry no news (the rebuild that caused them already accounted for them), so the
// store records an expectation before each create/delete and the matching event is consumed
// instead of enqueuing another rebuild (as client-go controllers' "expectations" do). Images'
// update events (e.g. our status writes) are ignored by predicate anyway.
import { performance } from 'node:perf_hooks';
import { runReconciler } from '../controller/reconcile.js';
import { WorkQueue } from '../controller/workqueue.js';
import { PRIORITY_LOW, PRIORITY_NORMAL } from '../controller/priority-fifo.js';
import type { RateLimiter } from '../controller/rate-limiter.js';
import type { ImageResource, ImageStatus } from '../inventory/image-resource.js';
import { ImageStore, type WriteCounter } from '../inventory/image-store.js';
import { abbreviate } from '../refs/abbreviate.js';
import type { InvalidRefReporter } from '../inventory/invalid-ref-events.js';
import { reconcileNamespace, type NamespaceResult } from '../inventory/rebuild.js';
import type { StrippedPod } from '../inventory/strip.js';
import type { KubeRest } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { OWNER_KINDS } from '../inventory/source-kinds.js';
import { watchedName, type InventoryCache } from './cache.js';
import type { CachedObject } from '../controller/informer.js';
import type { Runnable } from '../controller/manager.js';
import { generationChanged, ownersChanged, podBringsNewImage, podChanged } from './predicates.js';

export interface InventoryControllerOptions {
  cache: InventoryCache;
  rest: KubeRest;
  metrics: Metrics;
  logger: Logger;
  /**
   * Namespaces rebuilt concurrently. Default 16: a rebuild holds its worker while its writes wait
   * for the API server, so under churn 4 workers were all waiting (bench scale) while the
   * daemon's CPU sat idle; the rate limit, not the worker count, bounds the writes.
   */
  workers?: number;
  /** Coalescing window (see above). Defaults 200 ms and 2000 ms. */
  quietMs?: number;
  maxDelayMs?: number;
  /** Concurrent Image writes within one namespace rebuild. Default 8. */
  writeConcurrency?: number;
  rateLimiter?: RateLimiter;
  events?: InvalidRefReporter;
  /** Observation hook (tests, benchmarks): called after every rebuild. */
  onRebuild?(namespace: string, result: NamespaceResult | undefined, err?: unknown): void;
}

export const keyOf = (namespace: string): string => `${namespace}/_`;
/** Events that can only remove an Image or refresh its status (predicates.ts): after new images. */
export const PRIORITY_REFRESH = PRIORITY_NORMAL - 10;
/** A workload created or changed (not a Pod, not a ReplicaSet's owner change): ahead of Pod events. */
export const PRIORITY_WORKLOAD = PRIORITY_NORMAL + 10;
const EXPECTATION_TTL_MS = 30_000;

/** An ImageStore that announces its creates and deletes before making them. */
class ExpectingImageStore extends ImageStore {
  constructor(
    client: KubeRest,
    private readonly expect: (op: '+' | '-', namespace: string, name: string) => void,
  ) {
    super(client);
  }

  override ensure(
    namespace: string,
    name: string,
    image: string,
    status: ImageStatus,
    current: ImageResource | undefined,
    counter?: WriteCounter,
  ): Promise<number> {
    if (!current) this.expect('+', namespace, name);
    return super.ensure(namespace, name, image, status, current, counter);
  }

  override delete(namespace: string, current: ImageResource, counter?: WriteCounter): Promise<number> {
    this.expect('-', namespace, current.metadata.name);
    return super.delete(namespace, current, counter);
  }
}

export class InventoryController implements Runnable {
  readonly name = 'inventory-controller';
  readonly needLeaderElection = true;
  private queue?: WorkQueue;
  private readonly pending = new Map<string, { first: number; timer: NodeJS.Timeout; priority: number }>();
  // When the first event not yet seen by a rebuild dirtied each namespace (rebuild delay).
  private readonly dirtySince = new Map<string, number>();
  private readonly expectations = new Map<string, number>();
  private readonly invalidSeen = new Map<string, Set<string>>();
  private readonly store: ExpectingImageStore;
  private readonly quietMs: number;
  private readonly maxDelayMs: number;
  private readonly log: Logger;

  constructor(private readonly opts: InventoryControllerOptions) {
    this.quietMs = opts.quietMs ?? 200;
    this.maxDelayMs = Math.max(opts.maxDelayMs ?? 2000, this.quietMs);
    this.log = opts.logger.child({ controller: this.name });
    this.store = new ExpectingImageStore(opts.rest, (op, ns, name) =>
      this.expectations.set(`${op}${ns}/${name}`, Date.now() + EXPECTATION_TTL_MS),
    );
    const { cache } = opts;
    const debug = this.log.isLevelEnabled('debug');
    const on = (why: string, o: CachedObject, priority = PRIORITY_NORMAL) => {
      const namespace = o.metadata.namespace ?? '';
      if (debug && this.queue) this.log.debug('enqueue', { namespace, why, name: o.metadata.name, priority });
      this.enqueue(namespace, priority);
    };
    // A Pod whose images all have Images can only refresh status.users or kinds (predicates.ts).
    const pod = (why: string, p: StrippedPod) => {
      const ns = p.metadata.namespace ?? '';
      on(why, p, podBringsNewImage(p, (ref) => cache.hasImage(ns, ref)) ? PRIORITY_NORMAL : PRIORITY_REFRESH);
    };
    cache.on<StrippedPod>('Pod', {
      onAdd: (o) => pod('Pod added', o),
      onUpdate: (a, b) => podChanged(a, b) && pod('Pod changed', b),
      onDelete: (o) => on('Pod deleted', o, PRIORITY_REFRESH),
      // A resync only confirms: every namespace at low priority, behind any real change.
      onResync: () => this.enqueueAll([...cache.namespaces()]),
    });
    // Every other source kind (built in or declared): a template change bumps generation. Created
    // or changed, it goes ahead of Pod events (above); deleted, it can only remove, as a Pod's
    // deletion can, but may leave bare ReplicaSets to credit, so it keeps the normal priority.
    for (const k of cache.kinds.all) {
      if (k.kind === 'Pod' && !k.declared) continue;
      const kind = watchedName(k);
      cache.on<CachedObject & { metadata: { generation?: number } }>(kind, {
        onAdd: (o) => on(`${kind} added`, o, PRIORITY_WORKLOAD),
        onUpdate: (a, b) => generationChanged(a, b) && on(`${kind} changed`, b, PRIORITY_WORKLOAD),
        onDelete: (o) => on(`${kind} deleted`, o),
      });
    }
    // Owner kinds (ReplicaSets, metadata only): who controls them decides what their Pods credit.
    for (const k of OWNER_KINDS) {
      cache.on<StrippedPod>(k.kind, {
        onAdd: (o) => on(`${k.kind} added`, o),
        onUpdate: (a, b) => ownersChanged(a, b) && on(`${k.kind} changed`, b),
        onDelete: (o) => on(`${k.kind} deleted`, o),
      });
    }
    cache.on<CachedObject>('Image', {
      onAdd: (o) => this.consume('+', o) || on('Image added', o, PRIORITY_REFRESH),
      onDelete: (o) => this.consume('-', o) || on('Image deleted', o),
    });
  }

  /** True when the event was our own expected write (and is now consumed). */
  private consume(op: '+' | '-', o: CachedObject): boolean {
    const k = `${op}${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const until = this.expectations.get(k);
    if (until === undefined) return false;
    this.expectations.delete(k);
    return until >= Date.now();
  }

  /**
   * Marks a namespace dirty (only while leading; a new term rebuilds everything anyway), at the
   * highest priority of the events coalesced into its window.
   */
  enqueue(namespace: string, priority = PRIORITY_NORMAL): void {
    const queue = this.queue;
    if (!queue || queue.isShuttingDown() || !namespace || !this.opts.cache.inScope(namespace)) return;
    const now = Date.now();
    if (!this.dirtySince.has(namespace)) this.dirtySince.set(namespace, performance.now());
    const p = this.pending.get(namespace);
    const fire = () => {
      const at = this.pending.get(namespace)?.priority ?? priority;
      this.pending.delete(namespace);
      queue.add(keyOf(namespace), at);
    };
    if (!p) {
      const timer = setTimeout(fire, this.quietMs);
      this.pending.set(namespace, { first: now, timer, priority });
      return;
    }
    p.priority = Math.max(p.priority, priority);
    clearTimeout(p.timer);
    p.timer = setTimeout(fire, Math.max(0, Math.min(now + this.quietMs, p.first + this.maxDelayMs) - now));
  }

  /** Queues every namespace at low priority (a new term's first build, a resync). */
  private enqueueAll(namespaces: string[]): void {
    const queue = this.queue;
    if (!queue || queue.isShuttingDown()) return;
    for (const n of namespaces.sort()) if (n && this.opts.cache.inScope(n)) queue.add(keyOf(n), PRIORITY_LOW);
  }

  ready(): boolean {
    return this.opts.cache.hasSynced();
  }

  async start(signal: AbortSignal): Promise<void> {
    const queue = new WorkQueue({
      rateLimiter: this.opts.rateLimiter,
      hooks: this.opts.metrics.workqueueHooks(),
    });
    try {
      if (!(await this.opts.cache.waitForSync(signal))) return;
      // Events are accepted from here on; the initial list's events are covered by the full pass.
      this.queue = queue;
      // A new term starts from scratch: every namespace with anything cached gets a rebuild
      // (including namespaces holding only Images, whose sources vanished while we were away).
      const namespaces = [...this.opts.cache.namespaces()].filter((n) => this.opts.cache.inScope(n));
      this.log.info('caches synced; rebuilding every namespace once', { namespaces: namespaces.length });
      this.enqueueAll(namespaces);
      const workers = runReconciler(
        queue,
        {
          reconcile: async (key) => {
            await this.reconcile(key);
            return {};
          },
        },
        {
          workers: this.opts.workers ?? 16,
          signal,
          onError: (key, err, requeues) =>
            this.log.warn('rebuild failed; will retry', { key, requeues, err: (err as Error).message }),
        },
      );
      if (!signal.aborted)
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      const inFlight = queue.inFlight();
      this.log.info('stopping: draining in-flight rebuilds', { inFlight, waiting: queue.len() });
      await queue.shutDownWithDrain();
      await workers;
      this.log.info('drained', { inFlight });
    } finally {
      for (const p of this.pending.values()) clearTimeout(p.timer);
      this.pending.clear();
      this.dirtySince.clear();
      queue.shutDown();
      if (this.queue === queue) this.queue = undefined;
    }
  }

  private async reconcile(key: string): Promise<void> {
    const namespace = key.slice(0, key.lastIndexOf('/'));
    const { cache, metrics } = this.opts;
    if (!cache.inScope(namespace)) return;
    // Objects that cannot be read (namespace-list.ts) are not "no objects": its Images stay.
    const unreadable = cache.unreadable().get(namespace);
    if (unreadable !== undefined) {
      this.log.warn('namespace not rebuilt: its objects cannot be read; its Images are kept as they are', {
        namespace,
        reason: unreadable,
      });
      return;
    }
    // Paired with "namespace rebuilt": an operator (or a test) can tell which events a rebuild saw.
    this.log.debug('rebuilding namespace', { namespace });
    const t0 = performance.now();
    // Events from here on may not be in this rebuild's view: they start the next delay.
    const since = this.dirtySince.get(namespace);
    this.dirtySince.delete(namespace);
    const delayMs = since === undefined ? undefined : t0 - since;
    if (delayMs !== undefined) metrics.rebuildDelay.observe(delayMs / 1000);
    let result: NamespaceResult | undefined;
    try {
      result = await reconcileNamespace(
        {
          store: this.store,
          events: this.opts.events,
          concurrency: this.opts.writeConcurrency ?? 8,
          kinds: this.opts.cache.kinds,
        },
        namespace,
        cache.objects(namespace),
        { existing: cache.images(namespace) },
      );
      const { counts } = result;
      metrics.imagesCreated.inc(counts.created);
      metrics.imagesUpdated.inc(counts.updated);
      metrics.imagesDeleted.inc(counts.deleted);
      this.countInvalid(namespace, result);
      for (const w of result.warnings) this.log.warn('rebuild warning', { namespace, warning: w });
      for (const c of result.images.filter((i) => i.change === 'conflict')) {
        this.log.warn('Image name taken by an unmanaged Image; left alone', {
          namespace,
          name: c.name,
          image: c.image,
        });
      }
      const failed = result.images.filter((i) => i.result === 'failed');
      if (failed.length) {
        throw new Error(`${failed.length} Image write(s) failed: ${failed.map((f) => f.error).join('; ')}`);
      }
      const seconds = (performance.now() - t0) / 1000;
      metrics.observeRebuild('success', seconds);
      const changed = counts.created + counts.updated + counts.deleted > 0;
      this.log[changed ? 'info' : 'debug']('namespace rebuilt', {
        namespace,
        ms: Math.round(seconds * 1000),
        ...(delayMs === undefined ? {} : { delayMs: Math.round(delayMs) }),
        created: counts.created,
        updated: counts.updated,
        deleted: counts.deleted,
        unchanged: counts.unchanged,
        invalid: result.invalid.length,
      });
      this.opts.onRebuild?.(namespace, result);
    } catch (err) {
      metrics.observeRebuild('error', (performance.now() - t0) / 1000);
      this.opts.onRebuild?.(namespace, result, err);
      throw err;
    } finally {
      this.sweepExpectations();
    }
  }

  /** inv_invalid_refs_total counts each invalid ref once when first seen, not once per rebuild. */
  private countInvalid(namespace: string, r: NamespaceResult): void {
    // abbreviate: a 200,000-character ref is remembered by its start and hash, not whole.
    const now = new Set(r.invalid.map((i) => `${i.source}\0${i.container}\0${abbreviate(i.image)}`));
    const before = this.invalidSeen.get(namespace);
    let fresh = 0;
    for (const k of now) if (!before?.has(k)) fresh++;
    if (fresh) this.opts.metrics.invalidRefs.inc(fresh);
    if (now.size) this.invalidSeen.set(namespace, now);
    else this.invalidSeen.delete(namespace);
  }

  private sweepExpectations(): void {
    if (this.expectations.size < 1000) return;
    const now = Date.now();
    for (const [k, until] of this.expectations) if (until < now) this.expectations.delete(k);
  }
}
