// Errors scripts and people read at a glance: one line on stderr, then the exit code. oclif's
// this.error() wraps long messages to the terminal width (80 columns without a terminal), which
// splits "no cluster configured: tried ..." over several lines.
import type { Command } from '@oclif/core';
import { asCrdMissing } from '../core/kube/crds.js';
import { EXIT_USAGE } from './exit-codes.js';

export function failLine(cmd: Command, message: string, exit: number = EXIT_USAGE): never {
  process.stderr.write(`Error: ${message}\n`);
  return cmd.exit(exit);
}

/** Ends the command with the missing-CRD line (exit 2) when `e` means a CRD is not installed. */
export function exitIfCrdMissing(cmd: Command, e: unknown): void {
  const missing = asCrdMissing(e);
  if (missing) failLine(cmd, missing.message);
}
