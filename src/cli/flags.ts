// Flags shared by every command that talks to a cluster or prints data.
import { Flags } from '@oclif/core';
import { parseDurationMs } from '../core/duration.js';
import type { ConnectionOverrides } from '../core/kube/connection.js';
import type { KubeRestOptions } from '../core/kube/rest.js';
import { EXIT_USAGE } from './process/exit-codes.js';
import { terminalWidth, type TableOptions } from './output/table.js';
import type { FlagValues } from './flag-values.js';
import { completes } from './completion/sources.js';

export const kubeFlags = {
  kubeconfig: Flags.string({
    description: 'Path to a kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster config).',
    helpGroup: 'CLUSTER',
  }),
  context: completes(
    'contexts',
    Flags.string({ description: 'Kubeconfig context to use.', helpGroup: 'CLUSTER' }),
  ),
  'request-timeout': Flags.string({
    description:
      'Deadline of each API request (e.g. 10s, 1m): connecting, TLS and the whole response. A server slower than this is an error.',
    default: '30s',
    helpGroup: 'CLUSTER',
  }),
  // kubectl's connection flags (its ConfigFlags), in kubectl's words. They change how the API
  // server is reached and who the requests are from, nothing else: what runs on nodes is set by
  // other flags.
  server: Flags.string({
    char: 's',
    description: 'The address and port of the Kubernetes API server',
    helpGroup: 'CLUSTER',
  }),
  'certificate-authority': Flags.string({
    description: 'Path to a cert file for the certificate authority',
    helpGroup: 'CLUSTER',
  }),
  'insecure-skip-tls-verify': Flags.boolean({
    description:
      "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure",
    helpGroup: 'CLUSTER',
  }),
  'tls-server-name': completes(
    'text',
    Flags.string({
      description:
        'Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used',
      helpGroup: 'CLUSTER',
    }),
  ),
  token: Flags.string({
    description: 'Bearer token for authentication to the API server',
    helpGroup: 'CLUSTER',
  }),
  user: Flags.string({ description: 'The name of the kubeconfig user to use', helpGroup: 'CLUSTER' }),
  cluster: Flags.string({ description: 'The name of the kubeconfig cluster to use', helpGroup: 'CLUSTER' }),
  as: Flags.string({
    description:
      'Username to impersonate for the operation. User could be a regular user or a service account in a namespace.',
    helpGroup: 'CLUSTER',
  }),
  'as-group': Flags.string({
    description:
      'Group to impersonate for the operation, this flag can be repeated to specify multiple groups.',
    multiple: true,
    // `--as-group g ns` must not make "ns" a group: one value per --as-group.
    multipleNonGreedy: true,
    helpGroup: 'CLUSTER',
  }),
  'as-uid': Flags.string({ description: 'UID to impersonate for the operation.', helpGroup: 'CLUSTER' }),
};

/**
 * The shared cluster flags as connect() (cli/connect.ts) takes them: any may be absent (a command's
 * options keep only those given; restOptions() has the timeout's default).
 */
export type KubeFlagValues = Partial<FlagValues<typeof kubeFlags>>;

/** A command's flags as its options read them: its own as parsed, the cluster flags as connect() takes them. */
export type CommandFlagValues<F> = FlagValues<Omit<F, keyof typeof kubeFlags>> & KubeFlagValues;

/** The shared cluster flags out of a command's parsed flags, for its options' `cluster`. */
export function kubeFlagValues(flags: KubeFlagValues): KubeFlagValues {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(kubeFlags)) {
    const value = (flags as Record<string, unknown>)[name];
    if (value !== undefined) out[name] = value;
  }
  return out as KubeFlagValues;
}

/** The connection flags as clientcmd-style overrides (core/kube/connection.ts). */
export function connectionOverrides(flags: KubeFlagValues): ConnectionOverrides {
  return {
    server: flags.server,
    certificateAuthority: flags['certificate-authority'],
    insecureSkipTlsVerify: flags['insecure-skip-tls-verify'] || undefined,
    tlsServerName: flags['tls-server-name'],
    token: flags.token,
    user: flags.user,
    cluster: flags.cluster,
    as: flags.as,
    asGroups: flags['as-group'],
    asUid: flags['as-uid'],
  };
}

/** KubeRest options from the shared flags; throws a message naming the bad value. */
export function restOptions(flags: { 'request-timeout'?: string }): KubeRestOptions {
  const text = flags['request-timeout'] ?? '30s';
  const ms = parseDurationMs(text, '--request-timeout');
  if (!(ms > 0)) throw new Error(`--request-timeout: must be longer than 0s, got ${JSON.stringify(text)}`);
  return { timeoutMs: ms };
}

