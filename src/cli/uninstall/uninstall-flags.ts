// The flags of `inv uninstall` (its help lists them in this order), apart from the command so the
// command file is about what is deleted and kept.
import { Flags } from '@oclif/core';
import { kubeFlags } from '../flags.js';

export const uninstallFlags = {
  crds: Flags.boolean({
    description: 'Also delete the CRDs, and with them every Image, ImageList and ImageJob.',
  }),
  yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.', dependsOn: ['crds'] }),
  'dry-run': Flags.boolean({
    description: 'Say what would be deleted and what kept (and why); delete nothing.',
  }),
  ...kubeFlags,
};
