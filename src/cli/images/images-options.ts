// `inv images` in kubectl's Options shape: the flags as parsed are completed into ImagesOptions
// and validated together, so every bad flag is named in one error; the command then only reads
// and reports what the options say. PURE: flags in, options and the list of problems out.
import { validateNamespaceName } from '../../core/kube/names.js';
import { compileExclusion } from '../../core/refs/exclusion.js';
import type { GroupBy, ReportFilters } from '../../core/report/image-report.js';
import type { ReportOutput } from './render-images.js';
import { sortByOption } from '../flag-problems.js';
import { kubeFlagValues, type CommandFlagValues, type KubeFlagValues } from '../flags.js';
import type { imagesFlags } from './images-flags.js';
import { maxInputBytes } from '../read-manifests.js';

/** The flags `inv images` reads, as oclif parses them (./images-flags.ts). */
export type ImagesFlags = CommandFlagValues<typeof imagesFlags>;

export interface ImagesOptions {
  /** -n as given (empty: the context's, or every namespace with allNamespaces). */
  namespaces: string[];
  allNamespaces: boolean;
  filters: ReportFilters;
  by: GroupBy;
  /** Offline: the manifests to read, and at most this many bytes of each. */
  filename?: string;
  maxInputBytes: number;
  output: ReportOutput;
  noHeaders: boolean;
  /** --sort-by as a checked path. */
  sortPath?: string;
  /** How to reach the cluster (cli/connect.ts). */
  cluster: KubeFlagValues;
}

/** A registry host as normalized refs spell it (docker.io, host:5000). */
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d+)?$/;

/** The options, and every problem with the flags (each naming its flag). */
export function completeImagesOptions(flags: ImagesFlags): { options: ImagesOptions; problems: string[] } {
  const problems: string[] = [];
  const namespaces = flags.namespace ?? [];
  for (const ns of namespaces) {
    const problem = validateNamespaceName(ns);
    if (problem) problems.push(`invalid namespace "${ns}": ${problem}`);
  }
  const filters: ReportFilters = { kinds: flags.kind };
  if (flags.image !== undefined) {
    const c = compileExclusion(flags.image);
    if (c.ok) filters.image = c.matcher;
    else problems.push(`--image ${JSON.stringify(flags.image)}: ${c.reason}`);
  }
  const registry = flags.registry?.toLowerCase();
  if (registry !== undefined && !REGISTRY.test(registry))
    problems.push(
      `--registry ${JSON.stringify(flags.registry)}: not a registry host (like docker.io or host:5000)`,
    );
  else filters.registry = registry;
  const sortPath = sortByOption(problems, flags['sort-by']);
  let bytes = 0;
  if (flags.offline) {
    const size = maxInputBytes(flags['max-input-size']);
    if ('problem' in size) problems.push(size.problem);
    else bytes = size.bytes;
  }
  return {
    options: {
      namespaces,
      allNamespaces: !!flags['all-namespaces'],
      filters,
      by: flags.by as GroupBy,
      filename: flags.offline ? flags.filename : undefined,
      maxInputBytes: bytes,
      output: flags.output as ReportOutput,
      noHeaders: !!flags['no-headers'],
      sortPath,
      cluster: kubeFlagValues(flags),
    },
    problems,
  };
}
