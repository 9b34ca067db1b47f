// The soak's short version (bench/support/soak-run.ts; `npm run bench soak` runs the hour): `inv watch`
// with the erase controllers as a child process under Pod churn across 20 namespaces, an erase
// job on 5 harness Nodes; then the Images equal a fresh dry-run scan exactly, and the daemon holds
// no more sockets, API server connections (watch streams plus at most the 32 pooled keep-alive
// sockets) or timers than after its warm-up, counted from /proc and its own metrics.
import assert from 'node:assert/strict';
import { runSoak } from '../../bench/support/soak-run.js';
import { kubeconfigPath } from '../support/kube.js';

describe('inv watch soak (short)', function () {
  this.timeout(180_000);

  it('20 s of churn: converged exactly, no leaked watch streams, sockets or timers', async () => {
    const lines: string[] = [];
    const r = await runSoak({
      kubeconfig: kubeconfigPath(),
      durationMs: 20_000,
      namespaces: 20,
      opsPerSecond: 20,
      nodes: 5,
      sampleMs: 2000,
      warmupMs: 8000,
      log: (m) => lines.push(m),
    });
    const info = `${JSON.stringify({ warm: r.warm, end: r.end, ops: r.ops, errors: r.opErrors })}\n${lines.join('\n')}`;
    assert.deepEqual(r.drift, { created: 0, updated: 0, deleted: 0 }, info);
    assert.ok(r.ops > 100, info);
    assert.equal(r.opErrors, 0, info);
    assert.ok(r.eraseJobs >= 1, `the erase job ran: ${info}`);
    // Pooled keep-alive sockets come and go (at most 32); watch streams must not pile up.
    assert.ok(r.end.apiConnections <= r.warm.apiConnections + 32, info);
    assert.ok(r.end.sockets <= r.warm.sockets + 34, info);
    // Timers come and go with the work in flight (46 to 144 in one 20 s run): a leak is more
    // than the most seen while warming up, not more than one sample of it.
    const warmTimers = Math.max(...r.samples.filter((x) => x.atMs <= r.warm.atMs).map((x) => x.timers));
    assert.ok(r.end.timers <= warmTimers + 16, info);
    process.stderr.write(
      `      (${r.ops} ops; RSS warm/end ${r.warm.rssMB}/${r.end.rssMB} MB; sockets ${r.warm.sockets}/${r.end.sockets}; API connections ${r.warm.apiConnections}/${r.end.apiConnections}; timers ${r.warm.timers}/${r.end.timers}; converged in ${r.convergeMs} ms)\n`,
    );
  });
});
