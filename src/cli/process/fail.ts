// Errors scripts and people read at a glance: one line on stderr in kubectl's style
// (`error: <message>`), then the exit code. Errors thrown to oclif (this.error, parse errors)
// reach the same style through handle-error.ts.
import type { Command } from '@oclif/core';
import { asCrdMissing } from '../../core/kube/crds.js';
import { EXIT_USAGE } from './exit-codes.js';

export function failLine(cmd: Command, message: string, exit: number = EXIT_USAGE): never {
  process.stderr.write(`error: ${message}\n`);
  return cmd.exit(exit);
}

/** Ends the command with the missing-CRD line (exit 2) when `e` means a CRD is not installed. */
export function exitIfCrdMissing(cmd: Command, e: unknown): void {
  const missing = asCrdMissing(e);
  if (missing) failLine(cmd, missing.message);
}

/**
 * The Validate step's ending: every problem with the flags in one error (exit 2), so a command
 * with three bad flags says all three. One problem is one line, as before.
 */
export function failFlags(cmd: Command, problems: string[]): never {
  const text =
    problems.length === 1
      ? problems[0]!
      : `${problems.length} problems with the flags:\n  ${problems.join('\n  ')}`;
  return failLine(cmd, text, EXIT_USAGE);
}
