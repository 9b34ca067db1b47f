// Rollout waves on real nodes: with spec.rollout.maxParallel 1, a 2-node erase runs the nodes one
// after the other, as the real kubelets' container start and finish times show.
import assert from 'node:assert/strict';
import { type WholeCluster } from '../support/nodes.js';
import { NodeEraseEnv, results } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

interface Terminated {
  startedAt?: string;
  finishedAt?: string;
}

describe('erase rollout waves on real nodes', function () {
  this.timeout(180_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  useWholeCluster((x) => (c = x));
  beforeEach(async () => {
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
  });
  afterEach(async () => {
    await env.teardown();
  });

  it('maxParallel 1: the second node worker starts after the first one finished', async () => {
    const job = await env.wait(
      await env.erase({
        images: [`docker.io/library/e2e-absent-${env.tag}:1`],
        rollout: { maxParallel: 1 },
      }),
    );
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const r = results(job);
    assert.deepEqual(
      c.nodes.map((n) => r[n.name]?.outcome),
      ['Succeeded', 'Succeeded'],
    );
    assert.equal(job.status?.rollout?.maxParallel, 1);
    assert.equal(job.status?.rollout?.wave, 2);
    // The kubelets' own times, in start order: each worker ran after the previous one finished.
    const runs = [...(await env.workers(job.metadata.name)).values()]
      .map((p) => {
        const t = p.status?.containerStatuses?.[0]?.state?.terminated as Terminated | undefined;
        return {
          pod: p.metadata.name,
          created: Date.parse(p.metadata.creationTimestamp ?? ''),
          started: Date.parse(t?.startedAt ?? ''),
          finished: Date.parse(t?.finishedAt ?? ''),
        };
      })
      .sort((a, b) => a.created - b.created);
    assert.equal(runs.length, 2);
    assert.ok(
      runs.every((x) => Number.isFinite(x.started) && Number.isFinite(x.finished)),
      JSON.stringify(runs),
    );
    // Times have 1 s resolution: the later Pod was created, and its worker started, no earlier
    // than the first worker finished.
    assert.ok(runs[1]!.created >= runs[0]!.finished, JSON.stringify(runs));
    assert.ok(runs[1]!.started >= runs[0]!.finished, JSON.stringify(runs));
    process.stderr.write(
      `      (wave 1: ${runs[0]!.pod} ran ${new Date(runs[0]!.started).toISOString()}..${new Date(runs[0]!.finished).toISOString()}; wave 2: ${runs[1]!.pod} started ${new Date(runs[1]!.started).toISOString()})\n`,
    );
  });
});
