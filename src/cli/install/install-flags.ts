// The flags of `inv install` (its help lists them in this order), apart from the command so the
// command file is about options and flow (./install-options.ts completes and validates them).
import { Flags } from '@oclif/core';
import { completes } from '../completion/sources.js';
import { kubeFlags } from '../flags.js';

export const installFlags = {
  daemon: Flags.boolean({ description: 'Also install the daemon (namespaces, RBAC, Deployment).' }),
  image: Flags.string({
    description:
      'Image of the daemon and of the erase workers, as `npm run image` pushed it (REGISTRY/inv:TAG). Required for a first --daemon install (nobody publishes one); later installs keep the running daemon’s. The workers’ image goes into inv-erase-config, and moves with the daemon’s unless you set it apart there.',
    helpValue: 'REF',
    dependsOn: ['daemon'],
  }),
  'image-pull-secret': Flags.string({
    description:
      'A kubernetes.io/dockerconfigjson Secret for pulling --image, by name, in the daemon’s namespace and in the workers’ (create it in both). Repeatable.',
    helpValue: 'NAME',
    multiple: true,
    dependsOn: ['daemon'],
  }),
  'dry-run': Flags.string({
    description:
      'client (also a bare --dry-run): print the objects as YAML, contact no cluster; server: say what install would do to each object, change nothing.',
    options: ['client', 'server'],
  }),
  'source-kinds': completes(
    'text',
    Flags.string({
      description:
        "A SourceKinds file: the daemon's declared source kinds (its ConfigMap), with list and watch granted on them.",
      helpValue: 'FILE',
      dependsOn: ['daemon'],
    }),
  ),
  'force-conflicts': Flags.boolean({
    description:
      'Take over objects of the bundle that exist and were not written by inv (otherwise install refuses and changes nothing).',
  }),
  timeout: Flags.string({
    description: 'How long to wait for the CRDs to be Established.',
    default: '60s',
  }),
  ...kubeFlags,
};
