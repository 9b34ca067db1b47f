// What `inv node-remove` does once its flags are read, shared by the oclif command
// (src/commands/node-remove.ts) and the worker's direct start (src/bundle/direct.ts), so both
// paths run the same code. Heavy modules (grpc, table rendering) are imported only when used.
import { EXIT_OK, EXIT_PARTIAL_FAILURE, EXIT_USAGE } from '../process/exit-codes.js';
// The flags' names and types are the worker's command line as the contract declares it.
import { DEFAULT_TERMINATION_PATH, type NodeRemoveFlags } from '../../core/contract/worker-command.js';

/** Bad input or an unreachable runtime: nothing was removed (exit 2, printed as `error: …`). */
export class NodeRemoveUsageError extends Error {
  readonly oclif = { exit: EXIT_USAGE };
}

/** Runs the removal and prints the report; returns the exit code (0, 1 or 2). */
export async function runNodeRemove(flags: NodeRemoveFlags): Promise<number> {
  const output = flags.output as
    'table' | 'wide' | 'json' | 'yaml' | `jsonpath=${string}` | `custom-columns=${string}`;
  const core = await import('../../core/noderemove/index.js');

  // Complete and validate: every problem with the flags and the files they name, at once.
  const problems: string[] = [];
  const step = async <T>(f: () => T | Promise<T>): Promise<T | undefined> => {
    try {
      return await f();
    } catch (e) {
      problems.push((e as Error).message);
      return undefined;
    }
  };
  const trigger = await step(() => triggerOptions(flags));
  const protection = await step(async () => {
    if (!flags['protected-dir']) return undefined;
    const { ProtectedIndex } = await import('../../core/contract/protected-set.js');
    const digests = flags['protected-sha256']?.split(',').filter((d) => d !== '');
    return new ProtectedIndex(core.readProtectedDir(flags['protected-dir'], digests));
  });
  const timeoutMs = (await step(() => core.parseTimeout(flags['call-timeout']))) ?? 0;
  const before = problems.length;
  const targets = (await step(() => core.splitImages(flags.images ?? []))) ?? [];
  if (flags.imagelist) {
    const listed = await step(() => core.readImageList(flags.imagelist!, flags['imagelist-sha256']));
    targets.push(...(listed ?? []));
  }
  // The rules below need the targets: when they could not be read, that problem is the one to say.
  const targetsRead = problems.length === before;
  const exclude = [...(flags.exclude ?? [])];
  if (flags['exclude-file']) {
    const excluded = await step(() =>
      core.readExcludeFile(flags['exclude-file']!, flags['exclude-file-sha256']),
    );
    exclude.push(...(excluded ?? []));
  }
  const pruneAll = targets.length === 1 && targets[0] === '*';
  let scan;
  if (flags['scan-dir']) {
    if (targetsRead && !pruneAll)
      problems.push("--scan-dir: a scan narrows a * prune: pass --images '*' and nothing else");
    const { parseDurationMs } = await import('../../core/duration.js');
    const scanTimeoutMs = await step(() => {
      const ms = parseDurationMs(flags['scan-timeout'] ?? '30m', '--scan-timeout');
      if (ms <= 0) throw new Error('--scan-timeout: must be longer than 0s');
      return ms;
    });
    scan = {
      dir: flags['scan-dir'],
      timeoutMs: scanTimeoutMs ?? 0,
      configFile: flags['scanner-config'],
      configSha256: flags['scanner-config-sha256'],
      deleteFailedImages: !!flags['scan-delete-failed'],
      deleteEOLImages: !!flags['scan-delete-eol'],
    };
  }
  const narrowing = await step(() => narrowingOptions(flags, core));
  if (targetsRead && narrowing && !pruneAll)
    problems.push("--only, --except and --keep-newest narrow a * prune: pass --images '*' alone");
  if (targetsRead && trigger && !pruneAll)
    problems.push(
      '--image-fs-above, --unused-for and --state-dir apply to a * prune only: pass --images * alone',
    );
  if (targetsRead && targets.length === 0)
    problems.push(
      'nothing to remove: pass --images a,b (or * to prune unused images) and/or --imagelist FILE',
    );
  if (problems.length)
    throw new NodeRemoveUsageError(
      problems.length === 1
        ? problems[0]!
        : `${problems.length} problems with the flags:\n  ${problems.join('\n  ')}`,
    );

  let report;
  try {
    const { chooseRuntimeEndpoint } = await import('../../core/cri/endpoint-choice.js');
    const { endpoint } = chooseRuntimeEndpoint({ flag: flags['runtime-endpoint'] });
    report = await core.nodeRemove({
      endpoint,
      timeoutMs,
      targets,
      exclude,
      dryRun: !!flags['dry-run'],
      node: flags['node-name'] ?? '',
      protection,
      scan,
      trigger,
      ...narrowing,
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
    const { tableOptions } = await import('../flags.js');
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

/** A percentage from 0 to 100 (decimals allowed: one image can be a small share of a large disk). */
function percentFlag(v: string, name: string): number {
  const n = Number(v.trim().replace(/%$/, ''));
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)
    throw new Error(`--${name}: must be a percentage from 0 to 100, got ${JSON.stringify(v)}`);
  return n;
}

/** The threshold and minimum-age options, or undefined for a plain run. */
async function triggerOptions(flags: NodeRemoveFlags) {
  const above = flags['image-fs-above'];
  const downTo = flags['image-fs-down-to'];
  const unusedFor = flags['unused-for'];
  if (above === undefined && downTo === undefined && unusedFor === undefined && !flags['state-dir'])
    return undefined;
  if ((above === undefined) !== (downTo === undefined))
    throw new Error('--image-fs-above and --image-fs-down-to go together');
  let imageFs;
  if (above !== undefined && downTo !== undefined) {
    imageFs = {
      highPercent: percentFlag(above, 'image-fs-above'),
      lowPercent: percentFlag(downTo, 'image-fs-down-to'),
    };
    if (!(imageFs.lowPercent < imageFs.highPercent))
      throw new Error('--image-fs-down-to must be lower than --image-fs-above');
  }
  const { parseDurationMs } = await import('../../core/duration.js');
  const minUnusedAgeMs = unusedFor !== undefined ? parseDurationMs(unusedFor, '--unused-for') : undefined;
  return {
    ...(imageFs ? { imageFs } : {}),
    ...(minUnusedAgeMs !== undefined ? { minUnusedAgeMs } : {}),
    ...(flags['state-dir'] ? { stateDir: flags['state-dir'] } : {}),
    measure: {
      ...(flags['image-fs-path'] ? { statPath: flags['image-fs-path'] } : {}),
      ...(flags['image-fs-host-path'] ? { hostPath: flags['image-fs-host-path'] } : {}),
    },
  };
}

/** --only, --except and --keep-newest, read (undefined for a prune of every unused image). */
function narrowingOptions(
  flags: NodeRemoveFlags,
  core: Pick<typeof import('../../core/noderemove/index.js'), 'compileScope' | 'parseKeepNewest'>,
) {
  const only = flags.only ?? [];
  const except = flags.except ?? [];
  const keep = flags['keep-newest'];
  if (only.length === 0 && except.length === 0 && keep === undefined) return undefined;
  return {
    ...(only.length || except.length
      ? { scope: core.compileScope({ only, except }, { only: '--only', except: '--except' }) }
      : {}),
    ...(keep !== undefined ? { keepNewest: core.parseKeepNewest(keep, '--keep-newest') } : {}),
  };
}
