// The metrics that show the operational servers under hostile clients: connections refused at
// the caps (connection-guard.ts) and token reviews refused for their lanes' bounds (the secure
// metrics endpoint's review-lanes.ts). Read from the servers' own counters at scrape time, so the
// servers keep no reference to the registry.
import { Counter, type Registry } from 'prom-client';

export interface ServerCounters {
  /** The server's name: `metrics` or `health`. */
  name: string;
  connections: { readonly refused: number };
}

/** Review refusals since start, by reason (ReviewLanes.refused). */
export type ReviewRefusals = Readonly<Record<'perClient' | 'suspect' | 'busy', number>>;

const REVIEW_REASONS = { perClient: 'client_share', suspect: 'suspect_budget', busy: 'busy' } as const;

export function registerServerMetrics(
  registry: Registry,
  servers: ServerCounters[],
  reviews?: ReviewRefusals,
): void {
  // A second run of the same manager replaces the first run's counters rather than failing.
  for (const name of ['inv_http_connections_refused_total', 'inv_metrics_reviews_refused_total'])
    registry.removeSingleMetric(name);
  const seen = new Map<string, number>();
  /** Adds what a since-start count gained since the last scrape. */
  const add = (c: Counter<string>, labels: Record<string, string>, key: string, now: number) => {
    const delta = now - (seen.get(key) ?? 0);
    seen.set(key, now);
    c.inc(labels, delta > 0 ? delta : 0);
  };
  new Counter({
    name: 'inv_http_connections_refused_total',
    help: "Connections to the metrics or health server closed at a cap: on arrival past one address's share, or the busiest address's oldest, evicted at the cap on connections at once for a newcomer from a less busy address.",
    labelNames: ['server'] as const,
    registers: [registry],
    collect() {
      for (const s of servers) add(this, { server: s.name }, `c/${s.name}`, s.connections.refused);
    },
  });
  if (!reviews) return;
  new Counter({
    name: 'inv_metrics_reviews_refused_total',
    help: 'Requests to the secure /metrics refused without a token review (429/503): the client address had its share in flight, the budget of addresses with failed reviews was spent, or the new lane was full.',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      for (const [k, reason] of Object.entries(REVIEW_REASONS))
        add(this, { reason }, `r/${k}`, reviews[k as keyof ReviewRefusals]);
    },
  });
}
