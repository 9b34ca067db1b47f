// The threshold and minimum-age step of `inv node-remove` (between decide and execute): read the
// node's record of unused images, measure the image file system, keep what the trigger keeps
// (trigger.ts), and after the removals write the record back and say what usage became.
import { InUseIndex, type ContainerView, type ImageView, type SandboxView } from '../remove/in-use.js';
import { measureImageFs, withListedSizes, type ImageFsUsage, type MeasureOptions } from './image-fs.js';
import { applyTrigger, type TriggerOptions } from './trigger.js';
import { readStateFile, writeStateFile } from './unused-state-file.js';
import { parseState, updateState, withoutImages } from './unused-state.js';
import { bytesFreed, type Decision, type ImageFsReport, type Result } from '../types.js';
import type { CriFilesystemUsage } from '../../cri/messages.js';

export interface TriggerRunOptions extends TriggerOptions {
  /** The folder of the node's record (a hostPath in a worker Pod); none: no record, nothing aged. */
  stateDir?: string;
  /** Where statfs looks (image-fs.ts). */
  measure?: MeasureOptions;
  /** The clock (tests). */
  now?: () => number;
}

export interface TriggerStepInput {
  decisions: readonly Decision[];
  images: readonly ImageView[];
  containers: readonly ContainerView[];
  sandboxes: readonly SandboxView[];
  imageFsInfo: () => Promise<CriFilesystemUsage[]>;
}

export interface TriggerStep {
  decisions: Decision[];
  warnings: string[];
  /** After execute: writes the record (without what went) and reports usage before and after. */
  finish(results: readonly Result[]): { imageFs?: ImageFsReport; warnings: string[] };
}

export async function applyTriggerStep(
  opts: TriggerRunOptions,
  input: TriggerStepInput,
): Promise<TriggerStep> {
  const now = opts.now?.() ?? Date.now();
  const warnings: string[] = [];
  const read = opts.stateDir !== undefined ? readStateFile(opts.stateDir, now) : parseState(undefined, now);
  if (read.warning) warnings.push(read.warning);
  const inUse = new InUseIndex(input.containers, input.sandboxes);
  const state = updateState(
    read.state,
    input.images.map((i) => ({ imageId: i.id, inUse: inUse.usedBy(i) !== undefined })),
    now,
  );
  let usage: ImageFsUsage | Error | undefined;
  if (opts.imageFs) {
    try {
      const measured = withListedSizes(await measureImageFs(input.imageFsInfo, opts.measure), input.images);
      usage = measured.usage;
      if (measured.warning) warnings.push(measured.warning);
    } catch (e) {
      usage = e instanceof Error ? e : new Error(String(e));
      warnings.push(`image file system usage unknown, nothing removed by threshold: ${usage.message}`);
    }
  }
  const decisions = applyTrigger({ decisions: input.decisions, state, now, options: opts, usage });
  return {
    decisions,
    warnings,
    finish(results) {
      const out: { imageFs?: ImageFsReport; warnings: string[] } = { warnings: [] };
      if (opts.stateDir !== undefined) {
        const removed = results.filter((r) => r.outcome === 'removed').map((r) => r.imageId);
        try {
          writeStateFile(opts.stateDir, withoutImages(state, removed));
        } catch (e) {
          out.warnings.push(`the record of unused images could not be written: ${(e as Error).message}`);
        }
      }
      if (opts.imageFs && usage && !(usage instanceof Error)) {
        out.imageFs = {
          ...usage,
          highPercent: opts.imageFs.highPercent,
          lowPercent: opts.imageFs.lowPercent,
          usedAfter: Math.max(0, usage.used - bytesFreed(results)),
        };
      }
      return out;
    },
  };
}
