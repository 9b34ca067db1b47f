// The ImageList controller's scheduled runs against the real API server, with its clock
// injected so each tick is a step of the test rather than a minute of waiting: the job of a tick
// and its deterministic name, the status it records, a lost status write (a controller killed
// between creating the job and recording it), a tick while a job runs (skipped, with an Event),
// suspend, a schedule the controller rejects, and the way scheduled and one-off runs meet.
// Job phases are written by the test (no ImageJob controller runs): only the list's decisions
// are under test here; test/nodes/schedule.test.ts runs the whole thing on real nodes.
import assert from 'node:assert/strict';
import { ImageListController } from '../../src/core/erase/imagelist-controller.js';
import { ScheduledListError, submitErase } from '../../src/core/erase-request/request.js';
import { SKIP_EVENT_REASON } from '../../src/core/erase/imagelist/schedule-events.js';
import {
  IMAGEJOBS_PATH,
  IMAGELIST_LABEL,
  IMAGELISTS_PATH,
  SCHEDULE_TIME_ANNOTATION,
  scheduledJobName,
  type ImageJob,
  type ImageList,
  type ImageListStatus,
} from '../../src/core/erase/api/types.js';
import { invAsync } from '../support/inv-async.js';
import { EraseEnv } from './helpers.js';
import { envFlags } from './cli/cli-helpers.js';

const inv = (args: string[]) => invAsync(args, 60_000);

