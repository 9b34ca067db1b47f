// Flags shared by every command that talks to a cluster or prints data.
import { Flags } from '@oclif/core';
import { parseDuration } from '../core/erase/config.js';
import type { KubeRestOptions } from '../core/kube/rest.js';

export const kubeFlags = {
  kubeconfig: Flags.string({
    description: 'Path to a kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster config).',
    helpGroup: 'CLUSTER',
  }),
  context: Flags.string({ description: 'Kubeconfig context to use.', helpGroup: 'CLUSTER' }),
  'request-timeout': Flags.string({
    description:
      'Deadline of each API request (e.g. 10s, 1m): connecting, TLS and the whole response. A server slower than this is an error.',
    default: '30s',
    helpGroup: 'CLUSTER',
  }),
};

/** KubeRest options from the shared flags; throws a message naming the bad value. */
export function restOptions(flags: { 'request-timeout'?: string }): KubeRestOptions {
  const text = flags['request-timeout'] ?? '30s';
  const seconds = parseDuration(text, '--request-timeout');
  if (!(seconds > 0))
    throw new Error(`--request-timeout: must be longer than 0s, got ${JSON.stringify(text)}`);
  return { timeoutMs: Math.round(seconds * 1000) };
}

export const outputFlag = {
  output: Flags.string({
    char: 'o',
    description: 'Output format.',
    options: ['table', 'json', 'yaml'],
    default: 'table',
  }),
};

export type OutputFormat = 'table' | 'json' | 'yaml';
