// PURE: what the schedule gauges say about each scheduled ImageList, from its status as the
// ImageList controller keeps it: when the next tick is due, and when a job of the list last
// completed. "Scheduled cleanup is overdue" (the chart's PrometheusRule, docs/alerts.md) compares
// the first with the clock: a tick that is long past yet still the next one means no controller
// is running the schedule.
import type { ImageList } from '../api/types.js';

export interface ScheduleSample {
  imagelist: string;
  /** Unix seconds. */
  value: number;
}

const seconds = (t: string | undefined) => {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isFinite(ms) ? ms / 1000 : undefined;
};

/** One sample per scheduled list with that time: `next` (absent while suspended) or `lastSuccess`. */
export function scheduleSamples(
  lists: readonly ImageList[],
  which: 'next' | 'lastSuccess',
): ScheduleSample[] {
  const out: ScheduleSample[] = [];
  for (const l of lists) {
    if (!l.spec?.schedule || l.metadata.deletionTimestamp) continue;
    if (which === 'next' && l.spec.suspend) continue;
    const v = seconds(which === 'next' ? l.status?.nextScheduleTime : l.status?.lastSuccessfulTime);
    if (v !== undefined) out.push({ imagelist: l.metadata.name, value: v });
  }
  return out;
}
