// What `inv node-remove` does once its flags are read, shared by the oclif command
// (src/commands/node-remove.ts) and the worker's direct start (src/bundle/direct.ts), so both
// paths run the same code. Heavy modules (grpc, table rendering) are imported only when used.
import { EXIT_OK, EXIT_PARTIAL_FAILURE, EXIT_USAGE } from './exit-codes.js';

export const DEFAULT_TERMINATION_PATH = '/dev/termination-log';

/** The flags of `inv node-remove`, as oclif (or the direct reader) returns them. */
export interface NodeRemoveFlags {
  'runtime-endpoint'?: string;
  'call-timeout': string;
  images?: string[];
  imagelist?: string;
  exclude?: string[];
  'exclude-file'?: string;
  'protected-dir'?: string;
  'imagelist-sha256'?: string;
  'exclude-file-sha256'?: string;
  'protected-sha256'?: string;
  'dry-run'?: boolean;
  'node-name'?: string;
  'termination-message-path': string;
  output: string;
  'no-headers'?: boolean;
}

/** Bad input or an unreachable runtime: nothing was removed (exit 2, printed as `error: …`). */
export class NodeRemoveUsageError extends Error {
  readonly oclif = { exit: EXIT_USAGE };
}

/** Runs the removal and prints the report; returns the exit code (0, 1 or 2). */
export async function runNodeRemove(flags: NodeRemoveFlags): Promise<number> {
  const output = flags.output as 'table' | 'wide' | 'json' | 'yaml';
  const core = await import('../core/noderemove/index.js');

  let targets: string[];
  let exclude: string[];
  let timeoutMs: number;
  let protection;
  try {
    if (flags['protected-dir']) {
      const { ProtectedIndex } = await import('../core/erase/protected-set.js');
      const digests = flags['protected-sha256']?.split(',').filter((d) => d !== '');
      protection = new ProtectedIndex(core.readProtectedDir(flags['protected-dir'], digests));
    }
    timeoutMs = core.parseTimeout(flags['call-timeout']);
    targets = core.splitImages(flags.images ?? []);
    if (flags.imagelist) targets.push(...core.readImageList(flags.imagelist, flags['imagelist-sha256']));
    exclude = [...(flags.exclude ?? [])];
    if (flags['exclude-file'])
      exclude.push(...core.readExcludeFile(flags['exclude-file'], flags['exclude-file-sha256']));
  } catch (e) {
    throw new NodeRemoveUsageError((e as Error).message);
  }
  if (targets.length === 0) {
    throw new NodeRemoveUsageError(
      'nothing to remove: pass --images a,b (or * to prune unused images) and/or --imagelist FILE',
    );
  }

  let report;
  try {
    const { chooseRuntimeEndpoint } = await import('../core/cri/endpoint-choice.js');
    const { endpoint } = chooseRuntimeEndpoint({ flag: flags['runtime-endpoint'] });
    report = await core.nodeRemove({
      endpoint,
      timeoutMs,
      targets,
      exclude,
      dryRun: !!flags['dry-run'],
      node: flags['node-name'] ?? '',
      protection,
    });
  } catch (e) {
    // Bad exclusion patterns, an unreadable crictl.yaml and an unreachable runtime: nothing was removed.
    throw new NodeRemoveUsageError((e as Error).message);
  }

  for (const w of report.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
  if (output === 'json') {
    // What every worker Pod prints: without the table and spinner libraries.
    const { reportJson } = await import('./node-remove-data.js');
    process.stdout.write(reportJson(report));
  } else {
    const { renderReport } = await import('./render-node-remove.js');
    const { tableOptions } = await import('./flags.js');
    process.stdout.write(renderReport(report, output, tableOptions(flags)));
  }
  core.writeTerminationMessage(
    flags['termination-message-path'],
    flags['termination-message-path'] !== DEFAULT_TERMINATION_PATH,
    report,
  );
  const code = core.exitCodeFor(report);
  return code === EXIT_OK ? EXIT_OK : code === 1 ? EXIT_PARTIAL_FAILURE : EXIT_USAGE;
}
