// The flags of `inv scan` (the inventory's scan, not scan mode's vulnerability scan), apart
// from the command so the command file is about options and flow.
import { Flags } from '@oclif/core';
import { kubeFlags, outputFlags, sortByFlag } from '../flags.js';
import { maxInputSizeFlag } from '../read-manifests.js';
import { sourceKindsFlag } from '../source-kinds-flag.js';
import { completes } from '../completion/sources.js';

export const inventoryScanFlags = {
  namespace: completes(
    'namespaces',
    Flags.string({
      char: 'n',
      multiple: true,
      // `-n a extra` must not make "extra" a namespace: one value per -n.
      multipleNonGreedy: true,
      description:
        'Namespace to rebuild (repeatable; default: the kubeconfig context\'s). With -f: namespace for objects that set none (default "default").',
    }),
  ),
  'all-namespaces': Flags.boolean({
    char: 'A',
    description: 'Rebuild every namespace.',
    exclusive: ['namespace'],
  }),
  selector: Flags.string({
    char: 'l',
    description:
      'Label selector (e.g. app=web,tier!=db): read only the matching workloads. Read-only: reports, writes nothing.',
    exclusive: ['filename'],
  }),
  filename: Flags.string({
    char: 'f',
    description:
      'Offline mode: a manifest file, a directory of them, - for stdin, or a pipe such as <(helm template .). No cluster is contacted.',
    exclusive: ['all-namespaces', 'dry-run'],
  }),
  'dry-run': Flags.boolean({ description: 'Compute and print the changes without writing anything.' }),
  ...sourceKindsFlag,
  ...maxInputSizeFlag,
  concurrency: Flags.integer({ description: 'Namespaces rebuilt at once.', default: 4, min: 1, max: 64 }),
  ...outputFlags(),
  ...sortByFlag('images of each namespace', '.image'),
  ...kubeFlags,
};
