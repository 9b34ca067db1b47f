// `inv erase cancel JOB`: stops a running erase job now. Only inv's own jobs and their own
// worker Pods are touched (src/core/erase-request/cancel.ts).
import { printErr, printOut } from '../../cli/output/wrap.js';
import { parseDurationMs } from '../../core/duration.js';
import { attempt } from '../../cli/flag-problems.js';
import { Command } from '@oclif/core';
import { jobArg, jobSelectProblem, lastJobOf } from '../../cli/erase/job-select.js';
import { cancelFlags } from '../../cli/erase/cancel-flags.js';
import type { FlagValues } from '../../cli/flag-values.js';
import { EraseSession } from '../../cli/erase/session.js';
import { EXIT_PARTIAL_FAILURE } from '../../cli/process/exit-codes.js';
import { failFlags, failLine } from '../../cli/process/fail.js';
import { showBooleanDefaults } from '../../cli/flags.js';
import { paragraphs } from '../../cli/help-text.js';
import { exitOnInterrupt, setInterruptHint } from '../../cli/process/interrupt.js';
import { renderCancel } from '../../cli/erase/render.js';
import { spinner } from '../../cli/output/style.js';
import { CancelRefusedError, cancelJob, jobGone } from '../../core/erase-request/cancel.js';
import { isNotFound } from '../../core/kube/rest.js';
import { commandCompletion } from '../../cli/completion/sources.js';

export default class EraseCancel extends Command {
  static override summary = 'Stop a running erase job: delete it and its worker Pods.';

  static override description =
    paragraphs(`Deletes the ImageJob, then deletes its running worker Pods, so no node
starts or goes on removing images. An image a worker was removing at that moment may be gone;
nothing else is. The job's cleanup finalizer has the erase controller delete the job's
ConfigMaps and PodTemplate before the job disappears; with no controller running, pass
--standalone to do that in this process.

Only jobs inv's erase controllers created (label app.kubernetes.io/managed-by=inv-erase, an
ImageList as controller) are cancelled, and only Pods that the job owns (its UID as their
controller reference) are deleted, each with a UID precondition.

JOB, or --name LIST for that ImageList's last job (as \`inv erase status\` takes them). A job
that has already finished is left as it is (exit 0).

Exit codes: 0 cancelled (or already finished); 1 the job is still waiting for its cleanup after
--timeout (no controller running?); 2 no such job, not one of inv's, or no usable cluster.`);

  static override examples = [
    { description: 'Cancel a job', command: '<%= config.bin %> erase cancel imagelist-3-1a2b3' },
    {
      description: 'Cancel the last job of an ImageList',
      command: '<%= config.bin %> erase cancel --name nightly',
    },
    {
      description: 'Cancel a job left behind by an interrupted --standalone run',
      command: '<%= config.bin %> erase cancel imagelist-3-1a2b3 --standalone',
    },
  ];

  static override args = jobArg('');

  static override flags = showBooleanDefaults(cancelFlags);

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    exitOnInterrupt();
    const { args, flags } = await this.parse(EraseCancel);
    const problems: string[] = [];
    const timeoutMs = attempt(problems, () => parseDurationMs(flags.timeout, '--timeout')) ?? 0;
    const selection = jobSelectProblem(args.job, flags.name, true);
    if (selection) problems.push(selection);
    if (problems.length) failFlags(this, problems);
    const session = EraseSession.open(this, flags);
    let job = args.job;
    await session.run(
      this,
      'erase cancel',
      async () => {
        if (!job) {
          const last = await lastJobOf(session.rest, flags.name!);
          if (last.problem) failLine(this, last.problem);
          job = last.job!;
        }
        await this.cancel(session, job, flags, timeoutMs);
      },
      (e) =>
        e instanceof CancelRefusedError ? e.message : isNotFound(e) ? `imagejob ${job} not found` : undefined,
    );
  }

  /** Deletes the job and its Pods, then (by default) waits for its finalizer's cleanup. */
  private async cancel(
    session: EraseSession,
    job: string,
    flags: FlagValues<typeof cancelFlags>,
    timeoutMs: number,
  ): Promise<void> {
    const { rest } = session;
    if (flags.standalone)
      await session.startControllers(flags['workers-namespace'], flags['config-namespace']);
    const r = await cancelJob(rest, job);
    let gone = r.alreadyFinished === undefined ? false : undefined;
    if (r.alreadyFinished === undefined && flags.wait) {
      setInterruptHint(
        () => `imagejob ${job} is deleted and its workers stopped; its cleanup goes on without this command`,
      );
      const spin = spinner(`Waiting for imagejob ${job} to be cleaned up`, flags.output === 'table');
      const deadline = Date.now() + timeoutMs;
      try {
        while (!(gone = await jobGone(rest, job)) && Date.now() < deadline)
          await new Promise((res) => setTimeout(res, 500));
      } finally {
        spin?.stop();
      }
    }
    const out = {
      job,
      cancelled: r.alreadyFinished === undefined,
      alreadyFinished: r.alreadyFinished ?? null,
      podsDeleted: r.podsDeleted,
      podsLeft: r.podsLeft,
      cleanedUp: gone ?? null,
    };
    if (flags.output === 'table' || flags.output === 'wide')
      printOut(renderCancel(out, flags.output, !!flags.wait));
    else process.stdout.write(renderCancel(out, flags.output, !!flags.wait));
    for (const p of r.podsLeft)
      printErr(`warning: Pod ${p} carries the job's label but the job does not own it: left alone\n`);
    if (flags.wait && gone === false)
      failLine(
        this,
        `imagejob ${job} still waits for its cleanup after ${flags.timeout}: no erase controller removed its finalizer; start one (\`inv watch\`), or run \`${this.config.bin} erase cancel ${job} --standalone\``,
        EXIT_PARTIAL_FAILURE,
      );
  }
}
