// The flags of `inv images` (its help lists them in this order), apart from the command so the
// command file is about options and flow (./images-options.ts completes and validates them).
import { Flags } from '@oclif/core';
import { BUILTIN } from '../../core/inventory/source-kinds.js';
import { kubeFlags, outputFlags, sortByFlag } from '../flags.js';
import { maxInputSizeFlag } from '../read-manifests.js';
import { completes } from '../completion/sources.js';

export const imagesFlags = {
  image: Flags.string({
    description: "Only images matching this glob (normalized refs, e.g. 'docker.io/bitnami/*').",
  }),
  registry: Flags.string({ description: 'Only images from this registry host (e.g. docker.io, quay.io).' }),
  kind: completes(
    'text',
    Flags.string({
      // Any kind: declared kinds and the owners of uncovered Pods (ReplicaSet, Workflow) count too.
      description: `Only users of this kind (repeatable): ${BUILTIN.all.map((k) => k.kind).join(', ')}, a declared kind, or an owner kind such as ReplicaSet.`,
      multiple: true,
      multipleNonGreedy: true,
    }),
  ),
  namespace: completes(
    'namespaces',
    Flags.string({
      char: 'n',
      multiple: true,
      multipleNonGreedy: true,
      description: 'Only this namespace (repeatable).',
    }),
  ),
  'all-namespaces': Flags.boolean({
    char: 'A',
    description: 'Every namespace (without -n or -A: the context’s namespace, as kubectl).',
    exclusive: ['namespace'],
  }),
  by: Flags.string({
    description: 'Group rows by.',
    options: ['image', 'namespace', 'registry'],
    default: 'image',
  }),
  offline: Flags.boolean({
    description: 'Report over manifest files (-f), with no cluster.',
    dependsOn: ['filename'],
  }),
  filename: Flags.string({
    char: 'f',
    description: 'With --offline: a manifest file, a directory of them, - for stdin, or a pipe.',
    dependsOn: ['offline'],
  }),
  ...maxInputSizeFlag,
  ...outputFlags(),
  ...sortByFlag('rows', '.userCount'),
  ...kubeFlags,
};
