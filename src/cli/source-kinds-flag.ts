// --source-kinds FILE: the administrator's declared source kinds (inventory/declared-kinds.ts),
// read with a size limit, validated, and (against a cluster) checked against discovery. A kind
// that is not served is reported once on stderr and skipped.
import fs from 'node:fs/promises';
import { Flags, type Command } from '@oclif/core';
import { failLine } from './process/fail.js';
import { EXIT_USAGE } from './process/exit-codes.js';
import {
  parseSourceKinds,
  SOURCE_KINDS_MAX_BYTES,
  SourceKindsError,
} from '../core/inventory/declared-kinds.js';
import type { DiscoveredKinds } from '../core/inventory/discover-kinds.js';
import type { SourceKindSpec } from '../core/inventory/source-kinds.js';
import { completes } from './completion/sources.js';

export const sourceKindsFlag = {
  'source-kinds': completes(
    'text',
    Flags.string({
      description:
        'A SourceKinds file declaring more source kinds (Argo Rollouts, CloneSets...): see docs/inventory.md, "Declared source kinds".',
      helpValue: 'FILE',
    }),
  ),
};

/** Reads a SourceKinds file; a bad file is a usage error (exit 2) naming the problem. */
export async function readSourceKindsFile(cmd: Command, file: string | undefined): Promise<SourceKindSpec[]> {
  if (file === undefined) return [];
  let text: string;
  try {
    const h = await fs.open(file, 'r');
    try {
      const buf = Buffer.alloc(SOURCE_KINDS_MAX_BYTES + 1);
      const { bytesRead } = await h.read(buf, 0, buf.length, 0);
      text = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await h.close();
    }
    return parseSourceKinds(text, file);
  } catch (e) {
    const m = e instanceof SourceKindsError ? e.message : `--source-kinds ${file}: ${(e as Error).message}`;
    failLine(cmd, m, EXIT_USAGE);
  }
}

/** One stderr line per declared kind that is not in force. */
export function reportSkippedKinds(d: DiscoveredKinds, write = (s: string) => process.stderr.write(s)): void {
  for (const s of d.skipped) write(`warning: source kind skipped: ${s.reason}\n`);
}
