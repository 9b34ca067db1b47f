// `inv node-remove` minus flag parsing and rendering: connect to the runtime, read its images,
// containers, sandboxes and sandbox image, decide, then remove (or not, with dryRun).
import { connectCri } from '../cri/client.js';
import { compileExclusion, type ExclusionMatcher } from '../refs/exclusion.js';
import { decide } from './remove/decide.js';
import { untaggedExclusionWarnings } from './remove/exclusion-warnings.js';
import { execute } from './remove/execute.js';
import { runtimeAnswerWarnings } from './remove/runtime-answers.js';
import { compileAll, DEFAULT_SANDBOX_EXCLUSIONS } from './remove/exclusions.js';
import { SandboxReader, type SandboxRead } from './remove/sandbox-reader.js';
import { assessSandbox, sandboxImageFromStatusInfo, type SandboxFacts } from './remove/sandbox.js';
import type { CriContainer } from '../cri/messages.js';
import type { ContainerView } from './remove/in-use.js';
import type { Report } from './types.js';
import type { ProtectedIndex } from '../contract/protected-set.js';
import { traitsOf } from '../contract/worker-summary.js';
import {
  annotate,
  finishScan,
  scanAndNarrow,
  type ScanOptions,
  type ScanOutcome,
} from './vuln-scan/exchange.js';
import { applyTriggerStep, type TriggerRunOptions } from './trigger/trigger-run.js';
import { applyScope } from './remove/scoped.js';
import { applyKeepNewest, createdFromInfo, needCreated } from './remove/keep-newest.js';
import { forEachConcurrent } from '../concurrency.js';
import type { Scope } from '../refs/scope.js';
import type { CriClient } from '../cri/client.js';
import type { ImageView } from './remove/in-use.js';
import { freedSince, usageSince, type FreedWait } from './freed-space.js';

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
  /** The operator's patterns (the sandbox image is recognised apart from them). */
  exclude: readonly string[];
  dryRun: boolean;
  node: string;
  /** The inventory's protected refs, applied to a `*` prune. */
  protection?: ProtectedIndex;
  onProgress?: (done: number, total: number) => void;
  /** Scan mode (scan.ts): only the candidates the scanner names are removed. */
  scan?: ScanOptions;
  /** Thresholds and minimum unused age (trigger-run.ts); the record is kept only with it. */
  trigger?: TriggerRunOptions;
  /** A scoped `*` prune (--only, --except): what is out of scope is kept (scoped.ts). */
  scope?: Scope;
  /** Keep the N newest images of each repository (keep-newest.ts). */
  keepNewest?: number;
  /** How long to wait for the runtime's figure after the removals (freed-space.ts). */
  freedWait?: FreedWait;
}

/**
 * Throws InputError/ExclusionError for bad input (before touching the runtime) and CriError
 * when the runtime cannot be reached; per-image failures are results, not exceptions.
 */
