// `inv check --nodes`: proves on every node that the configured runtime socket is there and
// answers, by running what an erase runs, in dry-run mode: an ImageList request for "*" with
// dryRun (nothing is removed), carried out by the daemon's controllers, one worker per node.
// A worker reports Succeeded only after it listed the node's images through the socket. The
// ImageList is deleted afterwards (its job goes with it, through the ownerReference), also on
// ^C (the command calls removeOwnCheckList); the list carries a label that marks it as the
// check's own, so that a rerun after a check that could not clean up (killed) replaces it,
// while a list of that name that someone else made is never touched.
import * as resources from '../kube/resources.js';
import { sleep } from '../concurrency.js';
import { PRUNE_ALL } from '../erase/spec/images.js';
import { submitErase, waitForJob } from '../erase-request/request.js';
import { statusNodes } from '../erase/api/status-budget.js';
import type { ImageList } from '../erase/api/types.js';
import { isConflict, isNotFound, type KubeRest } from '../kube/rest.js';
import type { CheckResult } from './checks.js';
import { runtimesByNode } from './node-runtime.js';

export const CHECK_IMAGELIST = 'inv-check';
const checkListPath = resources.resourcePath('ImageList', undefined, CHECK_IMAGELIST);
/** The mark on the check's own list. */
export const CHECK_LABEL = 'imageinventory.dev/created-by';
export const CHECK_LABEL_VALUE = 'inv-check';

const isOwn = (l: ImageList): boolean => l.metadata.labels?.[CHECK_LABEL] === CHECK_LABEL_VALUE;

/**
 * Deletes the check's own list if it exists (a leftover, or the one of a run being
 * interrupted): never one without the check's label. Does not wait for the job's cleanup.
 */
export async function removeOwnCheckList(rest: KubeRest, timeoutMs = 5_000): Promise<boolean> {
  let cur: ImageList;
  try {
    cur = await resources.get<ImageList>(rest, 'ImageList', undefined, CHECK_IMAGELIST, { timeoutMs });
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
  if (!isOwn(cur) || !cur.metadata.uid) return false;
  await deleteList(rest, cur.metadata.uid, timeoutMs);
  return true;
}

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
  const p = checkListPath;
  // Never overwrite (or later delete) an ImageList of that name that the check did not create.
  // The check's own leftover is run again (submitErase rewrites its request), or, when it is
  // being deleted (an interrupted check), awaited until gone.
  try {
    const cur = await rest.get<ImageList>(p);
    if (isOwn(cur) && cur.metadata.uid) {
      if (cur.metadata.deletionTimestamp) await removeCheckList(rest, cur.metadata.uid);
    } else
      return [
        {
          group,
          name: 'a dry-run worker runs on every node',
          status: 'fail',
          detail: `an ImageList named ${CHECK_IMAGELIST} already exists, and the check never overwrites one`,
          hint: `it lacks the check's label ${CHECK_LABEL}=${CHECK_LABEL_VALUE}, so it is someone else's: if nobody needs it, delete it (kubectl delete imagelist ${CHECK_IMAGELIST}) and run the check again`,
        },
      ];
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  let uid: string | undefined;
  try {
    // The job's own deadline, for what nothing else catches: a worker that cannot mount a socket
    // that is not there fails its node after workerStartGrace (reason runtime-socket, naming the
    // path and runtimeSocket), one that cannot pull its image likewise (image-pull).
    const generation = await submitErase(rest, {
      name: CHECK_IMAGELIST,
      images: [PRUNE_ALL],
      dryRun: true,
      labels: { [CHECK_LABEL]: CHECK_LABEL_VALUE },
      jobTimeout: `${Math.ceil(opts.timeoutMs / 1000)}s`,
    });
    uid = (await rest.get<ImageList>(p)).metadata.uid;
    const { job, list } = await waitForJob(rest, CHECK_IMAGELIST, generation, {
      timeoutMs: opts.timeoutMs + 30_000,
    });
    const nodes = statusNodes(job?.status, true);
    if (nodes.length === 0)
      return [
        {
          group,
          name: 'a dry-run worker runs on every node',
          status: 'fail',
          detail: job?.status?.message ?? list.status?.message ?? 'no node was selected',
        },
      ];
    const runtimes = await nodeRuntimes(rest);
    const on = (node: string) => (runtimes.get(node) ? `; runtime ${runtimes.get(node)}` : '');
    return nodes.map((n) => ({
      group,
      name: `node ${n.node}: the runtime socket answers a dry-run worker`,
      status: n.outcome === 'Succeeded' ? 'pass' : n.outcome === 'Skipped' ? 'warn' : 'fail',
      detail:
        (n.outcome === 'Succeeded' ? `${n.removed} unused images` : `${n.outcome}: ${n.reason}`) + on(n.node),
      hint: n.reason.startsWith('runtime-socket:')
        ? "set runtimeSocket in inv-erase-config to the nodes' CRI socket (k3s: /run/k3s/containerd/containerd.sock, CRI-O: /var/run/crio/crio.sock)"
        : n.outcome === 'Failed'
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
 * Each node's runtime and version as its kubelet reports it; empty when the nodes cannot be
 * read (the line then just does not name it: this is information, not a check).
 */
async function nodeRuntimes(rest: KubeRest): Promise<Map<string, string>> {
  try {
    // Page by page, keeping only what the lines show; one deadline over every page.
    type NodeItem = Parameters<typeof runtimesByNode>[0][number];
    const { items } = await resources.list<NodeItem, NodeItem>(rest, 'Node', undefined, {
      map: (n) => ({
        metadata: { name: n.metadata?.name },
        status: { nodeInfo: { containerRuntimeVersion: n.status?.nodeInfo?.containerRuntimeVersion } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    return runtimesByNode(items);
  } catch {
    return new Map();
  }
}

/**
 * Deletes the check's own ImageList (its UID as a precondition) and waits until the daemon has
 * cleaned up its job (at most 60 s).
 */
async function removeCheckList(rest: KubeRest, uid: string): Promise<void> {
  const p = checkListPath;
  const deadline = Date.now() + 60_000;
  try {
    await deleteList(rest, uid, 10_000);
    while (Date.now() < deadline) {
      await rest.request('GET', p, { timeoutMs: 10_000 });
      await sleep(250);
    }
  } catch (e) {
    // Gone (done), or replaced by someone else's list of that name (not ours to delete).
    if (!isNotFound(e) && !isConflict(e)) throw e;
  }
}

/** Deletes the check's list, only the one with this UID (a precondition). */
async function deleteList(rest: KubeRest, uid: string, timeoutMs: number): Promise<void> {
  try {
    await resources.delete(rest, 'ImageList', undefined, CHECK_IMAGELIST, {
      query: { propagationPolicy: 'Foreground' },
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid } },
      timeoutMs,
    });
  } catch (e) {
    // Gone already, or replaced by someone else's list of that name (not ours to delete).
    if (!isNotFound(e) && !isConflict(e)) throw e;
  }
}
