// `inv erase`: writes an ImageList request and (unless --no-wait) follows its ImageJob.
// Thin: validation, a call into src/core/erase, rendering.
import * as resources from '../core/kube/resources.js';
import { rfc3339 } from '../core/timestamps.js';
import { eraseDryRunProblem } from '../cli/dry-run-flag.js';
import { printOut } from '../cli/output/wrap.js';
import { Command } from '@oclif/core';
import { followWithProgress, interruptHint, printReport } from '../cli/erase/common.js';
import { completeErase, validateErase, type EraseOptions } from '../cli/erase/erase-options.js';
import { EraseSession } from '../cli/erase/session.js';
import { eraseFlags } from '../cli/erase/erase-flags.js';
import { showBooleanDefaults } from '../cli/flags.js';
import { runPreflight, warnReferenced } from '../cli/erase/checks.js';
import { EXIT_PARTIAL_FAILURE } from '../cli/process/exit-codes.js';
import { failFlags, failLine } from '../cli/process/fail.js';
import { readSourceKindsFile } from '../cli/source-kinds-flag.js';
import { ERASE_DESCRIPTION, ERASE_EXAMPLES, ERASE_USAGE } from '../cli/erase/help.js';
import { exitOnInterrupt, setInterruptHint } from '../cli/process/interrupt.js';
import { confirm } from '../cli/process/prompt.js';
import { renderScheduled, renderSubmitted } from '../cli/erase/render.js';
import { PRUNE_ALL } from '../core/erase/spec/images.js';
import { type ImageList } from '../core/erase/api/types.js';
import { DEFAULT_TIME_ZONE, nextTick } from '../core/erase/spec/schedule.js';
import { nodeSummary } from '../core/erase-request/node-summary.js';
import { ERASE_CRDS, requireCrds } from '../core/kube/crds.js';
import { commandCompletion } from '../cli/completion/sources.js';

export default class Erase extends Command {
  static override summary = 'Remove images from every node: write an ImageList request, follow its ImageJob.';

  static override description = ERASE_DESCRIPTION;

  static override usage = ERASE_USAGE;

  static override examples = ERASE_EXAMPLES;

