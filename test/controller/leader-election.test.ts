// Leader election against the real test API server: one leader among candidates, clean
// hand-over on stop, take-over after a crash once the lease expires, loss of leadership when
// renewals fail, and the Lease object's holder and transitions along the way.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { LeaderElector, type LeaderElectionOptions } from '../../src/core/controller/leader-election.js';
import { adminConfig, kubeconfigPath, newNamespace } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Short timings as in the brief: lease 2 s, renew deadline 1.5 s, retry period 0.3 s.
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
// A candidate notices a change at its next (jittered) poll, at most retry * (1 + 1.2) later.
const maxPollMs = timing.retryPeriodMs * 2.2;

interface Candidate {
  elector: LeaderElector;
  id: string;
  started: number;
  stopped: number;
  signals: AbortSignal[];
  newLeaders: string[];
  run: Promise<void>;
}

async function until(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<number> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
  return Date.now() - start;
}

describe('leader election (real API server)', function () {
  this.timeout(30_000);
  let namespace: string;
  let kc: k8s.KubeConfig;
  let leases: k8s.CoordinationV1Api;
  const all: Candidate[] = [];
  let leaseName = '';
  let n = 0;

  before(async () => {
    kc = adminConfig();
    leases = kc.makeApiClient(k8s.CoordinationV1Api);
    namespace = await newNamespace('leader-election');
  });

  beforeEach(() => {
    leaseName = `inv-test-${++n}`;
  });

  afterEach(async () => {
    for (const c of all.splice(0)) await c.elector.stop();
  });

  function candidate(id: string, extra: Partial<LeaderElectionOptions> = {}): Candidate {
    const c: Candidate = {
      id,
      started: 0,
      stopped: 0,
      signals: [],
      newLeaders: [],
      elector: undefined as unknown as LeaderElector,
      run: Promise.resolve(),
    };
    c.elector = new LeaderElector({
      kubeConfig: kc,
      namespace,
      name: leaseName,
      identity: id,
      ...timing,
      onStartedLeading: (signal) => {
        c.started++;
        c.signals.push(signal);
      },
      onStoppedLeading: () => c.stopped++,
      onNewLeader: (leader) => c.newLeaders.push(leader),
      ...extra,
    });
    c.run = c.elector.run();
    all.push(c);
    return c;
  }

  const readLease = () => leases.readNamespacedLease({ name: leaseName, namespace });

  /** Waits until the holder has renewed the Lease twice (three distinct renewTimes seen). */
  async function renewedTwice(): Promise<void> {
    const seen = new Set<string>();
    await until(
      async () => seen.add(String((await readLease()).spec?.renewTime)).size >= 3,
      5000,
      'two renewals',
    );
  }

  it('elects exactly one of two candidates and records it in the Lease', async () => {
    const a = candidate('a');
    const b = candidate('b');
    await until(() => a.elector.isLeader() || b.elector.isLeader(), 5000, 'a leader');
    // Watch through several renewals that the other never leads too.
    const end = Date.now() + 1500;
    while (Date.now() < end) {
      assert.ok(!(a.elector.isLeader() && b.elector.isLeader()), 'two leaders at once');
      await sleep(10);
    }
    const [leader, follower] = a.elector.isLeader() ? [a, b] : [b, a];
    assert.equal(follower.elector.isLeader(), false);
    assert.equal(leader.started, 1);
    assert.equal(follower.started, 0);
    const lease = await readLease();
    assert.equal(lease.spec?.holderIdentity, leader.id);
    assert.equal(lease.spec?.leaseTransitions, 0);
    assert.equal(lease.spec?.leaseDurationSeconds, 2);
    assert.equal(follower.elector.getLeader(), leader.id);
    assert.deepEqual(follower.newLeaders, [leader.id]);
    assert.deepEqual(leader.newLeaders, [leader.id]);
  });

  it('releases the Lease on stop(), so the other candidate takes over within about a retry period', async () => {
    let holderWhenWorkEnded: string | undefined;
    let workEnded = 0;
    const a = candidate('a', {
      // Leading work that takes 200 ms to wind down: release must wait for it.
      onStartedLeading: async (signal) => {
        a.started++;
        a.signals.push(signal);
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
        await sleep(200);
        holderWhenWorkEnded = (await readLease()).spec?.holderIdentity;
        workEnded = Date.now();
      },
    });
    await until(() => a.elector.isLeader(), 5000, 'a to lead');
    const b = candidate('b');
    await until(() => b.newLeaders.length === 1, 5000, 'b to observe a');
    // Two of a's renewals while b polls: a held Lease is never taken.
    await renewedTwice();
    assert.equal(b.elector.isLeader(), false);

    await a.elector.stop();
    const stoppedAt = Date.now();
    assert.equal(a.signals[0]?.aborted, true);
    assert.equal(a.stopped, 1);
    assert.equal(a.elector.isLeader(), false);
    assert.equal(holderWhenWorkEnded, 'a', 'the Lease was held until the leading work had finished');
    assert.ok(workEnded > 0 && workEnded <= stoppedAt);

    const took = await until(() => b.elector.isLeader(), 5000, 'b to take over');
    assert.ok(took < maxPollMs + 300, `b took ${took} ms after the release`);
    const lease = await readLease();
    assert.equal(lease.spec?.holderIdentity, 'b');
    assert.equal(lease.spec?.leaseTransitions, 1);
    assert.deepEqual(b.newLeaders, ['a', 'b']);
  });

  it('empties holderIdentity with a 1 s duration on release, keeping leaseTransitions', async () => {
    const a = candidate('a');
    await until(() => a.elector.isLeader(), 5000, 'a to lead');
    await a.elector.stop();
    const lease = await readLease();
    assert.ok(!lease.spec?.holderIdentity, `holder is ${lease.spec?.holderIdentity}`);
    assert.equal(lease.spec?.leaseDurationSeconds, 1);
    assert.equal(lease.spec?.leaseTransitions, 0);

    // A new candidate takes an empty Lease at once, counting a transition.
    const b = candidate('b');
    const took = await until(() => b.elector.isLeader(), 2000, 'b to lead');
    assert.ok(took < 1000, `b took ${took} ms`);
    assert.equal((await readLease()).spec?.leaseTransitions, 1);
  });

  it('lets another candidate take over a crashed leader within the lease duration plus retry periods', async () => {
    // The crashed leader is a process of its own, SIGKILLed: nothing of it runs any more.
    const proc = spawn(process.execPath, [path.join(repoRoot, 'dist/test/controller/elector-proc.js')], {
      env: {
        ...process.env,
        ELECTOR_KUBECONFIG: kubeconfigPath(),
        ELECTOR_NAMESPACE: namespace,
        ELECTOR_LEASE: leaseName,
        ELECTOR_ID: 'a',
        ELECTOR_TIMING: JSON.stringify(timing),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => proc.once('exit', r));
    try {
      await until(() => out.includes('leading'), 10_000, 'a to lead');
      const b = candidate('b');
      await until(() => b.newLeaders.length === 1, 5000, 'b to observe a');
      // A few of a's renewals, seen by b as changes of the Lease's renewTime.
      await renewedTwice();

      proc.kill('SIGKILL');
      await exited;
      const killedAt = Date.now();
      assert.equal((await readLease()).spec?.holderIdentity, 'a', 'a crash leaves the Lease held');
      await until(() => b.elector.isLeader(), 10_000, 'b to take over');
      const took = Date.now() - killedAt;
      // Expiry is judged from when b observed a's last renewal (≤ one poll after it, and that renewal
      // was at most one retry period before the kill), then b needs one more poll to notice it.
      assert.ok(
        took >= timing.leaseDurationMs - timing.retryPeriodMs - 100,
        `b took over after only ${took} ms`,
      );
      assert.ok(took <= timing.leaseDurationMs + 2 * maxPollMs + 300, `b took over after ${took} ms`);
      const lease = await readLease();
      assert.equal(lease.spec?.holderIdentity, 'b');
      assert.equal(lease.spec?.leaseTransitions, 1);
      assert.ok(!out.includes('stopped'), 'a crashed leader runs no callbacks');
      process.stderr.write(`      (crash take-over after ${took} ms; lease 2000 ms, retry 300 ms)\n`);
    } finally {
      proc.kill('SIGKILL');
    }
  });

  it('stops leading when renewals fail for renewDeadline, then competes again', async () => {
    const a = candidate('a');
    await until(() => a.elector.isLeader(), 5000, 'a to lead');
    // Another writer steals the Lease (as a partitioned peer would); a's renewals now conflict.
    const lease = await readLease();
    const now = new k8s.V1MicroTime(Date.now());
    await leases.replaceNamespacedLease({
      name: leaseName,
      namespace,
      body: {
        ...lease,
        spec: { ...lease.spec, holderIdentity: 'intruder', renewTime: now, acquireTime: now },
      },
    });
    const stolenAt = Date.now();
    await until(() => a.stopped === 1, 5000, 'a to stop leading');
    const lost = Date.now() - stolenAt;
    assert.equal(a.signals[0]?.aborted, true);
    assert.equal(a.elector.isLeader(), false);
    // The next renewal is due within a retry period; it gives up after the renew deadline.
    assert.ok(lost <= timing.retryPeriodMs + timing.renewDeadlineMs + 400, `lost after ${lost} ms`);
    assert.equal((await readLease()).spec?.holderIdentity, 'intruder', 'a did not release a Lease it lost');

    // The intruder never renews: a takes the Lease back once it expires, in a new term.
    await until(() => a.elector.isLeader(), 10_000, 'a to lead again');
    assert.equal(a.started, 2);
    assert.equal(a.signals[1]?.aborted, false);
    assert.deepEqual(a.newLeaders, ['a', 'intruder', 'a']);
    assert.equal((await readLease()).spec?.leaseTransitions, 1);
  });

  it('ends run() after a loss when reacquire is false', async () => {
    const a = candidate('a', { reacquire: false });
    await until(() => a.elector.isLeader(), 5000, 'a to lead');
    const lease = await readLease();
    await leases.replaceNamespacedLease({
      name: leaseName,
      namespace,
      body: {
        ...lease,
        spec: { ...lease.spec, holderIdentity: 'intruder', renewTime: new k8s.V1MicroTime() },
      },
    });
    await a.run;
    assert.equal(a.stopped, 1);
    assert.equal(a.started, 1);
  });

  it('rejects timings that could allow two leaders', () => {
    const base = {
      kubeConfig: kc,
      namespace,
      name: 'x',
      identity: 'x',
      onStartedLeading() {},
      onStoppedLeading() {},
    };
    assert.throws(
      () => new LeaderElector({ ...base, leaseDurationMs: 2000, renewDeadlineMs: 2000 }),
      /leaseDuration must be greater than renewDeadline/,
    );
    assert.throws(
      () => new LeaderElector({ ...base, renewDeadlineMs: 1000, retryPeriodMs: 1000 }),
      /renewDeadline must be greater than retryPeriod/,
    );
  });
});
