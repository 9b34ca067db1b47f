// A list+watch informer with a stripped, namespace-indexed cache, after client-go's reflector
// and shared informer.
//
// How it stays correct:
//   - It LISTs (paginated; each item stripped on arrival, so a 50,000-Pod list never exists in
//     memory in full form), then WATCHes from the list's resourceVersion with bookmarks, so a
//     re-watch after a server-side timeout resumes exactly where it left off.
//   - 410 Gone (resourceVersion too old, e.g. after etcd compaction or an API server restart)
//     triggers a fresh LIST; the new list is diffed against the cache and the differences are
//     delivered as add/update/delete events, so handlers never miss a change, including
//     deletions that happened while the watch was down.
//   - Every failed round (a LIST that fails, a watch that is refused, ends in an error or 410,
//     or ends at once with nothing in it) waits first, as client-go's reflector does: jittered
//     exponential backoff from 800 ms, doubling to a 30 s cap, each wait drawn from [d, 2d),
//     back to 800 ms after 2 minutes without a failure or once a watch has held for a second
//     (then the failure was not a storm). A server that answers every watch with
//     410 Gone therefore costs a few LISTs a minute, not a hundred a second. Repeated watch
//     failures fall back to a LIST.
//   - healthy() (the daemon's /readyz, with the last error as its reason) is false until the
//     first LIST and again while the informer cannot keep a watch open: from the second failed
//     round in a row until a watch has stayed open for a second. current() also asks that the
//     last LIST or watch succeeded lately (informer-health.ts): a `*` prune's protected set.
//   - The cache is updated before handlers run, so a handler (or a work-queue worker woken by
//     it) always reads a cache that already contains the event.
//   - A cluster-wide LIST that fails twice in a row is made one namespace at a time
//     (perNamespace), at most as often as informer-health.ts allows (5 to 30 min apart): the
//     namespaces that cannot be read are reported, the rest is cached.
//   - Every `resyncPeriodMs` (if set) onResync fires: the controller uses it to rebuild every
//     namespace periodically, which repairs drift that produced no event of interest.
import { METADATA_LIST_ACCEPT, type KubeRest } from '../kube/rest.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { isGone, runWatch, type WatchEvent } from './watch-stream.js';
import { asCrdMissing } from '../kube/crds.js';
import { Backoff, sleep } from './backoff.js';
import { InformerStore, keyOf, type CachedObject } from './informer-store.js';
import { listCollection, type PerNamespaceList } from './namespace-list.js';
import { InformerHealth, UNHEALTHY_AFTER } from './informer-health.js';

export type { CachedObject };

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
  onResync?(): void;
}

// Metadata-only reads (as client-go's metadata informers): the server sends PartialObjectMetadata,
// never the objects' specs, so nothing but metadata crosses the wire or is parsed.
export const METADATA_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

export interface InformerOptions<T extends CachedObject> {
  /** For logs, e.g. "pods" or "pods@shop". */
  name: string;
  /** The one transport: LISTs and WATCHes both go through it. */
  rest: KubeRest;
  /** Collection path (cluster-wide or one namespace). */
  path: string;
  /** Only the objects' metadata (PartialObjectMetadata), e.g. ReplicaSets read for their owners. */
  metadataOnly?: boolean;
  /** Limits what is listed and watched, e.g. a labelSelector. */
  query?: Record<string, string>;
  /** Reduces a raw API object to what the cache keeps. */
  strip(raw: unknown): T;
  /** Cluster-wide: after two failed LISTs in a row, one namespace at a time (namespace-list.ts). */
  perNamespace?: PerNamespaceList;
  resyncPeriodMs?: number;
  logger?: Logger;
  pageSize?: number;
  /** Backoff of failed rounds: first delay and cap (ms), each wait jittered up to twice. Defaults 800 and 30000. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** The backoff starts over from its first delay after this long without a failure. Default 120000. */
  backoffResetMs?: number;
  /** Server-side watch timeout range in seconds (client-go: 5-10 min). */
  watchTimeoutSeconds?: [number, number];
  /**
   * A watch that delivers no event and no bookmark for this long is restarted. Default: the
   * watch's server-side timeout plus 30 s (by then the server should have ended it itself).
   */
  idleTimeoutMs?: number;
}

export interface InformerStats {
  lists: number;
  watches: number;
  events: number;
  watchErrors: number;
}

/** A watch open this long counts as held: the informer is in sync again (client-go's "very short watch"). */
const WATCH_HELD_MS = 1000;

