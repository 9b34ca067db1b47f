// The informer cache's gauges (inv_cache_objects, inv_unreadable_namespaces), read at scrape time
// from the cache. A function of its own so the docs' metrics table (src/docs/) can register them
// on an empty registry without starting a daemon.
import { Gauge, type Registry } from 'prom-client';

/** What the gauges read: the cache's sizes by kind, the kinds it watches, the namespaces it could not read. */
export interface CacheSizes {
  sizes(): Record<string, number>;
  watched(): Iterable<string>;
  unreadable(): { size: number };
}

export function registerCacheMetrics(registry: Registry, cache: CacheSizes): void {
  new Gauge({
    name: 'inv_cache_objects',
    help: 'Objects held in the informer caches, by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const sizes = cache.sizes();
      for (const kind of cache.watched()) this.set({ kind }, sizes[kind] ?? 0);
    },
  });
  new Gauge({
    name: 'inv_unreadable_namespaces',
    help: 'Namespaces whose objects the daemon could not read at its last LIST (their Images are kept, not rebuilt; a * prune waits).',
    registers: [registry],
    collect() {
      this.set(cache.unreadable().size);
    },
  });
}
