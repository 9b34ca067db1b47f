// What `inv erase` checks with the cluster before it writes a request: the preflight (every
// problem at once, exit 2; warnings printed) and who references a targeted image (a warning,
// and a question on a TTY). Apart from the command, which is about options and flow.
import { printErr } from '../output/wrap.js';
import type { Command } from '@oclif/core';
import { failLine } from '../process/fail.js';
import { confirm } from '../process/prompt.js';
import { colors, spinner } from '../output/style.js';
import { preflight, type PreflightResult } from '../../core/erase-request/preflight.js';
import { KubeTransportError, type KubeRest } from '../../core/kube/rest.js';
import type { EraseFlags } from './erase-options.js';

/** The preflight (src/core/erase-request/preflight.ts): every problem at once, exit 2. */
export async function runPreflight(
  cmd: Command,
  rest: KubeRest,
  images: string[],
  flags: Pick<
    EraseFlags,
    | 'workers-namespace'
    | 'config-namespace'
    | 'name'
    | 'protect-inventory'
    | 'dry-run'
    | 'standalone'
    | 'controller-lease'
    | 'schedule'
    | 'job-timeout'
    | 'pause'
  >,
): Promise<PreflightResult> {
  const spin = spinner('Checking the cluster');
  let pre: PreflightResult;
  try {
    pre = await preflight(rest, {
      workersNamespace: flags['workers-namespace'],
      configNamespace: flags['config-namespace'],
      standalone: !!flags.standalone,
      lease: flags['controller-lease'],
      listName: flags.name,
      request: {
        images,
        protectInventory: flags['protect-inventory'],
        dryRun: flags['dry-run'],
        jobTimeout: flags['job-timeout'],
        pause: flags.pause,
      },
    });
  } catch (e) {
    spin?.stop();
    if (e instanceof KubeTransportError) failLine(cmd, `cannot reach the cluster: ${e.message}`);
    throw e;
  }
  spin?.stop();
  // A schedule only needs a controller by its first tick: say so, but write it.
  const late = flags.schedule ? pre.problems.filter((p) => p.startsWith('no erase controller')) : [];
  for (const p of [...pre.warnings, ...late]) printErr(`warning: ${p}\n`);
  const problems = pre.problems.filter((p) => !late.includes(p));
  if (problems.length === 1) failLine(cmd, problems[0]!);
  if (problems.length) failLine(cmd, `the cluster cannot run this request:\n  - ${problems.join('\n  - ')}`);
  return pre;
}

/**
 * A targeted removal of an image that workloads reference goes ahead (it was named on
 * purpose), but the user hears who uses it first, and is asked on a TTY.
 */
export async function warnReferenced(
  cmd: Command,
  rest: KubeRest,
  targets: string[],
  noPrompt: boolean,
  where: () => Promise<string>,
): Promise<void> {
  if (targets.length === 0) return;
  const { inventoryTargets } = await import('../../core/erase-request/referenced-targets.js');
  let found;
  try {
    const seen = await inventoryTargets(rest, targets);
    for (const u of seen.unseen)
      process.stderr.write(
        `warning: ${u.target} is referenced by no workload and was not found in the inventory; did you mean ${u.suggestion}?\n`,
      );
    found = seen.referenced;
  } catch (e) {
    printErr(
      `warning: could not read the inventory to check who uses these images: ${(e as Error).message}\n`,
    );
    return;
  }
  if (found.length === 0) return;
  const c = colors(process.stderr);
  for (const f of found)
    printErr(c.yellow(`warning: ${f.target} is referenced by ${f.users.join(', ')}`) + '\n');
  if (noPrompt || !process.stdin.isTTY) return;
  const ok = await confirm(
    `Remove them anyway ${await where()}? The next start of those workloads pulls them again.`,
  );
  if (!ok) failLine(cmd, 'aborted: nothing was submitted');
}
