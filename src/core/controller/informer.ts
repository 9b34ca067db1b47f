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
//   - Connection errors (API server restarting) retry the watch with capped, jittered
//     exponential backoff; repeated failures fall back to a LIST.
//   - The cache is updated before handlers run, so a handler (or a work-queue worker woken by
//     it) always reads a cache that already contains the event.
//   - Every `resyncPeriodMs` (if set) onResync fires: the controller uses it to rebuild every
//     namespace periodically, which repairs drift that produced no event of interest.
import type { KubeRest } from '../kube/rest.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import { isGone, runWatch, type WatchEvent } from './watch-stream.js';
import { asCrdMissing } from '../kube/crds.js';

export interface CachedObject {
  metadata: { name: string; namespace?: string };
}

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
  onResync?(): void;
}

export interface InformerOptions<T extends CachedObject> {
  /** For logs, e.g. "pods" or "pods@shop". */
  name: string;
  /** The one transport: LISTs and WATCHes both go through it. */
  rest: KubeRest;
  /** Collection path (cluster-wide or one namespace). */
  path: string;
  /** Limits what is listed and watched, e.g. a labelSelector. */
  query?: Record<string, string>;
  /** Reduces a raw API object to what the cache keeps. */
  strip(raw: unknown): T;
  resyncPeriodMs?: number;
  logger?: Logger;
  pageSize?: number;
  /** Watch backoff: first delay and cap (ms). Defaults 200 and 5000. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
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

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export class Informer<T extends CachedObject> {
  // namespace -> name -> object. Cluster-scoped objects live under ''.
  private store = new Map<string, Map<string, T>>();
  private count = 0;
  private synced = false;
  private readonly syncWaiters: (() => void)[] = [];
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly log: Logger;
  private running?: Promise<void>;
  readonly stats: InformerStats = { lists: 0, watches: 0, events: 0, watchErrors: 0 };
  /** The resourceVersion the cache is current to (last list, event or bookmark). */
  resourceVersion = '';

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
    const m = this.store.get(namespace);
    return m ? [...m.values()] : [];
  }

  get(namespace: string, name: string): T | undefined {
    return this.store.get(namespace)?.get(name);
  }

  namespaces(): string[] {
    return [...this.store.keys()];
  }

  size(): number {
    return this.count;
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
    const initial = this.opts.backoffInitialMs ?? 200;
    const max = this.opts.backoffMaxMs ?? 5000;
    const [tMin, tMax] = this.opts.watchTimeoutSeconds ?? [300, 600];
    let needList = true;
    let failures = 0;
    try {
      while (!signal.aborted) {
        try {
          if (needList) {
            await this.relist(signal);
            needList = false;
          }
          const timeoutSeconds = Math.round(tMin + Math.random() * (tMax - tMin));
          const started = Date.now();
          const eventsBefore = this.stats.events;
          this.stats.watches++;
          await runWatch({
            rest: this.opts.rest,
            path: this.opts.path,
            query: this.opts.query,
            resourceVersion: this.resourceVersion,
            timeoutSeconds,
            idleTimeoutMs: this.opts.idleTimeoutMs ?? (timeoutSeconds + 30) * 1000,
            signal,
            onEvent: (ev) => this.handle(ev),
          });
          // A watch that ends at once without events (a server going down) counts as a failure,
          // so a flapping server cannot make us spin.
          if (Date.now() - started < 1000 && this.stats.events === eventsBefore && !signal.aborted) {
            failures++;
            await sleep(this.backoff(failures, initial, max), signal);
          } else {
            failures = 0;
          }
        } catch (err) {
          if (signal.aborted) break;
          this.stats.watchErrors++;
          if (isGone(err)) {
            this.log.info('resourceVersion expired; relisting', { resourceVersion: this.resourceVersion });
            needList = true;
            continue;
          }
          failures++;
          // After a few consecutive failures, the next attempt starts over with a list.
          if (failures >= 3) needList = true;
          const delay = this.backoff(failures, initial, max);
          // A missing CRD is reported once a minute by the CRD guard (crd-guard.ts), not here.
          const level = failures >= 3 && !asCrdMissing(err) ? 'warn' : 'debug';
          this.log[level]('list/watch failed; retrying', {
            err: (err as Error).message,
            failures,
            retryInMs: Math.round(delay),
          });
          await sleep(delay, signal);
        }
      }
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  private backoff(failures: number, initial: number, max: number): number {
    const d = Math.min(max, initial * 2 ** Math.min(failures - 1, 20));
    return d * (0.5 + Math.random() * 0.5);
  }

  private key(obj: T): [string, string] {
    return [obj.metadata.namespace ?? '', obj.metadata.name];
  }

  private put(obj: T): T | undefined {
    const [ns, name] = this.key(obj);
    let m = this.store.get(ns);
    if (!m) {
      m = new Map();
      this.store.set(ns, m);
    }
    // Share the namespace string: one copy per namespace instead of one per object.
    if (obj.metadata.namespace !== undefined) obj.metadata.namespace = intern(ns);
    const old = m.get(name);
    m.set(name, obj);
    if (!old) this.count++;
    return old;
  }

  private remove(ns: string, name: string): T | undefined {
    const m = this.store.get(ns);
    const old = m?.get(name);
    if (m && old) {
      m.delete(name);
      this.count--;
      if (m.size === 0) this.store.delete(ns);
    }
    return old;
  }

  private handle(ev: WatchEvent): void {
    const raw = ev.object as { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };
    const rv = raw?.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return;
    }
    this.stats.events++;
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      const obj = this.opts.strip(raw);
      const old = this.put(obj);
      if (rv) this.resourceVersion = rv;
      if (old) this.emit((h) => h.onUpdate?.(old, obj));
      else this.emit((h) => h.onAdd?.(obj));
    } else if (ev.type === 'DELETED') {
      const obj = this.opts.strip(raw);
      const [ns, name] = this.key(obj);
      const old = this.remove(ns, name);
      if (rv) this.resourceVersion = rv;
      this.emit((h) => h.onDelete?.(old ?? obj));
    }
  }

  /** LIST, replace the cache, and deliver the differences as events. */
  private async relist(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    const { items, resourceVersion } = await this.opts.rest.list<unknown, T>(this.opts.path, {
      query: this.opts.query,
      map: (o) => this.opts.strip(o),
      pageSize: this.opts.pageSize ?? 500,
      signal,
    });
    const old = this.store;
    this.store = new Map();
    this.count = 0;
    const added: T[] = [];
    const updated: [T, T][] = [];
    for (const obj of items) {
      const [ns, name] = this.key(obj);
      const prev = old.get(ns)?.get(name);
      this.put(obj);
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

// Strings repeated across many cached objects (namespaces, owner kinds, image refs): JSON.parse
// gives every object its own copy; interning keeps one. Bounded by what the cluster contains.
const interned = new Map<string, string>();
export function intern(s: string): string {
  const have = interned.get(s);
  if (have !== undefined) return have;
  if (interned.size > 200_000) interned.clear();
  interned.set(s, s);
  return s;
}
