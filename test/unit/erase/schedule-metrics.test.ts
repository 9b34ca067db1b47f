// The schedule gauges: read at scrape time from the ImageLists the erase controllers cache.
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { ImageList } from '../../../src/core/erase/api/types.js';
import { createEraseMetrics } from '../../../src/core/erase/metrics/metrics.js';

const list = (
  name: string,
  spec: Partial<ImageList['spec']>,
  status: ImageList['status'] = {},
): ImageList => ({
  metadata: { name },
  spec: { images: ['*'], ...spec },
  status,
});

describe('erase schedule gauges', () => {
  it('next run and last success per scheduled list; none for one-off or suspended lists, or off the leader', async () => {
    const registry = new Registry();
    const m = createEraseMetrics(registry);
    const lists = [
      list(
        'nightly',
        { schedule: '0 3 * * *' },
        { nextScheduleTime: '2026-06-11T03:00:00Z', lastSuccessfulTime: '2026-06-10T03:04:05Z' },
      ),
      list(
        'paused',
        { schedule: '0 3 * * *', suspend: true },
        { lastSuccessfulTime: '2026-06-01T03:00:00Z' },
      ),
      list('once', {}, { lastSuccessfulTime: '2026-06-10T03:04:05Z' }),
    ];
    const samples = async (name: string) =>
      (await registry.getSingleMetric(name)!.get()).values.map((v) => [v.labels.imagelist, v.value]);
    // Not leading: the families exist (the dashboard and rules name them), without samples.
    assert.deepEqual(await samples('inv_erase_schedule_next_run_timestamp_seconds'), []);
    m.readLists!(() => lists);
    assert.deepEqual(await samples('inv_erase_schedule_next_run_timestamp_seconds'), [
      ['nightly', Date.parse('2026-06-11T03:00:00Z') / 1000],
    ]);
    assert.deepEqual(await samples('inv_erase_schedule_last_success_timestamp_seconds'), [
      ['nightly', Date.parse('2026-06-10T03:04:05Z') / 1000],
      ['paused', Date.parse('2026-06-01T03:00:00Z') / 1000],
    ]);
    // A list deleted from the cache disappears at the next scrape; a term that ends clears all.
    lists.shift();
    assert.deepEqual(await samples('inv_erase_schedule_next_run_timestamp_seconds'), []);
    m.readLists!(undefined);
    assert.deepEqual(await samples('inv_erase_schedule_last_success_timestamp_seconds'), []);
    assert.match(await registry.metrics(), /# TYPE inv_erase_schedule_next_run_timestamp_seconds gauge/);
  });
});