  static override flags = showBooleanDefaults(eraseFlags);

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    exitOnInterrupt();
    setInterruptHint(() => 'nothing was submitted');
    this.refuseMisreadFlags(this.argv);
    const { flags } = await this.parse(Erase);
    // Complete, then validate every flag rule at once; only then connect.
    const { options, problems: unread } = completeErase(flags);
    const problems = validateErase(options, unread);
    if (problems.length) failFlags(this, problems);
    const session = EraseSession.open(this, flags);
    const { EraseRequestError, ScheduledListError } = await import('../core/erase-request/request.js');
    await session.run(
      this,
      'erase',
      () => this.submit(session, options),
      (e) =>
        e instanceof EraseRequestError
          ? `request rejected: ${e.message}`
          : e instanceof ScheduledListError
            ? e.message
            : undefined,
    );
  }

  /** Preflight, prompts, the request, then (unless --no-wait or --schedule) following its job. */
  private async submit(session: EraseSession, o: EraseOptions): Promise<void> {
    const { flags, images, output } = o;
    const { rest } = session;
    const { submitErase, refuseScheduledList } = await import('../core/erase-request/request.js');
    // Without the CRDs nothing else matters: one line naming the missing CRD (exit 2).
    if (!flags.standalone) await requireCrds(rest, ERASE_CRDS);
    // A one-off request on a scheduled list is refused whoever runs it: say so before the rest.
    if (!flags.schedule) await refuseScheduledList(rest, flags.name);
    const pre = await runPreflight(this, rest, images, flags);
    const targets = images.filter((i) => i !== PRUNE_ALL);
    // Nodes are listed only to ask (a prompt names how many nodes it touches).
    const nodes = () => nodeSummary(rest, pre.config, flags['node-selector']);
    if (images.includes(PRUNE_ALL) && !flags.yes && !flags['dry-run']) {
      const ok = await confirm(
        `Remove every unused image${o.scan ? ` that scanner ${o.scan.scanner} finds vulnerable` : ''} on ${(await nodes()) ?? 'every selected node'}${flags.schedule ? `, on every tick of "${flags.schedule}" (${flags['time-zone'] ?? DEFAULT_TIME_ZONE})` : ''}, in context ${session.context}?`,
      );
      if (!ok) failLine(this, 'aborted: nothing was submitted');
    }
    await warnReferenced(
      this,
      rest,
      targets,
      Boolean(flags.yes || flags['dry-run'] || flags.schedule),
      async () => `${await nodes().then((n) => (n ? `from ${n} ` : ''))}in context ${session.context}`,
    );
    if (flags.standalone)
      await session.startControllers(
        flags['workers-namespace'],
        flags['config-namespace'],
        flags['source-kinds'] === undefined
          ? undefined
          : await readSourceKindsFile(this, flags['source-kinds']),
      );
    const generation = await submitErase(rest, {
      name: flags.name,
      images,
      dryRun: flags['dry-run'],
      nodeSelector: flags['node-selector'],
      jobTimeout: flags['job-timeout'],
      protectInventory: flags['protect-inventory'],
      rollout: o.rollout,
      schedule: flags.schedule,
      timeZone: flags['time-zone'],
      startingDeadlineSeconds: o.startingDeadlineSeconds,
      suspend: flags.suspend,
      ...(o.scan ? { scan: o.scan } : {}),
      ...o.trigger,
      ...o.narrowing,
    });
    if (flags.schedule) {
      const spec = { schedule: flags.schedule, timeZone: flags['time-zone'] ?? DEFAULT_TIME_ZONE };
      const next = flags.suspend ? undefined : nextTick(spec, new Date());
      const s = {
        imageList: flags.name,
        generation,
        ...spec,
        suspended: Boolean(flags.suspend),
        nextRun: next ? rfc3339(next) : null,
      };
      return void (output === 'table' || output === 'wide'
        ? printOut(renderScheduled(s, output))
        : process.stdout.write(renderScheduled(s, output)));
    }
    let job: string | undefined;
    setInterruptHint(() => interruptHint(flags.name, generation, job, !!flags.standalone));
    if (!o.wait) {
      const { buildReport } = await import('../core/erase-request/report.js');
      const list = await resources.get<ImageList>(rest, 'ImageList', undefined, flags.name);
      const report = buildReport(list, { generation, submitted: true });
      if (output === 'table' || output === 'wide')
        printOut(renderSubmitted(this.config.bin, flags.name, generation));
      else printReport(report, output, {});
      return;
    }
    const { requestSnapshot, FollowTimeoutError } = await import('../core/erase-request/follow.js');
    let report;
    try {
      report = await followWithProgress(rest, () => requestSnapshot(rest, flags.name, generation), {
        timeoutMs: o.timeoutMs!,
        spin: output === 'table' || output === 'wide',
        onReport: (r) => {
          job = r.job ?? undefined;
        },
      });
    } catch (e) {
      if (!(e instanceof FollowTimeoutError)) throw e;
      printReport(e.report, output, { noHeaders: flags['no-headers'], sortBy: flags['sort-by'] });
      failLine(
        this,
        `${e.message}: ${interruptHint(flags.name, generation, job, !!flags.standalone)}`,
        EXIT_PARTIAL_FAILURE,
      );
    }
    printReport(report, output, { noHeaders: flags['no-headers'], sortBy: flags['sort-by'] });
    if (report.phase !== 'Completed') this.exit(EXIT_PARTIAL_FAILURE);
  }

  /**
   * Words kubectl users type that mean something else here: `--dry-run=client|server` (a boolean
   * here; with a value, oclif would read the value as a target) and `-n` (the target namespace
   * on scan; erase works on nodes).
   */
  private refuseMisreadFlags(argv: string[]): void {
    for (const a of argv) {
      if (a === '--') break;
      const dry = eraseDryRunProblem(argv);
      if (dry) failLine(this, dry);
      if (a === '-n' || a.startsWith('-n=') || a === '--namespace' || a.startsWith('--namespace='))
        failLine(
          this,
          `${a.split('=')[0]} is not an erase flag: erase works on nodes, not on a namespace; the namespace of the worker Pods and the erase configuration is --workers-namespace`,
        );
    }
  }
}
