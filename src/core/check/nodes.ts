// `inv check --nodes`: proves on every node that the configured runtime socket is there and
// answers, by running what an erase runs, in dry-run mode: an ImageList request for "*" with
// dryRun (nothing is removed), carried out by the daemon's controllers, one worker per node.
// A worker reports Succeeded only after it listed the node's images through the socket. The
// ImageList is deleted afterwards (its job goes with it, through the ownerReference).
import { PRUNE_ALL } from '../erase/images.js';
import { submitErase, waitForJob } from '../erase/request.js';
import { decodeResult } from '../erase/results.js';
import { IMAGELISTS_PATH } from '../erase/types.js';
import { isNotFound, type KubeRest } from '../kube/rest.js';
import type { CheckResult } from './checks.js';

export const CHECK_IMAGELIST = 'inv-check';

export async function nodesCheck(
  rest: KubeRest,
  opts: { ready: boolean; timeoutMs: number },
): Promise<CheckResult[]> {
  const group = 'nodes';
  if (!opts.ready)
    return [
      {
        group,
        name: 'a dry-run worker runs on every node',
        status: 'fail',
        detail: 'not tried: the checks above must pass first (the daemon runs the workers)',
      },
    ];
  try {
    const generation = await submitErase(rest, { name: CHECK_IMAGELIST, images: [PRUNE_ALL], dryRun: true });
    const { job, list } = await waitForJob(rest, CHECK_IMAGELIST, generation, { timeoutMs: opts.timeoutMs });
    const nodes = (job?.status?.nodes ?? []).map(decodeResult);
    if (nodes.length === 0)
      return [
        {
          group,
          name: 'a dry-run worker runs on every node',
          status: 'fail',
          detail: job?.status?.message ?? list.status?.message ?? 'no node was selected',
        },
      ];
    return nodes.map((n) => ({
      group,
      name: `node ${n.node}: the runtime socket answers a dry-run worker`,
      status: n.outcome === 'Succeeded' ? 'pass' : n.outcome === 'Skipped' ? 'warn' : 'fail',
      detail: n.outcome === 'Succeeded' ? `${n.removed} unused images` : `${n.outcome}: ${n.reason}`,
      hint:
        n.outcome === 'Failed' ? 'check runtimeSocket in inv-erase-config and the worker image' : undefined,
    }));
  } catch (e) {
    return [
      { group, name: 'a dry-run worker runs on every node', status: 'fail', detail: (e as Error).message },
    ];
  } finally {
    await rest
      .request('DELETE', `${IMAGELISTS_PATH}/${CHECK_IMAGELIST}`, { timeoutMs: 10_000 })
      .catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
  }
}
