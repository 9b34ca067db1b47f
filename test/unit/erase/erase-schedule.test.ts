// Pure: when a scheduled ImageList runs, with the clock injected. A small simulator plays the
// controller: it reconciles whenever the decision asks to look again (plus a lag, as a busy
// work queue would), or at the instants a test chooses (restarts, outages), and keeps only what
// the controller keeps: the status.
import assert from 'node:assert/strict';
import {
  decide,
  iso,
  MAX_REQUEUE_MS,
  parseSchedule,
  recordSkip,
  recordStart,
  ScheduleError,
  scheduleProblems,
  type ScheduleSpec,
  type ScheduleStatus,
  type SkippedTick,
} from '../../../src/core/erase/spec/schedule.js';

const t = (s: string) => new Date(s);

interface Sim {
  status: ScheduleStatus;
  started: string[];
  skipped: SkippedTick[];
  /** Name of a running job, if the test holds one running. */
  running?: string;
  jobs: Set<string>;
}

const sim = (): Sim => ({ status: {}, started: [], skipped: [], jobs: new Set() });

/** One reconcile at `now`: what the controller does with the decision. Returns the requeue. */
function step(s: Sim, spec: ScheduleSpec, now: Date): number | undefined {
  const d = decide({ now, spec, status: s.status, running: s.running, jobExists: (k) => s.jobs.has(iso(k)) });
  s.status = d.status;
  if (d.start) {
    if (!d.start.existing) {
      s.jobs.add(iso(d.start.tick));
      s.started.push(iso(d.start.tick));
    }
    s.status = recordStart(s.status, d.start.tick);
  }
  if (d.skip) {
    s.skipped.push(d.skip);
    s.status = recordSkip(s.status, d.skip);
  }
  return d.requeueMs;
}

/** Reconciles from `from` to `to`, each time when asked to (plus `lagMs`). */
function run(s: Sim, spec: ScheduleSpec, from: Date, to: Date, lagMs = 250): Date {
  let now = from;
  for (let i = 0; now < to; i++) {
    assert.ok(i < 100_000, 'too many reconciles');
    const after = step(s, spec, now);
    assert.ok(after !== undefined && after <= MAX_REQUEUE_MS, `requeue ${after}`);
    now = new Date(now.getTime() + after + lagMs);
  }
  return now;
}