describe('erase: scheduled ImageList (real API server, injected clock)', function () {
  this.timeout(60_000);
  let env: EraseEnv;
  let clock: Date;
  let ctl: ImageListController;
  beforeEach(async () => {
    env = await new EraseEnv().setup();
    // A CRD just installed answers 429 while its storage initializes.
    for (let i = 0; ; i++) {
      try {
        await env.rest.list(IMAGEJOBS_PATH);
        await env.rest.list(IMAGELISTS_PATH);
        break;
      } catch (e) {
        if (i > 100) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    clock = new Date('2026-06-10T10:01:00Z');
    ctl = new ImageListController({
      rest: env.rest,
      namespace: env.namespace,
      configNamespace: env.namespace,
      now: () => clock,
    });
  });
  afterEach(async () => {
    await env.teardown();
  });

  const list = (name: string) => env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
  const jobs = async (name: string) =>
    (
      await env.rest.list<ImageJob>(IMAGEJOBS_PATH, {
        query: { labelSelector: `${IMAGELIST_LABEL}=${name}` },
      })
    ).items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const finish = async (job: ImageJob) => {
    const cur = await env.rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${job.metadata.name}`);
    await env.rest.request('PUT', `${IMAGEJOBS_PATH}/${job.metadata.name}/status`, {
      body: { ...cur, status: { phase: 'Completed', desired: 1, succeeded: 1, failed: 0, skipped: 0 } },
    });
  };
  const putStatus = async (name: string, status: ImageListStatus) => {
    const cur = await list(name);
    await env.rest.request('PUT', `${IMAGELISTS_PATH}/${name}/status`, { body: { ...cur, status } });
  };
  const at = async (iso: string, name: string) => {
    clock = new Date(iso);
    return (await ctl.reconcile(name)).requeueAfter;
  };

  it('each tick starts one job named after it; a lost status write adopts it; a busy tick is skipped', async () => {
    const name = `sched-${env.tag}`;
    await submitErase(env.rest, {
      name,
      images: [`docker.io/library/nothing-${env.tag}:1`],
      nodeSelector: `erase-test=${env.tag}`,
      schedule: '*/5 * * * *',
      timeZone: 'Europe/Berlin',
    });
    // Generations of a scheduled list start nothing; the controller waits for the next tick.
    assert.equal(await at('2026-06-10T10:01:00Z', name), 240_000);
    let l = await list(name);
    assert.equal(l.status?.nextScheduleTime, '2026-06-10T10:05:00Z');
    assert.equal(l.status?.observedSchedule?.since, '2026-06-10T10:01:00Z');
    assert.deepEqual(await jobs(name), []);

    // The tick: one job, named after it, recorded.
    assert.equal(await at('2026-06-10T10:05:00.300Z', name), 299_700);
    l = await list(name);
    let js = await jobs(name);
    assert.deepEqual(
      js.map((j) => j.metadata.name),
      [scheduledJobName(l, new Date('2026-06-10T10:05:00Z'))],
    );
    assert.match(js[0]!.metadata.name, new RegExp(`^${name}-s202606101005-[0-9a-f]{5}$`));
    assert.equal(js[0]!.metadata.annotations?.[SCHEDULE_TIME_ANNOTATION], '2026-06-10T10:05:00Z');
    assert.equal(l.status?.lastScheduleTime, '2026-06-10T10:05:00Z');
    assert.equal(l.status?.nextScheduleTime, '2026-06-10T10:10:00Z');
    assert.equal(l.status?.lastJob, js[0]!.metadata.name);
    assert.equal(l.status?.phase, 'Queued', 'no ImageJob controller runs here: its job has not started');
    await at('2026-06-10T10:07:00Z', name);
    assert.equal((await jobs(name)).length, 1, 'a second reconcile in the same tick starts nothing');

    // The next tick, but the status write after creating its job is lost (a controller killed
    // in between): the next reconcile finds the job by its tick and adopts it.
    await finish(js[0]!);
    await at('2026-06-10T10:08:00Z', name);
    const succeeded = (await list(name)).status?.lastSuccessfulTime;
    assert.ok(succeeded, 'a completed job is recorded as the last success');
    const before = (await list(name)).status!;
    await at('2026-06-10T10:10:01Z', name);
    assert.equal((await jobs(name)).length, 2);
    await putStatus(name, before);
    await at('2026-06-10T10:10:04Z', name);
    js = await jobs(name);
    assert.equal(js.length, 2, 'the tick was adopted, not started twice');
    l = await list(name);
    assert.equal(l.status?.lastScheduleTime, '2026-06-10T10:10:00Z');
    assert.equal(l.status?.lastJob, js[1]!.metadata.name);
    // The 10:05 job's completion was recorded before: kept as the last success while the next runs.
    assert.equal(l.status?.lastSuccessfulTime, succeeded);

    // The 10:10 job has not finished at 10:15: the tick is skipped, recorded and reported. (No
    // ImageJob controller runs here, so it has not even started: the message says Queued.)
    await at('2026-06-10T10:15:02Z', name);
    assert.equal((await jobs(name)).length, 2);
    l = await list(name);
    assert.equal(l.status?.lastSkipped?.scheduleTime, '2026-06-10T10:15:00Z');
    assert.equal(l.status?.lastSkipped?.reason, 'JobRunning');
    assert.match(
      l.status?.lastSkipped?.message ?? '',
      new RegExp(`job ${js[1]!.metadata.name} has not started yet \\(Queued\\)`),
    );
    assert.equal(l.status?.lastScheduleTime, '2026-06-10T10:10:00Z');
    const events = await env.rest.list<{ reason: string; message: string; involvedObject: { name: string } }>(
      '/api/v1/namespaces/default/events',
      { query: { fieldSelector: `involvedObject.name=${name}` } },
    );
    assert.deepEqual(
      events.items.map((e) => [e.reason, e.message.split(':')[0]]),
      [[SKIP_EVENT_REASON, 'JobRunning']],
    );
    // It finishes before the next tick: the skipped tick does not start late.
    await finish(js[1]!);
    await at('2026-06-10T10:16:00Z', name);
    assert.equal((await jobs(name)).length, 2);
    l = await list(name);
    assert.equal(l.status?.phase, 'Completed', 'the last result is copied');
    await at('2026-06-10T10:20:00.100Z', name);
    assert.equal((await jobs(name)).length, 3);

    // Suspended: no tick runs, no next run is shown.
    await finish((await jobs(name))[2]!);
    await submitErase(env.rest, {
      name,
      images: [`docker.io/library/nothing-${env.tag}:1`],
      nodeSelector: `erase-test=${env.tag}`,
      schedule: '*/5 * * * *',
      timeZone: 'Europe/Berlin',
      suspend: true,
    });
    assert.equal(await at('2026-06-10T10:25:01Z', name), undefined);
    assert.equal((await jobs(name)).length, 3);
    l = await list(name);
    assert.equal(l.status?.nextScheduleTime, undefined);
    assert.equal(l.status?.observedSchedule?.suspended, true);

    // A one-off `inv erase` on a scheduled list is refused rather than dropping the schedule.
    await assert.rejects(
      submitErase(env.rest, { name, images: [`docker.io/library/nothing-${env.tag}:1`] }),
      (e: Error) =>
        e instanceof ScheduledListError && /runs on the schedule "\*\/5 \* \* \* \*"/.test(e.message),
    );
    // Removing the schedule (kubectl edit) is not a request to run now.
    const cur = await list(name);
    const spec = { ...cur.spec };
    delete spec.schedule;
    delete spec.timeZone;
    delete spec.suspend;
    await env.rest.request('PUT', `${IMAGELISTS_PATH}/${name}`, { body: { ...cur, spec } });
    await at('2026-06-10T10:30:01Z', name);
    await at('2026-06-10T10:30:02Z', name);
    assert.equal((await jobs(name)).length, 3, 'no job for the edit that removed the schedule');
    l = await list(name);
    assert.match(l.status?.message ?? '', /schedule removed/);
    assert.equal(l.status?.observedSchedule, undefined);
    // The next one-off request runs, as before.
    const gen = await submitErase(env.rest, {
      name,
      images: [`docker.io/library/nothing-${env.tag}:1`],
      nodeSelector: `erase-test=${env.tag}`,
    });
    await at('2026-06-10T10:31:00Z', name);
    js = await jobs(name);
    assert.equal(js.length, 4);
    assert.ok(js.some((j) => j.spec.imageList.generation === gen && !j.metadata.annotations));
  });

  it('the controller rejects a bad schedule or time zone with the value named, and runs nothing', async () => {
    for (const [i, spec, re] of [
      [1, { schedule: '0 3 * *' }, /schedule "0 3 \* \*": a cron expression has exactly 5 fields/],
      [
        2,
        { schedule: '0 3 * * *', timeZone: 'Europe/Atlantis' },
        /timeZone "Europe\/Atlantis": must be an IANA/,
      ],
    ] as const) {
      const name = `bad-${i}-${env.tag}`;
      await env.rest.request('POST', IMAGELISTS_PATH, {
        body: {
          apiVersion: 'erase.imageinventory.dev/v1alpha1',
          kind: 'ImageList',
          metadata: { name },
          spec: { images: [`docker.io/library/nothing-${env.tag}:1`], ...spec },
        },
      });
      assert.equal(await at('2026-06-10T03:00:00Z', name), undefined);
      const l = await list(name);
      assert.equal(l.status?.phase, 'Error');
      assert.match(l.status?.message ?? '', re);
      assert.equal(l.status?.nextScheduleTime, undefined);
      assert.deepEqual(await jobs(name), []);
      // Fixed (a new generation): the rejection is cleared and the next tick is shown.
      await env.rest.request('PUT', `${IMAGELISTS_PATH}/${name}`, {
        body: { ...l, spec: { ...l.spec, schedule: '0 3 * * *', timeZone: 'UTC' } },
      });
      await at('2026-06-10T03:00:01Z', name);
      const fixed = await list(name);
      assert.equal(fixed.status?.phase, undefined);
      assert.equal(fixed.status?.nextScheduleTime, '2026-06-11T03:00:00Z');
      assert.deepEqual(await jobs(name), [], 'the tick before the fix does not run');
    }
    // A list whose schedule was never valid: removing the schedule is no request to run either.
    const name = `bad-3-${env.tag}`;
    await env.rest.request('POST', IMAGELISTS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageList',
        metadata: { name },
        spec: { images: [`docker.io/library/nothing-${env.tag}:1`], schedule: 'every day' },
      },
    });
    await at('2026-06-10T03:00:02Z', name);
    assert.equal((await list(name)).status?.phase, 'Error');
    const cur = await list(name);
    const spec = { ...cur.spec };
    delete spec.schedule;
    delete spec.timeZone;
    await env.rest.request('PUT', `${IMAGELISTS_PATH}/${name}`, { body: { ...cur, spec } });
    await at('2026-06-10T03:00:03Z', name);
    await at('2026-06-10T03:00:04Z', name);
    assert.deepEqual(await jobs(name), []);
  });

  it('after an outage, past startingDeadlineSeconds, the missed tick is skipped and the next one runs', async () => {
    const name = `late-${env.tag}`;
    await submitErase(env.rest, {
      name,
      images: [`docker.io/library/nothing-${env.tag}:1`],
      nodeSelector: `erase-test=${env.tag}`,
      schedule: '0 3 * * *',
      startingDeadlineSeconds: 600,
    });
    await at('2026-06-10T01:00:00Z', name);
    // The controller is back at 05:00: the 03:00 run is 2 h late.
    await at('2026-06-10T05:00:00Z', name);
    assert.deepEqual(await jobs(name), []);
    const l = await list(name);
    assert.equal(l.status?.lastSkipped?.reason, 'MissedDeadline');
    assert.equal(l.status?.lastSkipped?.scheduleTime, '2026-06-10T03:00:00Z');
    assert.equal(l.status?.nextScheduleTime, '2026-06-11T03:00:00Z');
    await at('2026-06-11T03:09:00Z', name);
    assert.deepEqual(
      (await jobs(name)).map((j) => j.metadata.annotations?.[SCHEDULE_TIME_ANNOTATION]),
      ['2026-06-11T03:00:00Z'],
    );
  });

  it('inv erase --schedule: exit 2 naming the bad value; a good one is written and returns at once', async () => {
    const name = `cli-${env.tag}`;
    const common = [...envFlags(env), '--name', name, '--all-unused', '--yes'];
    for (const [args, re] of [
      [['--schedule', '0 3 * *'], /--schedule "0 3 \* \*": a cron expression has exactly 5 fields/],
      [['--schedule', '0 3 * * * *'], /--schedule "0 3 \* \* \* \*": .*found 6/],
      [['--schedule', '0 25 * * *'], /--schedule "0 25 \* \* \*": Invalid value for hour: 25/],
      [['--schedule', '0 3 L * *'], /day-of-month field "L"/],
      [
        ['--schedule', '0 3 * * *', '--time-zone', 'Europe/Atlantis'],
        /--time-zone "Europe\/Atlantis": must be an IANA/,
      ],
      [['--schedule', '0 3 * * *', '--starting-deadline', '0s'], /--starting-deadline 0s: .*at least 1/],
      [['--schedule', '0 3 * * *', '--standalone'], /--schedule needs the daemon/],
      [['--time-zone', 'UTC'], /--schedule/],
    ] as const) {
      const r = await inv(['erase', ...common, ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr.replace(/\s*\n\s*›\s*/g, ' '), re, args.join(' '));
    }
    assert.equal(
      (await env.rest.list<ImageList>(IMAGELISTS_PATH)).items.filter((l) => l.metadata.name === name).length,
      0,
    );

    const started = Date.now();
    let r = await inv(['erase', ...common, '--schedule', '0 3 * * *', '--time-zone', 'Asia/Tokyo']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /schedule "0 3 \* \* \*" \(Asia\/Tokyo\), next run \d{4}-\d\d-\d\dT18:00:00Z/);
    assert.match(r.stdout, /Not waiting for a run/);
    assert.ok(Date.now() - started < 30_000);
    let l = await list(name);
    assert.deepEqual(
      [l.spec.images, l.spec.schedule, l.spec.timeZone, l.spec.request],
      [['*'], '0 3 * * *', 'Asia/Tokyo', undefined],
    );
    r = await inv([
      'erase',
      ...common,
      '--schedule',
      '*/5 * * * *',
      '--starting-deadline',
      '10m',
      '--suspend',
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      imageList: name,
      generation: 2,
      schedule: '*/5 * * * *',
      timeZone: 'UTC',
      suspended: true,
      nextRun: null,
    });
    l = await list(name);
    assert.deepEqual(
      [l.spec.startingDeadlineSeconds, l.spec.suspend, l.spec.timeZone],
      [600, true, undefined],
    );
    // A one-off run on the scheduled list is refused: it would drop the schedule.
    r = await inv(['erase', ...common, '--no-wait']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.replace(/\s*\n\s*›\s*/g, ' '), /runs on the schedule "\*\/5 \* \* \* \*"/);
    assert.equal((await list(name)).spec.schedule, '*/5 * * * *');
  });
});
