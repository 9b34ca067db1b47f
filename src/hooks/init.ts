// `kubectl inv ...`: kubectl runs the kubectl-inv executable (bin/kubectl-inv), and the user
// typed `kubectl inv`, so usage lines, examples and hints say that, as kubectl's own plugins
// do. Told apart by the name the program was started as (a link on the PATH keeps it).
import path from 'node:path';
import type { Hook } from '@oclif/core';

/** The command line's name for this program when started as `argv1`; undefined: oclif's own. */
export function invokedAs(argv1: string | undefined): string | undefined {
  return path.basename(argv1 ?? '') === 'kubectl-inv' ? 'kubectl inv' : undefined;
}

const hook: Hook<'init'> = async function (opts) {
  const bin = invokedAs(process.argv[1]);
  // Config's bin is read-only in its type only: oclif reads it whenever it renders.
  if (bin) (opts.config as { bin: string }).bin = bin;
};

export default hook;