describe('erase: schedule (pure, injected clock)', () => {
  describe('validation names the bad value and the rule', () => {
    const cases: [ScheduleSpec, RegExp][] = [
      [{ schedule: '0 3 * *' }, /schedule "0 3 \* \*": .*exactly 5 fields .*found 4/],
      [{ schedule: '0 0 3 * * *' }, /schedule "0 0 3 \* \* \*": .*exactly 5 fields .*found 6/],
      [{ schedule: '0 3 L * *' }, /day-of-month field "L": only numbers/],
      [{ schedule: '0 3 ? * *' }, /day-of-month field "\?"/],
      [{ schedule: '0 3 * * 1#2' }, /day-of-week field "1#2"/],
      [{ schedule: '61 3 * * *' }, /schedule "61 3 \* \* \*": Invalid value for minute: 61/],
      [{ schedule: '0 3 31 2 *' }, /schedule "0 3 31 2 \*": matches no date/],
      [{ schedule: 'CRON_TZ=UTC 0 3 * * *' }, /exactly 5 fields/],
      [
        { schedule: '0 3 * * *', timeZone: 'Mars/Olympus' },
        /timeZone "Mars\/Olympus": must be an IANA time zone/,
      ],
      [{ schedule: '0 3 * * *', timeZone: '+02:00' }, /timeZone "\+02:00"/],
      [{ schedule: '0 3 * * *', startingDeadlineSeconds: 0 }, /startingDeadlineSeconds 0: .*at least 1/],
      [{ schedule: '0 3 * * *', startingDeadlineSeconds: 1.5 }, /startingDeadlineSeconds 1.5/],
    ];
    for (const [spec, re] of cases) {
      it(`${JSON.stringify(spec)}`, () => {
        const problems = scheduleProblems(spec);
        assert.equal(problems.length, 1, JSON.stringify(problems));
        assert.match(problems[0]!, re);
        assert.throws(
          () => decide({ now: t('2026-01-01T00:00:00Z'), spec, status: {}, jobExists: () => false }),
          ScheduleError,
        );
      });
    }
    it('accepts the standard forms: lists, ranges, steps, names, Sunday as 0 or 7', () => {
      for (const s of [
        '*/15 * * * *',
        '0 3 * * MON-FRI',
        '0 3 1,15 jan-jun *',
        '5 4 * * 7',
        '0 0-23/2 * * 0',
      ]) {
        assert.deepEqual(scheduleProblems({ schedule: s, timeZone: 'Europe/Berlin' }), [], s);
      }
      assert.ok(parseSchedule('0 3 * * *'));
    });
  });

  it('a new schedule waits for its first tick: no "missed" run of the day it was added', () => {
    const s = sim();
    const spec = { schedule: '0 3 * * *' };
    const after = step(s, spec, t('2026-06-10T15:00:00Z'));
    assert.deepEqual(s.started, []);
    assert.equal(s.status.nextScheduleTime, '2026-06-11T03:00:00Z');
    assert.equal(s.status.observedSchedule?.since, '2026-06-10T15:00:00Z');
    assert.equal(after, MAX_REQUEUE_MS, 'looks again within the hour at most');
    run(s, spec, t('2026-06-10T15:00:01Z'), t('2026-06-13T12:00:00Z'));
    assert.deepEqual(s.started, ['2026-06-11T03:00:00Z', '2026-06-12T03:00:00Z', '2026-06-13T03:00:00Z']);
    assert.equal(s.status.lastScheduleTime, '2026-06-13T03:00:00Z');
    assert.equal(s.status.nextScheduleTime, '2026-06-14T03:00:00Z');
  });

  it('asks to look again exactly at the next tick, and starts it then, once', () => {
    const s = sim();
    const spec = { schedule: '*/5 * * * *' };
    assert.equal(step(s, spec, t('2026-06-10T10:01:30Z')), 210_000);
    assert.equal(step(s, spec, t('2026-06-10T10:05:00Z')), 300_000);
    assert.deepEqual(s.started, ['2026-06-10T10:05:00Z']);
    // The same tick again (a second reconcile, a replayed watch event): nothing new.
    step(s, spec, t('2026-06-10T10:05:00.400Z'));
    step(s, spec, t('2026-06-10T10:09:59Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:05:00Z']);
  });

  it('does not drift: any pattern of reconciles, restarts and lags gives the same ticks', () => {
    const spec = { schedule: '*/7 * * * *', timeZone: 'Asia/Kolkata' };
    const a = sim();
    run(a, spec, t('2026-06-10T00:00:00Z'), t('2026-06-10T06:00:00Z'), 10);
    // A second controller reconciling at odd moments (every 97 s) plus restarts, which keep
    // only the status.
    const b = sim();
    for (
      let now = t('2026-06-10T00:00:00Z').getTime();
      now < t('2026-06-10T06:00:00Z').getTime();
      now += 97_000
    ) {
      b.jobs = new Set(b.jobs); // a "restart": only status and existing jobs survive
      step(b, spec, new Date(now));
    }
    assert.ok(a.started.length > 40);
    // b reconciles less often than every tick, so it can only start ticks a also started.
    assert.ok(b.started.every((x) => a.started.includes(x)));
    // Kolkata is UTC+05:30: local minute 0 of each hour is minute 30 UTC.
    assert.deepEqual(a.started.slice(0, 3), [
      '2026-06-10T00:05:00Z',
      '2026-06-10T00:12:00Z',
      '2026-06-10T00:19:00Z',
    ]);
    // Every start is a real tick of the expression, on the wall clock, in UTC.
    const cron = parseSchedule(spec.schedule, spec.timeZone);
    for (const x of [...a.started, ...b.started]) assert.ok(cron.match(new Date(x)), x);
  });

  describe('time zones and daylight saving', () => {
    it('Europe/Berlin: 03:00 local is 02:00Z in winter and 01:00Z in summer', () => {
      const s = sim();
      const spec = { schedule: '0 3 * * *', timeZone: 'Europe/Berlin' };
      run(s, spec, t('2026-03-27T12:00:00Z'), t('2026-03-31T12:00:00Z'));
      assert.deepEqual(s.started, [
        '2026-03-28T02:00:00Z',
        '2026-03-29T01:00:00Z', // the night the clocks go forward
        '2026-03-30T01:00:00Z',
        '2026-03-31T01:00:00Z',
      ]);
    });
    it('a time inside the spring-forward gap runs once, right after the gap', () => {
      const s = sim();
      const spec = { schedule: '30 2 * * *', timeZone: 'Europe/Berlin' };
      run(s, spec, t('2026-03-27T12:00:00Z'), t('2026-03-30T12:00:00Z'));
      // 02:30 does not exist on 2026-03-29: it runs at 03:00 CEST (01:00Z).
      assert.deepEqual(s.started, ['2026-03-28T01:30:00Z', '2026-03-29T01:00:00Z', '2026-03-30T00:30:00Z']);
    });
    it('a time that occurs twice in the fall-back hour runs once', () => {
      const s = sim();
      const spec = { schedule: '30 2 * * *', timeZone: 'Europe/Berlin' };
      run(s, spec, t('2026-10-23T12:00:00Z'), t('2026-10-26T12:00:00Z'));
      assert.deepEqual(s.started, ['2026-10-24T00:30:00Z', '2026-10-25T00:30:00Z', '2026-10-26T01:30:00Z']);
    });
    it('an hourly schedule keeps its wall-clock interval through both changes (America/New_York)', () => {
      const spring = sim();
      const spec = { schedule: '30 * * * *', timeZone: 'America/New_York' };
      // 2026-03-08 02:00 EST -> 03:00 EDT: 02:30 does not exist and does not run.
      run(spring, spec, t('2026-03-08T05:00:00Z'), t('2026-03-08T09:00:00Z'));
      assert.deepEqual(spring.started, [
        '2026-03-08T05:30:00Z',
        '2026-03-08T06:30:00Z',
        '2026-03-08T07:30:00Z',
        '2026-03-08T08:30:00Z',
      ]);
      const fall = sim();
      // 2026-11-01 02:00 EDT -> 01:00 EST: 01:30 happens twice, an hour apart, and runs both times.
      run(fall, spec, t('2026-11-01T04:00:00Z'), t('2026-11-01T08:00:00Z'));
      assert.deepEqual(fall.started, [
        '2026-11-01T04:30:00Z',
        '2026-11-01T05:30:00Z',
        '2026-11-01T06:30:00Z',
        '2026-11-01T07:30:00Z',
      ]);
    });
  });

  describe('after an outage', () => {
    const spec = { schedule: '0 3 * * *' };
    const lastRunOn = (day: string): Sim => {
      const s = sim();
      step(s, spec, t(`${day}T02:00:00Z`));
      step(s, spec, t(`${day}T03:00:01Z`));
      assert.deepEqual(s.started, [`${day}T03:00:00Z`]);
      return s;
    };
    it('at most one missed run starts: the latest, counting the others as missed', () => {
      const s = lastRunOn('2026-06-01');
      const d = decide({ now: t('2026-06-04T10:00:00Z'), spec, status: s.status, jobExists: () => false });
      assert.deepEqual(d.start, { tick: t('2026-06-04T03:00:00Z'), existing: false, missed: 2 });
      step(s, spec, t('2026-06-04T10:00:00Z'));
      step(s, spec, t('2026-06-04T10:00:05Z'));
      assert.deepEqual(s.started, ['2026-06-01T03:00:00Z', '2026-06-04T03:00:00Z']);
    });
    it('within startingDeadlineSeconds the missed run starts late', () => {
      const s = lastRunOn('2026-06-01');
      step(s, { ...spec, startingDeadlineSeconds: 3600 }, t('2026-06-02T03:59:00Z'));
      assert.deepEqual(s.started, ['2026-06-01T03:00:00Z', '2026-06-02T03:00:00Z']);
    });
    it('past startingDeadlineSeconds it is skipped with a reason, and the next tick runs', () => {
      const s = lastRunOn('2026-06-01');
      const dl = { ...spec, startingDeadlineSeconds: 3600 };
      step(s, dl, t('2026-06-02T04:00:01Z'));
      assert.deepEqual(s.started, ['2026-06-01T03:00:00Z']);
      assert.equal(s.skipped.length, 1);
      assert.equal(s.skipped[0]!.reason, 'MissedDeadline');
      assert.equal(s.skipped[0]!.scheduleTime, '2026-06-02T03:00:00Z');
      assert.match(s.skipped[0]!.message, /3601s late, past startingDeadlineSeconds 3600/);
      assert.equal(s.status.lastSkipped?.scheduleTime, '2026-06-02T03:00:00Z');
      // Recorded once: later reconciles neither skip it again nor start it.
      step(s, dl, t('2026-06-02T05:00:00Z'));
      assert.equal(s.skipped.length, 1);
      run(s, dl, t('2026-06-02T05:00:01Z'), t('2026-06-03T04:00:00Z'));
      assert.deepEqual(s.started, ['2026-06-01T03:00:00Z', '2026-06-03T03:00:00Z']);
      assert.equal(s.status.lastScheduleTime, '2026-06-03T03:00:00Z');
    });
    it('a job created by a controller that died before recording it is adopted, not started again', () => {
      const s = lastRunOn('2026-06-01');
      // The job of 06-02 exists (and is still running), lastScheduleTime still says 06-01.
      s.jobs.add('2026-06-02T03:00:00Z');
      s.running = 'job-of-06-02';
      const d = decide({
        now: t('2026-06-02T03:00:09Z'),
        spec,
        status: s.status,
        running: s.running,
        jobExists: (k) => s.jobs.has(iso(k)),
      });
      assert.deepEqual(d.start, { tick: t('2026-06-02T03:00:00Z'), existing: true, missed: 0 });
      assert.equal(d.skip, undefined);
      step(s, spec, t('2026-06-02T03:00:09Z'));
      assert.equal(s.status.lastScheduleTime, '2026-06-02T03:00:00Z');
      assert.deepEqual(s.started, ['2026-06-01T03:00:00Z']);
    });
  });

  it('a tick while a job runs is skipped with a reason, and never run late', () => {
    const s = sim();
    const spec = { schedule: '*/10 * * * *' };
    run(s, spec, t('2026-06-10T10:05:00Z'), t('2026-06-10T10:10:30Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:10:00Z']);
    s.running = 'long-job';
    run(s, spec, t('2026-06-10T10:10:30Z'), t('2026-06-10T10:20:30Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:10:00Z']);
    assert.deepEqual(
      s.skipped.map((k) => [k.scheduleTime, k.reason]),
      [['2026-06-10T10:20:00Z', 'JobRunning']],
    );
    assert.match(
      s.skipped[0]!.message,
      /job long-job is still running; the run of 2026-06-10T10:20:00Z is skipped/,
    );
    // The job ends a minute later, well before the next tick: the skipped tick does not start.
    s.running = undefined;
    step(s, spec, t('2026-06-10T10:21:30Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:10:00Z']);
    run(s, spec, t('2026-06-10T10:21:31Z'), t('2026-06-10T10:30:30Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:10:00Z', '2026-06-10T10:30:00Z']);
  });

  it('suspend pauses the schedule; the ticks of the pause never run after it', () => {
    const s = sim();
    const spec = { schedule: '0 * * * *' };
    run(s, spec, t('2026-06-10T09:30:00Z'), t('2026-06-10T10:30:00Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:00:00Z']);
    const paused = { ...spec, suspend: true };
    assert.equal(step(s, paused, t('2026-06-10T10:30:00Z')), undefined, 'nothing to wake up for');
    assert.equal(s.status.nextScheduleTime, undefined);
    assert.equal(s.status.observedSchedule?.suspended, true);
    step(s, paused, t('2026-06-10T13:10:00Z')); // three ticks pass while suspended
    assert.deepEqual(s.started, ['2026-06-10T10:00:00Z']);
    // Resumed at 13:20: 11:00, 12:00 and 13:00 do not run; 14:00 does.
    step(s, spec, t('2026-06-10T13:20:00Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:00:00Z']);
    assert.equal(s.status.nextScheduleTime, '2026-06-10T14:00:00Z');
    assert.equal(s.status.observedSchedule?.since, '2026-06-10T13:20:00Z');
    run(s, spec, t('2026-06-10T13:20:01Z'), t('2026-06-10T14:00:30Z'));
    assert.deepEqual(s.started, ['2026-06-10T10:00:00Z', '2026-06-10T14:00:00Z']);
  });

  it('a changed schedule or time zone counts from the change', () => {
    const s = sim();
    run(s, { schedule: '0 3 * * *' }, t('2026-06-10T00:00:00Z'), t('2026-06-10T04:00:00Z'));
    assert.deepEqual(s.started, ['2026-06-10T03:00:00Z']);
    // At 15:00, change to 12:00 daily: today's 12:00 is before the change and does not run.
    step(s, { schedule: '0 12 * * *' }, t('2026-06-10T15:00:00Z'));
    assert.deepEqual(s.started, ['2026-06-10T03:00:00Z']);
    assert.equal(s.status.nextScheduleTime, '2026-06-11T12:00:00Z');
    // Same expression, new zone: from now on 12:00 in Tokyo (03:00Z).
    step(s, { schedule: '0 12 * * *', timeZone: 'Asia/Tokyo' }, t('2026-06-10T15:00:01Z'));
    assert.equal(s.status.nextScheduleTime, '2026-06-11T03:00:00Z');
    assert.equal(s.status.observedSchedule?.timeZone, 'Asia/Tokyo');
  });
});
