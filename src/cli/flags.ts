// Flags shared by every command that talks to a cluster or prints data.
import { Flags } from '@oclif/core';

export const kubeFlags = {
  kubeconfig: Flags.string({
    description: 'Path to a kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster config).',
    helpGroup: 'CLUSTER',
  }),
  context: Flags.string({ description: 'Kubeconfig context to use.', helpGroup: 'CLUSTER' }),
};

export const outputFlag = {
  output: Flags.string({
    char: 'o',
    description: 'Output format.',
    options: ['table', 'json', 'yaml'],
    default: 'table',
  }),
};

export type OutputFormat = 'table' | 'json' | 'yaml';
