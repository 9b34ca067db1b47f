// The flags of `inv erase history` (its help lists them in this order), apart from the command so
// the command file is about options and flow (./history-options.ts completes and validates them).
import { Flags } from '@oclif/core';
import { kubeFlags, outputFlags } from '../flags.js';
import { completes } from '../completion/sources.js';

export const historyFlags = {
  name: completes(
    'imagelists',
    Flags.string({ description: 'Only the jobs of this ImageList (they may be deleted since).' }),
  ),
  node: completes(
    'text',
    Flags.string({ description: 'Only this node (repeat the flag for several).', multiple: true }),
  ),
  image: completes(
    'text',
    Flags.string({
      description:
        'Only images one of whose names, or whose ID, contains this text (e.g. nginx:1.25, sha256:3f5).',
    }),
  ),
  outcome: Flags.string({
    description:
      'Only these outcomes, comma-separated (removed, would-remove, in-use, protected, failed, ...).',
  }),
  since: Flags.string({
    description: 'Only nodes that finished within this long (24h, 7d) or at or after this time (RFC 3339).',
  }),
  until: Flags.string({
    description: 'Only nodes that finished before this time (RFC 3339) or this long ago.',
  }),
  ...outputFlags(['table', 'wide', 'json', 'yaml']),
  ...kubeFlags,
};
