// The flags of `inv erase cancel` (its help lists them in this order), apart from the command so
// the command file is about options and flow.
import { Flags } from '@oclif/core';
import { kubeFlags, outputFlags } from '../flags.js';
import { standaloneFlag, workersNamespaceFlag } from './common.js';
import { jobNameFlag } from './job-select.js';

export const cancelFlags = {
  ...jobNameFlag,
  wait: Flags.boolean({
    description:
      'Wait until the job and its objects are gone (the default); --no-wait returns after the deletes.',
    allowNo: true,
    default: true,
  }),
  timeout: Flags.string({ description: 'How long to wait for the cleanup.', default: '1m' }),
  ...standaloneFlag,
  ...workersNamespaceFlag,
  output: outputFlags(['table', 'name', 'json', 'yaml']).output,
  ...kubeFlags,
};
