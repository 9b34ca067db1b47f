// Flags shared by every command that talks to a cluster or prints data.
import { Flags } from '@oclif/core';
import { parseDurationMs } from '../core/duration.js';
import type { KubeRestOptions } from '../core/kube/rest.js';
import { terminalWidth, type TableOptions } from './table.js';

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
  const ms = parseDurationMs(text, '--request-timeout');
  if (!(ms > 0)) throw new Error(`--request-timeout: must be longer than 0s, got ${JSON.stringify(text)}`);
  return { timeoutMs: ms };
}

/** Every output format a command may offer; each command lists the ones it supports. */
export type OutputFormat = 'table' | 'wide' | 'name' | 'json' | 'yaml';

const FORMAT_HELP: Record<OutputFormat, string> = {
  table: 'table (the default, fitted to the terminal)',
  wide: 'wide (every column, nothing truncated)',
  name: 'name (one resource or ref per line)',
  json: 'json',
  yaml: 'yaml',
};

/**
 * `-o/--output` with the formats a command supports, and `--no-headers` for its tables, as
 * kubectl spells them. JSON and YAML are the documented, versioned shapes of docs/output.md.
 */
export function outputFlags(formats: readonly OutputFormat[] = ['table', 'wide', 'name', 'json', 'yaml']) {
  return {
    output: Flags.string({
      char: 'o',
      description: `Output format: ${formats.map((f) => FORMAT_HELP[f]).join(', ')}.`,
      options: [...formats],
      default: 'table',
    }),
    'no-headers': Flags.boolean({
      description: 'Table output without the header row and the totals line (for scripts).',
    }),
  };
}

/** `-o table|json|yaml` alone, for commands whose output is no table (check, version). */
export const outputFlag = {
  output: Flags.string({
    char: 'o',
    description: 'Output format.',
    options: ['table', 'json', 'yaml'],
    default: 'table',
  }),
};

/** renderTable options from the shared flags and the terminal stdout is (or is not). */
export function tableOptions(flags: { output?: string; 'no-headers'?: boolean }): TableOptions {
  return { wide: flags.output === 'wide', noHeaders: !!flags['no-headers'], width: terminalWidth() };
}
