// Every metric the daemon registers, read from the registries themselves (never written out): the
// inventory's (observability/metrics.ts), the cache's (watch/cache-metrics.ts and
// watch/cache-health-metrics.ts), the servers'
// (observability/server-metrics.ts) and the erase controllers' (erase/metrics/metrics.ts), on one empty
// registry without prom-client's process metrics. docs/daemon.md's table is generated from it and
// the docs' and chart's metric names and labels are checked against it.
import { createMetrics } from '../core/observability/metrics.js';
import { registerServerMetrics } from '../core/observability/server-metrics.js';
import { createEraseMetrics } from '../core/erase/metrics/metrics.js';
import { registerCacheMetrics } from '../core/watch/cache-metrics.js';
import { registerCacheHealthMetrics } from '../core/watch/cache-health-metrics.js';
import { table } from './regions.js';

export interface MetricInfo {
  name: string;
  type: string;
  labels: string[];
  help: string;
}

/** The samples a family exposes besides its own name (histograms: _bucket, _sum, _count). */
export const SERIES_SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count'],
};

export function metricCatalog(): MetricInfo[] {
  const { registry } = createMetrics({ defaultMetrics: false });
  registerCacheMetrics(registry, { sizes: () => ({}), watched: () => [], unreadable: () => ({ size: 0 }) });
  registerCacheHealthMetrics(registry, {
    unreadableKinds: () => [],
    staleKinds: () => new Set(),
    watched: () => [],
  });
  registerServerMetrics(registry, [], { perClient: 0, suspect: 0, busy: 0 });
  createEraseMetrics(registry);
  return registry
    .getMetricsAsArray()
    .map((m) => {
      const x = m as unknown as { name: string; type: string; labelNames?: string[]; help: string };
      return { name: x.name, type: String(x.type), labels: [...(x.labelNames ?? [])], help: x.help };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** docs/daemon.md's table: one row a metric. */
export function metricsTable(): string {
  return table(
    ['metric', 'type', 'labels', 'help'],
    metricCatalog().map((m) => [`\`${m.name}\``, m.type, m.labels.map((l) => `\`${l}\``).join(', '), m.help]),
  );
}
