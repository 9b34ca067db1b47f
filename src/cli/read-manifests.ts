// What `inv scan -f` and `inv images -f` share: the size-limit flag, reading the manifests,
// warning about every document that was skipped, and the exit codes: 2 when an input cannot be
// read or parsed, 1 when it was read but held no Kubernetes object at all (an empty stdin, a
// file of something else), which would otherwise pass for "no images".
import { printErr } from './output/wrap.js';
import type { SourceKinds } from '../core/inventory/source-kinds.js';
import { Flags, type Command } from '@oclif/core';
import { EXIT_PARTIAL_FAILURE, EXIT_USAGE } from './process/exit-codes.js';
import { failLine } from './process/fail.js';
import { colors } from './output/style.js';
import {
  DEFAULT_MAX_INPUT_BYTES,
  describeSkipped,
  ManifestError,
  readManifests,
  type ManifestRead,
} from '../core/inventory/manifests/collect.js';
import { parseSize } from '../core/size.js';

export const maxInputSizeFlag = {
  'max-input-size': Flags.string({
    description: `With -f: the largest file or stream read (units Ki, Mi, Gi, KB, MB, GB).`,
    default: `${DEFAULT_MAX_INPUT_BYTES / 1024 / 1024}Mi`,
  }),
};

export async function readManifestsForCommand(
  cmd: Command,
  filename: string,
  defaultNamespace: string,
  maxBytes: number,
  kinds?: SourceKinds,
): Promise<ManifestRead> {
  let read: ManifestRead;
  try {
    read = await readManifests(filename, { defaultNamespace, maxBytes, kinds });
  } catch (e) {
    if (e instanceof ManifestError) failLine(cmd, e.message, EXIT_USAGE);
    throw e;
  }
  const c = colors();
  for (const s of read.skipped) printErr(c.yellow(`warning: ${describeSkipped(s)}`) + '\n');
  if (read.objects === 0) {
    const what =
      read.inputs.length === 0 ? 'no manifest files (*.yaml, *.yml, *.json)' : 'no Kubernetes objects';
    failLine(cmd, `${filename}: ${what} could be read`, EXIT_PARTIAL_FAILURE);
  }
  return read;
}

/** --max-input-size in bytes, or the problem with it (named after the flag). */
export function maxInputBytes(value: string): { bytes: number } | { problem: string } {
  const size = parseSize(value);
  return size.ok
    ? { bytes: size.bytes }
    : { problem: `--max-input-size ${JSON.stringify(value)}: ${size.reason}` };
}
