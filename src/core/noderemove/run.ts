// `inv node-remove` end to end, minus flag parsing and rendering: connect to the runtime,
// read its images and containers, decide, then remove (or not, with dryRun).
import { connectCri } from '../cri/client.js';
import { compileExclusion, type ExclusionMatcher } from '../refs/exclusion.js';
import { decide } from './decide.js';
import { execute } from './execute.js';
import { compileAll, DEFAULT_SANDBOX_EXCLUSIONS, sandboxImageFromStatusInfo } from './exclusions.js';
import type { CriContainer } from '../cri/types.js';
import type { ContainerView } from './decide.js';
import type { Report } from './types.js';

const containerView = (c: CriContainer): ContainerView => ({
  id: c.id,
  image: c.image?.image,
  imageRef: c.imageRef,
  imageId: c.imageId,
  state: c.state,
});

export interface NodeRemoveOptions {
  endpoint: string;
  timeoutMs: number;
  targets: readonly string[];
  /** The operator's patterns; the sandbox defaults are added here. */
  exclude: readonly string[];
  dryRun: boolean;
  node: string;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Throws InputError/ExclusionError for bad input (before touching the runtime) and CriError
 * when the runtime cannot be reached; per-image failures are results, not exceptions.
 */
export async function nodeRemove(opts: NodeRemoveOptions): Promise<Report> {
  const exclusions: ExclusionMatcher[] = compileAll([...DEFAULT_SANDBOX_EXCLUSIONS, ...opts.exclude]);
  const cri = await connectCri({ endpoint: opts.endpoint, timeoutMs: opts.timeoutMs });
  try {
    // Best effort: not every runtime publishes its config, and a failure here must not stop us.
    const sandbox = await cri
      .status(true)
      .then((s) => sandboxImageFromStatusInfo(s.info))
      .catch(() => undefined);
    if (sandbox) {
      const m = compileExclusion(sandbox);
      if (m.ok) exclusions.push(m.matcher);
    }
    const [images, containers] = await Promise.all([cri.listImages(), cri.listContainers()]);
    const decisions = decide({
      images,
      containers: containers.map(containerView),
      targets: opts.targets,
      exclusions,
    });
    const runtime = {
      listContainers: async () => (await cri.listContainers()).map(containerView),
      removeImage: (ref: string) => cri.removeImage(ref),
    };
    const results = await execute(runtime, decisions, { dryRun: opts.dryRun, onProgress: opts.onProgress });
    return {
      node: opts.node,
      runtime: {
        name: cri.runtime.runtimeName,
        version: cri.runtime.runtimeVersion,
        apiVersion: cri.runtime.runtimeApiVersion,
      },
      results,
    };
  } finally {
    cri.close();
  }
}

/** 0 nothing failed; 1 a removal failed; 2 a target was invalid (bad input), which wins. */
export function exitCodeFor(report: Report): 0 | 1 | 2 {
  if (report.results.some((r) => r.outcome === 'invalid')) return 2;
  if (report.results.some((r) => r.outcome === 'failed')) return 1;
  return 0;
}
