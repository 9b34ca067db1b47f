// `inv check --nodes`: proves on every node that the configured runtime socket is there and
// answers, by running what an erase runs, in dry-run mode: an ImageList request for "*" with
// dryRun (nothing is removed), carried out by the daemon's controllers, one worker per node.
// A worker reports Succeeded only after it listed the node's images through the socket. The
// ImageList is deleted afterwards (its job goes with it, through the ownerReference).
import { PRUNE_ALL } from '../erase/api/images.js';
import { submitErase, waitForJob } from '../erase/requester/request.js';
import { decodeResult } from '../erase/api/results.js';
import { IMAGELISTS_PATH, type ImageList } from '../erase/api/types.js';
import { isConflict, isNotFound, type KubeRest } from '../kube/rest.js';
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
  const p = `${IMAGELISTS_PATH}/${CHECK_IMAGELIST}`;
  // Never overwrite (or later delete) an ImageList of that name that the check did not create.
  try {
    await rest.get(p);
    return [
      {
        group,
        name: 'a dry-run worker runs on every node',
        status: 'fail',
        detail: `an ImageList named ${CHECK_IMAGELIST} already exists, and the check never overwrites one`,
        hint: `if a check was interrupted, delete it (kubectl delete imagelist ${CHECK_IMAGELIST}) and run the check again`,
      },
    ];
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  let uid: string | undefined;
  try {
    // The job's own deadline: a worker that cannot mount a socket that is not there never
    // starts (the Pod stays ContainerCreating), and its node then fails with reason timeout.
    const generation = await submitErase(rest, {
      name: CHECK_IMAGELIST,
      images: [PRUNE_ALL],
      dryRun: true,
      jobTimeout: `${Math.ceil(opts.timeoutMs / 1000)}s`,
    });
    uid = (await rest.get<ImageList>(p)).metadata.uid;
    const { job, list } = await waitForJob(rest, CHECK_IMAGELIST, generation, {
      timeoutMs: opts.timeoutMs + 30_000,
    });
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
        n.outcome === 'Failed'
          ? 'check runtimeSocket in inv-erase-config (a worker whose socket is missing never starts: ' +
            '`kubectl describe pod` in the workers namespace shows FailedMount) and worker.image'
          : undefined,
    }));
  } catch (e) {
    return [
      { group, name: 'a dry-run worker runs on every node', status: 'fail', detail: (e as Error).message },
    ];
  } finally {
    if (uid) await removeCheckList(rest, uid);
  }
}

/**
 * Deletes the check's own ImageList (its UID as a precondition) and waits until the daemon has
 * cleaned up its job (at most 60 s).
 */
async function removeCheckList(rest: KubeRest, uid: string): Promise<void> {
  const p = `${IMAGELISTS_PATH}/${CHECK_IMAGELIST}`;
  const deadline = Date.now() + 60_000;
  try {
    await rest.request('DELETE', p, {
      query: { propagationPolicy: 'Foreground' },
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid } },
      timeoutMs: 10_000,
    });
    while (Date.now() < deadline) {
      await rest.request('GET', p, { timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (e) {
    // Gone (done), or replaced by someone else's list of that name (not ours to delete).
    if (!isNotFound(e) && !isConflict(e)) throw e;
  }
}
