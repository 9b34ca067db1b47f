// Erase cleanup on the whole cluster (real garbage collector, real kubelets): deleting an
// ImageJob or its ImageList while workers run leaves nothing behind, no object in the API and no
// running container on a node, also when the controllers were stopped at the time and started
// again. The trust boundary of the same controllers: trust.test.ts.
import assert from 'node:assert/strict';
import { CLEANUP_FINALIZER, IMAGEJOBS_PATH, IMAGELISTS_PATH } from '../../../src/core/erase/api/types.js';
import { nodeCri, until, type WholeCluster } from '../../support/nodes.js';
import { importToNodes, NodeEraseEnv, nodeEraseEnvPerTest } from '../helpers.js';

describe('erase trust boundary and cleanup (whole cluster)', function () {
  this.timeout(240_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  nodeEraseEnvPerTest((cluster, e) => {
    c = cluster;
    env = e;
  });

  describe('deleting while workers run', () => {
    let hangImage = '';
    beforeEach(async () => {
      // A worker image that runs until it is stopped, so the workers really are running.
      hangImage = `inv.test/hang-worker-${env.tag}:1`;
      await importToNodes(
        c,
        [0, 1],
        [
          {
            refs: [hangImage],
            distinct: `hang-${env.tag}`,
            entrypoint: ['/bin/sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'],
          },
        ],
      );
      await env.config('', hangImage);
    });

    /** Starts a job and waits until both of its workers run on the real nodes. */
    const runningJob = async () => {
      const req = await env.erase({ images: [`nothing-${env.tag}:1`] });
      const job = await until('the job', async () => {
        const l = await env.rest.get<{ status?: { lastJob?: string } }>(`${IMAGELISTS_PATH}/${req.name}`);
        return l.status?.lastJob;
      });
      await until(
        'both workers Running',
        async () => {
          const w = await env.workers(job);
          return w.size === 2 && [...w.values()].every((p) => p.status?.phase === 'Running');
        },
        90_000,
      );
      return { req, job };
    };

    /** Nothing of the job is left: no object in the API, no running container on a node. */
    const nothingLeft = async (job: string) => {
      await until('the job gone', async () => !(await env.job(job)), 90_000, 250);
      await until(
        'every worker object gone',
        async () => (await env.leftovers(job)).length === 0,
        60_000,
        250,
      );
      for (let i = 0; i < c.nodes.length; i++) {
        const cri = await nodeCri(c, i);
        try {
          await until(
            `no worker container running on node ${i + 1}`,
            async () => {
              const running = (await cri.listContainers()).filter(
                (x) => x.labels['io.kubernetes.pod.name']?.startsWith(job) && x.state === 'CONTAINER_RUNNING',
              );
              return running.length === 0;
            },
            60_000,
            250,
          );
        } finally {
          cri.close();
        }
      }
    };

    it('deleting the ImageJob stops its workers and removes every object, in delete order', async () => {
      const { job } = await runningJob();
      const j = await env.job(job);
      assert.ok(j?.metadata.finalizers?.includes(CLEANUP_FINALIZER), 'the job carries the cleanup finalizer');
      await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${job}`);
      await nothingLeft(job);
    });

    it('deleting the ImageList: the garbage collector deletes the job, the finalizer cleans up', async () => {
      const { req, job } = await runningJob();
      await env.rest.request('DELETE', `${IMAGELISTS_PATH}/${req.name}`);
      await nothingLeft(job);
    });

    it('deleting with the controllers stopped blocks on the finalizer; started again, they clean up', async () => {
      const { job } = await runningJob();
      await env.stopControllers();
      await env.rest.request('DELETE', `${IMAGEJOBS_PATH}/${job}`);
      const blocked = await env.job(job);
      assert.ok(blocked?.metadata.deletionTimestamp, 'marked for deletion');
      assert.ok(blocked.metadata.finalizers?.includes(CLEANUP_FINALIZER), 'held by the finalizer');
      assert.equal((await env.workers(job)).size, 2, 'its workers are still there');
      env.startControllers();
      await nothingLeft(job);
    });
  });
});
