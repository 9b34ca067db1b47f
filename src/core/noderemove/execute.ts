// The executor: turns decisions into results against the runtime. Before each removal it
// reads the containers and pod sandboxes again, because a pod may have started with the image
// since the decision was made; such an image is reported `in-use` and kept. Removal is by image ID, so
// the whole image goes, under all its names (the report lists them as `aliases`).
import { describeUser, InUseIndex, type ContainerView, type ImageView, type SandboxView } from './in-use.js';
import type { Decision, Result } from './types.js';
import { forEachConcurrent } from '../concurrency.js';

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
        : await removeOne(runtime, d);
      outcome.set(d.imageId, r);
      opts.onProgress?.(++done, firstByImage.size);
    },
  );
  // Results in the order of the decisions (the order of the targets).
  return decisions.map((d): Result => {
    if (d.action === 'keep') {
      return {
        target: d.target,
        imageId: d.imageId,
        aliases: d.aliases,
        size: d.size,
        outcome: d.outcome as Result['outcome'],
        error: d.outcome === 'invalid' || d.outcome === 'failed' ? d.detail : '',
        detail: d.detail,
      };
    }
    return { ...outcome.get(d.imageId)!, target: d.target };
  });
}

async function removeOne(runtime: RemovalRuntime, d: Decision): Promise<Result> {
  const base = { target: d.target, imageId: d.imageId, aliases: d.aliases, size: d.size };
  try {
    const image: ImageView = { id: d.imageId, repoTags: d.aliases, repoDigests: [], pinned: false };
    const [containers, sandboxes] = await Promise.all([runtime.listContainers(), runtime.listSandboxes()]);
    const user = new InUseIndex(containers, sandboxes).usedBy(image);
    if (user !== undefined) {
      return { ...base, outcome: 'in-use', error: '', detail: `since the decision: ${describeUser(user)}` };
    }
    await runtime.removeImage(d.imageId);
    return { ...base, outcome: 'removed', error: '', detail: '' };
  } catch (e) {
    return { ...base, outcome: 'failed', error: (e as Error).message, detail: '' };
  }
}
