// The gauges that say, by name, what keeps the daemon's cache from seeing the whole cluster:
// which kind's objects in which namespace cannot be read (the namespace and kind that block a
// `*` prune), and which kinds' informers are not current (no LIST or watch has succeeded lately,
// e.g. a kind that cannot be listed even one namespace at a time). The shipped alerts
// InvNamespaceUnreadable and InvInventoryStale (docs/alerts.md) fire on them. The label is
// source_namespace, not namespace: Prometheus gives `namespace` to the scraped target (the
// daemon's own), and the alerts select the daemon's series by it.
import { Gauge, type Registry } from 'prom-client';
import type { InventoryCache } from './cache.js';

/** Series of inv_unreadable_namespace at most: the first namespaces by kind and name. */
export const MAX_UNREADABLE_SERIES = 20;

/** What the gauges read of the cache (narrow, so the docs' catalogue registers them without one). */
export type CacheHealth = Pick<InventoryCache, 'unreadableKinds' | 'staleKinds' | 'watched'>;

export function registerCacheHealthMetrics(registry: Registry, cache: CacheHealth): void {
  new Gauge({
    name: 'inv_unreadable_namespace',
    help: `1 for each kind and namespace whose objects the daemon could not read at its last LIST (at most ${MAX_UNREADABLE_SERIES} series; the count is inv_unreadable_namespaces).`,
    labelNames: ['kind', 'source_namespace'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { kind, namespace } of cache.unreadableKinds().slice(0, MAX_UNREADABLE_SERIES))
        this.set({ kind, source_namespace: namespace }, 1);
    },
  });
  new Gauge({
    name: 'inv_informer_stale',
    help: 'Per watched kind: 1 while its cache is not current (no LIST or watch has succeeded within 2 minutes, or failing round after round), 0 otherwise.',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const stale = cache.staleKinds();
      for (const kind of cache.watched()) this.set({ kind }, stale.has(kind) ? 1 : 0);
    },
  });
}
