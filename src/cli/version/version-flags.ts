// The flags of `inv version` (its help lists them in this order), apart from the command so the
// command file is about the report and its drawing.
import { Flags } from '@oclif/core';
import { kubeFlags, outputFlag } from '../flags.js';

export const versionFlags = {
  client: Flags.boolean({ description: 'Client version only; contact no cluster.' }),
  ...outputFlag,
  ...kubeFlags,
};