export class Informer<T extends CachedObject> {
  private readonly store = new InformerStore<T>();
  private synced = false;
  /** Failed rounds, the last success, the per-namespace passes' backoff (informer-health.ts). */
  private readonly health = new InformerHealth();
  private readonly syncWaiters: (() => void)[] = [];
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly log: Logger;
  private running?: Promise<void>;
  readonly stats: InformerStats = { lists: 0, watches: 0, events: 0, watchErrors: 0 };
  /** The resourceVersion the cache is current to (last list, event or bookmark). */
  resourceVersion = '';
  /** Namespaces the last LIST could not read, with the reason (perNamespace). */
  private unreadableNs = new Map<string, string>();

  constructor(private readonly opts: InformerOptions<T>) {
    this.log = (opts.logger ?? noopLogger).child({ informer: opts.name });
  }

  get name(): string {
    return this.opts.name;
  }

  addHandlers(h: InformerHandlers<T>): void {
    this.handlers.push(h);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Listed, and able to keep a watch open: false from the second failed round in a row (a 410
   * storm, a server that drops every watch) until a watch has stayed open for a second.
   */
  healthy(): boolean {
    return this.health.healthy();
  }

  /** Healthy, and its last LIST or watch succeeded lately: the cache is the cluster now. */
  current(): boolean {
    return this.health.current();
  }

  /** Why it is not healthy: the last failed round's error ('' when none). */
  get lastError(): string {
    return this.health.lastError;
  }

  /** Resolves true once the first list is in the cache, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** Objects of one namespace ('' for cluster-scoped). */
  list(namespace: string): T[] {
    return this.store.list(namespace);
  }

  get(namespace: string, name: string): T | undefined {
    return this.store.get(namespace, name);
  }

  namespaces(): string[] {
    return this.store.namespaces();
  }

  /** Namespaces whose objects the last LIST could not read, with the reason (see perNamespace). */
  unreadable(): ReadonlyMap<string, string> {
    return this.unreadableNs;
  }

  size(): number {
    return this.store.size();
  }

  /** Runs until `signal` aborts. Call once. */
  run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`informer ${this.opts.name}: run() called twice`);
    this.running = this.loop(signal);
    return this.running;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const resync = this.opts.resyncPeriodMs ?? 0;
    const timer =
      resync > 0
        ? setInterval(() => {
            if (this.synced) this.emit((h) => h.onResync?.());
          }, resync)
        : undefined;
    timer?.unref();
    const backoff = new Backoff(
      this.opts.backoffInitialMs ?? 800,
      this.opts.backoffMaxMs ?? 30_000,
      this.opts.backoffResetMs ?? 120_000,
    );
    const [tMin, tMax] = this.opts.watchTimeoutSeconds ?? [300, 600];
    let needList = true;
    // Consecutive watch failures without a relist in between (a relist restarts the count).
    let watchFailures = 0;
    let heldTimer: NodeJS.Timeout | undefined;
    try {
      while (!signal.aborted) {
        let held = false;
        try {
          if (needList) {
            await this.relist(signal);
            needList = false;
            watchFailures = 0;
          }
          const timeoutSeconds = Math.round(tMin + Math.random() * (tMax - tMin));
          const eventsBefore = this.stats.events;
          this.stats.watches++;
          await runWatch({
            rest: this.opts.rest,
            path: this.opts.path,
            query: this.opts.query,
            ...(this.opts.metadataOnly ? { accept: METADATA_WATCH } : {}),
            resourceVersion: this.resourceVersion,
            timeoutSeconds,
            idleTimeoutMs: this.opts.idleTimeoutMs ?? (timeoutSeconds + 30) * 1000,
            signal,
            onEvent: (ev) => this.handle(ev),
            onOpen: () => {
              heldTimer = setTimeout(() => {
                held = true;
                // The backoff guards against rounds that fail at once. A watch that held did its
                // job: a connection cut later (a proxy, a load balancer) retries from the first
                // delay, not from a delay grown over an hour of healthy watches.
                backoff.reset();
                this.recovered();
              }, WATCH_HELD_MS);
            },
          });
          clearTimeout(heldTimer);
          // A watch that ends at once without events (a server going down) is a failed round,
          // so a flapping server cannot make us spin.
          if (!held && this.stats.events === eventsBefore && !signal.aborted)
            throw new Error(`watch ${this.opts.path}: ended at once, without an event`);
          this.health.watch(false);
          watchFailures = 0;
          // Unreadable namespaces are tried again at a watch's end (5-10 min) once the next
          // per-namespace pass is due (informer-health.ts): a relist.
          if (this.unreadableNs.size && this.health.passDue()) needList = true;
        } catch (err) {
          clearTimeout(heldTimer);
          if (signal.aborted) break;
          this.stats.watchErrors++;
          const gone = isGone(err);
          if (held) this.health.failures = 0;
          this.health.failed(err);
          const failures = this.health.failures;
          watchFailures++;
          // 410: the resourceVersion is gone, only a LIST can resume. Other failures retry the
          // watch, and after a few in a row start over with a LIST too.
          if (gone || watchFailures >= 3) needList = true;
          const delay = backoff.next();
          if (failures === UNHEALTHY_AFTER)
            this.log.warn('cannot keep a watch open; not ready until one holds', {
              err: this.health.lastError,
              retryInMs: Math.round(delay),
            });
          else if (gone)
            this.log.info('resourceVersion expired; relisting', {
              resourceVersion: this.resourceVersion,
              retryInMs: Math.round(delay),
            });
          else {
            // A missing CRD is reported once a minute by the CRD guard (crd-guard.ts), not here.
            const level = failures >= 3 && !asCrdMissing(err) ? 'warn' : 'debug';
            this.log[level]('list/watch failed; retrying', {
              err: this.health.lastError,
              failures,
              retryInMs: Math.round(delay),
            });
          }
          await sleep(delay, signal);
        }
      }
    } finally {
      clearTimeout(heldTimer);
      if (timer) clearInterval(timer);
    }
  }

  /** A watch has held: the informer is in sync again. */
  private recovered(): void {
    if (this.health.failures >= UNHEALTHY_AFTER)
      this.log.info('watch holds again; ready', { failures: this.health.failures });
    this.health.watch(true);
  }

  private handle(ev: WatchEvent): void {
    const raw = ev.object as { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };
    const rv = raw?.metadata?.resourceVersion;
    this.health.event();
    if (ev.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return;
    }
    this.stats.events++;
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      const obj = this.opts.strip(raw);
      const old = this.store.put(obj);
      if (rv) this.resourceVersion = rv;
      if (old) this.emit((h) => h.onUpdate?.(old, obj));
      else this.emit((h) => h.onAdd?.(obj));
    } else if (ev.type === 'DELETED') {
      const obj = this.opts.strip(raw);
      const [ns, name] = keyOf(obj);
      const old = this.store.remove(ns, name);
      if (rv) this.resourceVersion = rv;
      this.emit((h) => h.onDelete?.(old ?? obj));
    }
  }

  /** LIST, replace the cache, and deliver the differences as events. */
  private async relist(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    const h = this.health;
    // A blip is retried whole; one namespace at a time only as often as the health allows.
    const per = h.failures >= 1 && h.passDue() ? this.opts.perNamespace : undefined;
    let pass = false;
    const listed = await listCollection(
      (path) =>
        this.opts.rest.list<unknown, T>(path, {
          query: this.opts.query,
          ...(this.opts.metadataOnly ? { accept: METADATA_LIST_ACCEPT } : {}),
          map: (o) => this.opts.strip(o),
          pageSize: this.opts.pageSize ?? 500,
          signal,
        }),
      this.opts.path,
      per,
      this.log,
      signal,
      () => ((pass = true), h.passed()),
    );
    if (!pass) h.wholeAgain();
    h.listed();
    const { items, resourceVersion } = listed;
    const old = this.store.take();
    // What was cached of a namespace that cannot be read now stays (stale, never deleted).
    for (const ns of listed.unreadable.keys()) {
      for (const obj of old.get(ns)?.values() ?? []) this.store.put(obj);
      old.delete(ns);
    }
    this.unreadableNs = listed.unreadable;
    const added: T[] = [];
    const updated: [T, T][] = [];
    for (const obj of items) {
      const [ns, name] = keyOf(obj);
      const prev = old.get(ns)?.get(name);
      this.store.put(obj);
      if (!prev) added.push(obj);
      else {
        old.get(ns)!.delete(name);
        if (JSON.stringify(prev) !== JSON.stringify(obj)) updated.push([prev, obj]);
      }
    }
    this.resourceVersion = resourceVersion;
    const wasSynced = this.synced;
    this.synced = true;
    this.log.debug('listed', { objects: items.length, resourceVersion });
    for (const obj of added) this.emit((h) => h.onAdd?.(obj));
    for (const [a, b] of updated) this.emit((h) => h.onUpdate?.(a, b));
    // Whatever the old cache still holds was deleted while we were not watching.
    for (const m of old.values()) for (const obj of m.values()) this.emit((h) => h.onDelete?.(obj));
    if (!wasSynced) for (const w of this.syncWaiters.splice(0)) w();
  }

  private emit(fn: (h: InformerHandlers<T>) => void): void {
    for (const h of this.handlers) {
      try {
        fn(h);
      } catch (err) {
        this.log.error('event handler failed', { err });
      }
    }
  }
}