export async function nodeRemove(opts: NodeRemoveOptions): Promise<Report> {
  const operator: ExclusionMatcher[] = compileAll(opts.exclude);
  // The sandbox image is kept for what it is (outcome sandbox-image), not as an exclusion.
  const sandboxImages: ExclusionMatcher[] = compileAll(DEFAULT_SANDBOX_EXCLUSIONS);
  const cri = await connectCri({ endpoint: opts.endpoint, timeoutMs: opts.timeoutMs });
  try {
    // Status(verbose) is optional in CRI: its failure is not fatal, but it is remembered, and
    // decides (with the sandboxes and pins) whether a prune may run at all (sandbox.ts).
    const status: SandboxFacts['status'] = await cri.status(true).then(
      (s) => {
        const image = sandboxImageFromStatusInfo(s.info);
        if (!image) return { unknown: 'names no sandbox image' };
        const m = compileExclusion(image);
        if (!m.ok)
          return { unknown: `names a sandbox image inv cannot read (${JSON.stringify(image)}: ${m.reason})` };
        sandboxImages.push(m.matcher);
        return { image };
      },
      (e: Error) => ({ unknown: `failed: ${e.message}` }),
    );
    const warnings: string[] = [];
    const reader = new SandboxReader(cri);
    const listedAt = Date.now();
    const [images, containers, sandboxRead] = await Promise.all([
      cri.listImages(),
      cri.listContainers(),
      reader.read(),
    ]);
    const facts: SandboxFacts = { status, ...sandboxRead };
    const guard = assessSandbox({ facts, images, operatorExclusions: operator });
    warnings.push(...sandboxWarnings(sandboxRead, guard.determined ? undefined : guard.reason));
    warnings.push(...untaggedExclusionWarnings(operator, images));
    const views = containers.map(containerView);
    warnings.push(...runtimeAnswerWarnings(images, views));
    let decisions = decide({
      images,
      containers: views,
      sandboxes: sandboxRead.sandboxes,
      targets: opts.targets,
      exclusions: operator,
      sandboxImages,
      sandbox: guard,
      protection: opts.protection,
    });
    // Scope, then keep-newest, then the trigger: each only turns removals into keeps.
    if (opts.scope) decisions = applyScope(decisions, opts.scope);
    if (opts.keepNewest !== undefined)
      decisions = applyKeepNewest(
        decisions,
        images,
        opts.keepNewest,
        await creationTimes(cri, images, opts.keepNewest),
      );
    const step = opts.trigger
      ? await applyTriggerStep(opts.trigger, {
          decisions,
          images,
          containers: views,
          sandboxes: sandboxRead.sandboxes,
          imageFsInfo: () => cri.imageFsInfo(),
        })
      : undefined;
    if (step) warnings.push(...step.warnings);
    const runtime = {
      listContainers: async () => (await cri.listContainers()).map(containerView),
      listSandboxes: async () => (await reader.read()).sandboxes,
      removeImage: (ref: string) => cri.removeImage(ref),
    };
    // The trigger keeps first (thresholds, minimum age); a scan then narrows what is left.
    if (step) decisions = step.decisions;
    let scanned: ScanOutcome | undefined;
    if (opts.scan) {
      scanned = await scanAndNarrow(decisions, opts.scan);
      decisions = scanned.decisions;
      warnings.push(...scanned.warnings);
    }
    // The runtime's own figure of what the removals freed (freed-space.ts), beside the estimate.
    const imageFsInfo = () => cri.imageFsInfo();
    const before =
      opts.dryRun || !decisions.some((d) => d.action === 'remove')
        ? undefined
        : await usageSince(
            imageFsInfo,
            Math.max(0, ...images.map((i) => i.size ?? 0)),
            listedAt,
            opts.freedWait,
          );
    let results = await execute(runtime, decisions, { dryRun: opts.dryRun, onProgress: opts.onProgress });
    const freed =
      before && results.some((r) => r.outcome === 'removed')
        ? await freedSince(imageFsInfo, before, Date.now(), opts.freedWait)
        : undefined;
    const after = step?.finish(results);
    if (after) warnings.push(...after.warnings);
    if (opts.scan && scanned) {
      results = annotate(results, scanned.vulns, scanned.report);
      const w = await finishScan(opts.scan, !!scanned.report.failed);
      if (w) warnings.push(w);
    }
    return {
      node: opts.node,
      runtime: {
        name: cri.runtime.runtimeName,
        version: cri.runtime.runtimeVersion,
        apiVersion: cri.runtime.runtimeApiVersion,
      },
      results,
      warnings,
      ...(scanned ? { scan: scanned.report } : {}),
      ...(after?.imageFs ? { imageFs: after.imageFs } : {}),
      ...(freed !== undefined ? { freed } : {}),
    };
  } catch (e) {
    // Whatever went wrong, the scanner is told to finish, so its container ends.
    if (opts.scan) await finishScan(opts.scan, true);
    throw e;
  } finally {
    cri.close();
  }
}

/**
 * The creation times keep-newest needs (ImageStatus verbose, a few calls at once); an image the
 * runtime answers nothing usable for is left out, and its repository is ranked by tag.
 */
async function creationTimes(
  cri: Pick<CriClient, 'imageStatusInfo'>,
  images: readonly ImageView[],
  n: number,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await forEachConcurrent(needCreated(images, n), 4, async (id) => {
    const ms = await cri.imageStatusInfo(id).then(createdFromInfo, () => undefined);
    if (ms !== undefined) out.set(id, ms);
  });
  return out;
}

function sandboxWarnings(read: SandboxRead, undetermined: string | undefined): string[] {
  const out: string[] = [];
  if (undetermined !== undefined) out.push(`${undetermined} A * prune and pause-like targets are refused.`);
  if (read.unreadable.length > 0) {
    const first = read.unreadable[0]!;
    const who = `${first.id.slice(0, 13)}${first.pod ? ` (${first.pod})` : ''}`;
    const more = read.unreadable.length > 1 ? ` and ${read.unreadable.length - 1} more` : '';
    out.push(
      `the image backing pod sandbox ${who}${more} could not be read (${first.reason}); ` +
        'such images are protected only by the sandbox image, pins and exclusions',
    );
  }
  return out;
}

/** 0 nothing failed; 1 a removal failed; 2 a target was invalid (bad input), which wins. */
export function exitCodeFor(report: Report): 0 | 1 | 2 {
  // Each outcome says whether it fails the run (worker-summary.ts): an image the scanner could
  // not judge was kept, but the run did not do what was asked.
  if (report.results.some((r) => traitsOf(r.outcome).fails === 'input')) return 2;
  if (report.results.some((r) => traitsOf(r.outcome).fails === 'run')) return 1;
  return 0;
}
