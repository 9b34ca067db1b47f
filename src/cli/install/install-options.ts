// `inv install` in kubectl's Options shape: the flags as parsed are completed into
// InstallOptions and validated together, so every bad flag is named in one error (the command
// stopped at the first before); the command then only installs what the options say. PURE:
// flags in, options and the list of problems out. The --source-kinds file is read by the
// command (a file, so not pure), after these.
import { parseDurationMs } from '../../core/duration.js';
import { attempt } from '../flag-problems.js';
import { kubeFlagValues, type CommandFlagValues, type KubeFlagValues } from '../flags.js';
import type { installFlags } from './install-flags.js';

/** The flags `inv install` reads, as oclif parses them (./install-flags.ts; a bare --dry-run already means client). */
export type InstallFlags = CommandFlagValues<typeof installFlags>;

export interface InstallOptions {
  daemon: boolean;
  /** The daemon's and the workers' image; undefined: none given (install-image.ts decides). */
  image?: string;
  /** Secrets in the daemon's and the workers' namespaces for pulling it, by name. */
  imagePullSecrets: string[];
  /** client: print the objects; server: say what would change; undefined: install. */
  dryRun?: 'client' | 'server';
  sourceKindsFile?: string;
  forceConflicts: boolean;
  timeoutMs: number;
  /** How to reach the cluster (cli/connect.ts). */
  cluster: KubeFlagValues;
}

/** An image reference as a Pod spec takes it: name[:tag][@sha256:digest]. */
const IMAGE = /^[^\s@]+(@sha256:[0-9a-f]{64})?$/;
/** A Secret's name: a DNS subdomain. */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** The options, and every problem with the flags (each naming its flag). */
export function completeInstallOptions(flags: InstallFlags): { options: InstallOptions; problems: string[] } {
  const problems: string[] = [];
  const timeoutMs = attempt(problems, () => parseDurationMs(flags.timeout, '--timeout')) ?? 0;
  if (flags.image !== undefined && !IMAGE.test(flags.image))
    problems.push(`--image "${flags.image}": not an image reference (name[:tag][@sha256:digest])`);
  const pullSecrets = [...new Set(flags['image-pull-secret'] ?? [])];
  for (const name of pullSecrets)
    if (!SECRET_NAME.test(name))
      problems.push(`--image-pull-secret "${name}": not a Secret name (lowercase letters, digits, - and .)`);
  return {
    options: {
      daemon: !!flags.daemon,
      image: flags.image,
      imagePullSecrets: pullSecrets,
      dryRun: flags['dry-run'] as InstallOptions['dryRun'],
      sourceKindsFile: flags['source-kinds'],
      forceConflicts: !!flags['force-conflicts'],
      timeoutMs,
      cluster: kubeFlagValues(flags),
    },
    problems,
  };
}
