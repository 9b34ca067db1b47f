// The flags of `inv erase status` (its help lists them in this order), apart from the command so
// the command file is about options and flow (./status-options.ts completes and validates them).
import { Flags } from '@oclif/core';
import { kubeFlags } from '../flags.js';
import { eraseOutputFlags, standaloneFlag, workersNamespaceFlag } from './common.js';
import { jobNameFlag } from './job-select.js';

export const statusFlags = {
  ...jobNameFlag,
  follow: Flags.boolean({ char: 'f', description: 'Wait for the job to finish, showing progress.' }),
  timeout: Flags.string({ description: 'With --follow: the whole wait (e.g. 30m).', default: '1h' }),
  ...standaloneFlag,
  ...workersNamespaceFlag,
  ...eraseOutputFlags,
  ...kubeFlags,
};
