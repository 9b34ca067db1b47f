// `inv scan` in kubectl's Options shape: the flags as parsed are completed into ScanOptions and
// validated together, so every bad flag is named in one error (the command stopped at the first
// before); the command then only runs what the options say. PURE: flags in, options and the
// list of problems out. The kubeconfig's namespace is filled in later, by the command, once it
// has a cluster: an offline scan needs none.
import { validateNamespaceName } from '../../core/kube/names.js';
import { parseSelector } from '../../core/erase/spec/selector.js';
import { kubeFlagValues, type CommandFlagValues, type KubeFlagValues, type Output } from '../flags.js';
import type { inventoryScanFlags } from './scan-flags.js';
import { sortByOption } from '../flag-problems.js';
import { maxInputBytes } from '../read-manifests.js';

/** The flags `inv scan` reads, as oclif parses them (./scan-flags.ts). */
export type ScanFlags = CommandFlagValues<typeof inventoryScanFlags>;

export interface ScanOptions {
  /** -n as given (empty: the context's, or every namespace with allNamespaces). */
  namespaces: string[];
  allNamespaces: boolean;
  /** A read-only scan of the workloads matching this selector. */
  selector?: string;
  /** Offline: the manifests to read, and at most this many bytes of each. */
  filename?: string;
  maxInputBytes: number;
  dryRun: boolean;
  sourceKindsFile?: string;
  concurrency: number;
  output: Output;
  noHeaders: boolean;
  sortBy?: string;
  /** How to reach the cluster (cli/connect.ts). */
  cluster: KubeFlagValues;
}

/** The options, and every problem with the flags (each naming its flag). */
export function completeScanOptions(flags: ScanFlags): { options: ScanOptions; problems: string[] } {
  const problems: string[] = [];
  const namespaces = flags.namespace ?? [];
  for (const ns of namespaces) {
    const problem = validateNamespaceName(ns);
    if (problem) problems.push(`invalid namespace "${ns}": ${problem}`);
  }
  if (flags.selector !== undefined) {
    try {
      if (!flags.selector.trim()) throw new Error('must not be empty');
      parseSelector(flags.selector);
    } catch (e) {
      problems.push(`--selector ${JSON.stringify(flags.selector)}: ${(e as Error).message}`);
    }
  }
  sortByOption(problems, flags['sort-by']);
  let bytes = 0;
  if (flags.filename !== undefined) {
    if (namespaces.length > 1)
      problems.push('with -f, pass at most one --namespace (the default for objects without one)');
    const size = maxInputBytes(flags['max-input-size']);
    if ('problem' in size) problems.push(size.problem);
    else bytes = size.bytes;
  }
  return {
    options: {
      namespaces,
      allNamespaces: !!flags['all-namespaces'],
      selector: flags.selector,
      filename: flags.filename,
      maxInputBytes: bytes,
      dryRun: !!flags['dry-run'],
      sourceKindsFile: flags['source-kinds'],
      concurrency: flags.concurrency,
      output: flags.output as Output,
      noHeaders: !!flags['no-headers'],
      sortBy: flags['sort-by'],
      cluster: kubeFlagValues(flags),
    },
    problems,
  };
}