/** Every output format a command may offer; each command lists the ones it supports. */
export type OutputFormat = 'table' | 'wide' | 'name' | 'json' | 'yaml';
/** What `-o` holds after parsing: a listed format, or a template (src/cli/output/print-data.ts). */
export type TemplateOutput = `jsonpath=${string}` | `custom-columns=${string}`;
export type Output = OutputFormat | TemplateOutput;

const FORMAT_HELP: Record<OutputFormat, string> = {
  table: 'table (the default, fitted to the terminal)',
  wide: 'wide (every column, nothing truncated)',
  name: 'name (one resource or ref per line)',
  json: 'json',
  yaml: 'yaml',
};

/**
 * A flag value's problem is a usage error (exit 2), as oclif's own option checks are, and one
 * line, as kubectl prints it: oclif rewrites a parse error's message into three lines
 * ("Parsing --output", the reason, "See more help"), so this one keeps its own.
 */
async function usage<T>(check: () => Promise<T>, prefix = ''): Promise<T> {
  try {
    return await check();
  } catch (e) {
    const text = prefix + (e as Error).message;
    const err = Object.assign(new Error(text), { oclif: { exit: EXIT_USAGE } });
    Object.defineProperty(err, 'message', { get: () => text, set: () => undefined });
    throw err;
  }
}

const TEMPLATE_HELP =
  'jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC, custom-columns-file=FILE (as kubectl)';

/**
 * `-o/--output` with the formats a command lists, and kubectl's template formats, which every
 * data-printing command takes (src/cli/output/print-data.ts draws them). The value is checked when it is
 * parsed: a bad template fails before any API call, and the -file forms arrive read, as
 * `jsonpath=...` and `custom-columns=...`.
 */
function outputOption(formats: readonly string[], help: string) {
  return completes(
    'output',
    Flags.string({
      char: 'o',
      description: `Output format: ${help}, ${TEMPLATE_HELP}.`,
      default: 'table',
      helpValue: `${formats.join('|')}|jsonpath=...|custom-columns=...`,
      // Loaded only for a template: `inv node-remove -o json` in every worker Pod stays lean.
      parse: async (value) =>
        formats.includes(value)
          ? value
          : usage(async () => (await import('./output/print-data.js')).parseOutputValue(value, formats)),
    }),
  );
}

/**
 * `-o/--output` with the formats a command supports, and `--no-headers` for its tables, as
 * kubectl spells them. JSON and YAML are the documented, versioned shapes of docs/output.md.
 */
export function outputFlags(formats: readonly OutputFormat[] = ['table', 'wide', 'name', 'json', 'yaml']) {
  return {
    output: outputOption(formats, formats.map((f) => FORMAT_HELP[f]).join(', ')),
    'no-headers': Flags.boolean({
      description:
        'Table and custom-columns output without the header row and the totals line (for scripts).',
    }),
  };
}

/** `-o table|json|yaml` (and the templates), for commands whose output is no table (check, version). */
export const outputFlag = {
  output: outputOption(['table', 'json', 'yaml'], 'table, json, yaml'),
};

/** `--sort-by` on the list commands: kubectl's JSONPath over each listed item. */
export function sortByFlag(items: string, example: string) {
  return {
    'sort-by': Flags.string({
      description: `Sort the ${items} by this JSONPath expression over each of them (e.g. '${example}'), as kubectl does; in every output format.`,
      parse: async (value) =>
        usage(async () => {
          (await import('./output/print-data.js')).parseSortBy(value);
          return value;
        }, '--sort-by: '),
    }),
  };
}

/** renderTable options from the shared flags and the terminal stdout is (or is not). */
export function tableOptions(flags: { output?: string; 'no-headers'?: boolean }): TableOptions {
  return { wide: flags.output === 'wide', noHeaders: !!flags['no-headers'], width: terminalWidth() };
}

/**
 * `flags` with each boolean flag's default said as oclif says it for the others (`[default: true]`):
 * oclif prints nothing for a boolean, so `--[no-]protect-inventory` read as if it were off.
 */
export function showBooleanDefaults<T extends Record<string, unknown>>(flags: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(flags)) {
    const flag = f as { type?: string; default?: unknown; description?: string };
    out[name] =
      flag.type === 'boolean' &&
      typeof flag.default === 'boolean' &&
      !flag.description?.startsWith('[default:')
        ? { ...flag, description: `[default: ${flag.default}] ${flag.description ?? ''}`.trim() }
        : f;
  }
  return out as T;
}
