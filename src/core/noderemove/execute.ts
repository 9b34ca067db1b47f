// The executor: turns decisions into results against the runtime. Before each removal it
// reads the containers again, because a pod may have started with the image since the
// decision was made; such an image is reported `in-use` and kept. Removal is by image ID, so
// the whole image goes, under all its names (the report lists them as `aliases`).
import { InUseIndex, type ContainerView, type ImageView } from './decide.js';
import type { Decision, Result } from './types.js';

/** What the executor needs from a CRI client (kept narrow so it can be faked in unit tests). */
export interface RemovalRuntime {
  listContainers(): Promise<ContainerView[]>;
  removeImage(ref: string): Promise<void>;
}

export interface ExecuteOptions {
  dryRun: boolean;
  /** Called after each image is handled (progress display). */
  onProgress?: (done: number, total: number) => void;
}

export async function execute(
  runtime: RemovalRuntime,
  decisions: readonly Decision[],
  opts: ExecuteOptions,
): Promise<Result[]> {
  // One removal per image, whatever the number of targets that matched it.
  const byImage = new Map<string, Result>();
  const results: Result[] = [];
  const toRemove = new Set(decisions.filter((d) => d.action === 'remove').map((d) => d.imageId));
  let done = 0;
  for (const d of decisions) {
    if (d.action === 'keep') {
      results.push({
        target: d.target,
        imageId: d.imageId,
        aliases: d.aliases,
        outcome: d.outcome as Result['outcome'],
        error: d.outcome === 'invalid' ? d.detail : '',
        detail: d.detail,
      });
      continue;
    }
    const earlier = byImage.get(d.imageId);
    if (earlier) {
      results.push({ ...earlier, target: d.target });
      continue;
    }
    let r: Result;
    if (opts.dryRun) {
      r = {
        target: d.target,
        imageId: d.imageId,
        aliases: d.aliases,
        outcome: 'would-remove',
        error: '',
        detail: '',
      };
    } else {
      r = await removeOne(runtime, d);
    }
    byImage.set(d.imageId, r);
    results.push(r);
    opts.onProgress?.(++done, toRemove.size);
  }
  return results;
}

async function removeOne(runtime: RemovalRuntime, d: Decision): Promise<Result> {
  const base = { target: d.target, imageId: d.imageId, aliases: d.aliases };
  try {
    const image: ImageView = { id: d.imageId, repoTags: d.aliases, repoDigests: [], pinned: false };
    const user = new InUseIndex(await runtime.listContainers()).usedBy(image);
    if (user !== undefined) {
      return {
        ...base,
        outcome: 'in-use',
        error: '',
        detail: `started using it meanwhile: container ${user.slice(0, 13)}`,
      };
    }
    await runtime.removeImage(d.imageId);
    return { ...base, outcome: 'removed', error: '', detail: '' };
  } catch (e) {
    return { ...base, outcome: 'failed', error: (e as Error).message, detail: '' };
  }
}
