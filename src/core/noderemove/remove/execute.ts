// The executor: turns decisions into results against the runtime. Before each removal it
// reads the containers and pod sandboxes again, because a pod may have started with the image
// since the decision was made; such an image is reported `in-use` and kept. Removals in flight
// share those re-reads (one at a time, each begun after the removals waiting for it asked). Removal is by image ID, so
// the whole image goes, under all its names (the report lists them as `aliases`).
import { describeUser, InUseIndex, type ContainerView, type ImageView, type SandboxView } from './in-use.js';
import { NO_ID_REASON, unattributedReason } from './runtime-answers.js';
import type { Decision, Result } from '../types.js';
import { forEachConcurrent } from '../../concurrency.js';

/** What the executor needs from a CRI client (kept narrow so it can be faked in unit tests). */
export interface RemovalRuntime {
  listContainers(): Promise<ContainerView[]>;
  /** Pod sandboxes with their images (required: a runtime must say, or nothing is known). */
  listSandboxes(): Promise<readonly SandboxView[]>;
  removeImage(ref: string): Promise<void>;
}

export interface ExecuteOptions {
  dryRun: boolean;
  /** Called after each image is handled (progress display). */
  onProgress?: (done: number, total: number) => void;
  /** Images removed at once; each still re-checks in-use status right before its removal. */
  concurrency?: number;
}

/** Removals in flight at once: enough to overlap CRI round trips, few enough not to load the runtime. */
export const DEFAULT_REMOVAL_CONCURRENCY = 4;

export async function execute(
  runtime: RemovalRuntime,
  decisions: readonly Decision[],
  opts: ExecuteOptions,
): Promise<Result[]> {
  // One removal per image, whatever the number of targets that matched it.
  const firstByImage = new Map<string, Decision>();
  for (const d of decisions) {
    if (d.action === 'remove' && !firstByImage.has(d.imageId)) firstByImage.set(d.imageId, d);
  }
  const outcome = new Map<string, Result>();
  const recheck = sharedRecheck(runtime);
  let done = 0;
  await forEachConcurrent(
    [...firstByImage.values()],
    opts.concurrency ?? DEFAULT_REMOVAL_CONCURRENCY,
    async (d) => {
      const r: Result = opts.dryRun
        ? {
            target: d.target,
            imageId: d.imageId,
            aliases: d.aliases,
            size: d.size,
            outcome: 'would-remove',
            error: '',
            detail: '',
          }
        : await removeOne(runtime, recheck, d);
      outcome.set(d.imageId, r);
      opts.onProgress?.(++done, firstByImage.size);
    },
  );
  // Results in the order of the decisions (the order of the targets).
  return decisions.map((d): Result => {
    const age = d.unusedForMs !== undefined ? { unusedForMs: d.unusedForMs } : {};
    if (d.action === 'keep') {
      return {
        ...age,
        target: d.target,
        imageId: d.imageId,
        aliases: d.aliases,
        size: d.size,
        outcome: d.outcome as Result['outcome'],
        // A scan that failed is an error too: the scanner's words travel with the row.
        error:
          d.outcome === 'invalid' || d.outcome === 'failed' || d.outcome === 'scan-failed' ? d.detail : '',
        detail: d.detail,
      };
    }
    return { ...outcome.get(d.imageId)!, target: d.target, ...age };
  });
}

/** What a removal re-checks: who uses which image, and whether a container names none. */
interface InUseNow {
  index: InUseIndex;
  unattributed: string | undefined;
}

/**
 * In-use re-checks shared by the removals in flight: each removal waits for a listing that
 * started after it asked (never one begun before), and one listing runs at a time, so the
 * runtime's answers (each up to 4 MiB) are held once, not once per removal in flight; only the
 * small index is kept.
 */
function sharedRecheck(runtime: RemovalRuntime): () => Promise<InUseNow> {
  let running: Promise<InUseNow> | undefined;
  let queued: Promise<InUseNow> | undefined;
  const list = async (): Promise<InUseNow> => {
    const [containers, sandboxes] = await Promise.all([runtime.listContainers(), runtime.listSandboxes()]);
    return { index: new InUseIndex(containers, sandboxes), unattributed: unattributedReason(containers) };
  };
  const start = (): Promise<InUseNow> => {
    const p = list();
    running = p;
    // Settled with a listing queued: `running` stays set, so a newcomer joins the queued one.
    const settle = () => {
      if (running === p && !queued) running = undefined;
    };
    p.then(settle, settle);
    return p;
  };
  const noop = () => undefined;
  return () => {
    if (!running) return start();
    queued ??= running.then(noop, noop).then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
}

async function removeOne(
  runtime: RemovalRuntime,
  recheck: () => Promise<InUseNow>,
  d: Decision,
): Promise<Result> {
  const base = { target: d.target, imageId: d.imageId, aliases: d.aliases, size: d.size };
  // Never RemoveImage(""): decide() does not ask for it, and this makes sure.
  if (!d.imageId) return { ...base, outcome: 'failed', error: NO_ID_REASON, detail: '' };
  try {
    const image: ImageView = { id: d.imageId, repoTags: d.aliases, repoDigests: [], pinned: false };
    const now = await recheck();
    // A container that names no image, since the decision: refused as decide() refuses it.
    if (now.unattributed !== undefined)
      return { ...base, outcome: 'failed', error: now.unattributed, detail: '' };
    const user = now.index.usedBy(image);
    if (user !== undefined) {
      return { ...base, outcome: 'in-use', error: '', detail: `since the decision: ${describeUser(user)}` };
    }
    await runtime.removeImage(d.imageId);
    return { ...base, outcome: 'removed', error: '', detail: '' };
  } catch (e) {
    return { ...base, outcome: 'failed', error: (e as Error).message, detail: '' };
  }
}
