// The flags of `inv check` (its help lists them in this order), apart from the command so the
// command file is about options and flow.
import { Flags } from '@oclif/core';
import { kubeFlags, outputFlag } from '../flags.js';
import { sourceKindsFlag } from '../source-kinds-flag.js';
import { completes } from '../completion/sources.js';

export const checkFlags = {
  nodes: Flags.boolean({
    description: 'Also run a dry-run worker on every node (needs the daemon; takes a while).',
  }),
  'daemon-namespace': completes(
    'namespaces',
    Flags.string({
      description: 'Namespace of the daemon and its Lease.',
      default: 'image-inventory-system',
    }),
  ),
  'leader-elect-id': completes(
    'text',
    Flags.string({
      description: 'Name of the daemon’s Lease.',
      default: 'image-inventory-controller',
    }),
  ),
  'erase-namespace': completes(
    'namespaces',
    Flags.string({
      description: 'Namespace of the erase workers.',
      default: 'image-inventory-workers',
    }),
  ),
  ...sourceKindsFlag,
  'erase-config-namespace': completes(
    'namespaces',
    Flags.string({
      description: 'Namespace of inv-erase-config and the exclusion lists.',
      default: 'image-inventory-system',
    }),
  ),
  'nodes-timeout': Flags.string({
    description: 'With --nodes: how long to wait for the workers.',
    default: '5m',
  }),
  ...outputFlag,
  ...kubeFlags,
};
