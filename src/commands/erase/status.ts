// `inv erase status [JOB]`: one erase job as people read it, at any moment: what it was asked,
// its phase and timing, one row per node with its reason, each node's images; --follow
// re-attaches to a running job as `inv erase` does.
import * as resources from '../../core/kube/resources.js';
import { Command } from '@oclif/core';
import { jobArg } from '../../cli/erase/job-select.js';
import { statusFlags } from '../../cli/erase/status-flags.js';
import { completeStatusOptions, type StatusOptions } from '../../cli/erase/status-options.js';
import { followWithProgress, printReport } from '../../cli/erase/common.js';
import { EXIT_PARTIAL_FAILURE } from '../../cli/process/exit-codes.js';
import { EraseSession } from '../../cli/erase/session.js';
import { failFlags, failLine } from '../../cli/process/fail.js';
import { paragraphs } from '../../cli/help-text.js';
import { exitOnInterrupt, setInterruptHint } from '../../cli/process/interrupt.js';
import { renderEvents } from '../../cli/erase/render.js';
import { terminalWidth } from '../../cli/output/table.js';
import {
  FollowTimeoutError,
  jobEvents,
  jobSnapshot,
  JobNotFoundError,
  newestJob,
  requestSnapshot,
  workerPods,
  type RequestSnapshot,
} from '../../core/erase-request/follow.js';
import { buildReport, type EraseReport } from '../../core/erase-request/report.js';
import { readHistory } from '../../core/erase-request/history.js';
import { reportFromRecords, withRecordImages } from '../../core/erase-request/history-report.js';
import { EraseRequestError } from '../../core/erase-request/request.js';
import { type ImageList } from '../../core/erase/api/types.js';
import { isNotFound, type KubeRest } from '../../core/kube/rest.js';
import { commandCompletion } from '../../cli/completion/sources.js';

export default class EraseStatus extends Command {
  static override summary = 'Show an erase job: its phase, every node with its reason, every image.';

  static override description =
    paragraphs(`Shows one ImageJob readably, at any time: the request (images, dry run),
its phase and timing, one row per node (outcome, counts, bytes, the reason a node failed, was
skipped or waits: its worker Pod's state), each node's targets, images and outcomes (every
image, from the removal record, where the worker's termination message could not hold them all), and the job's Events (they are deleted
with the job, after the configuration's delayOnSuccess / delayOnFailure). A job already deleted is
shown from its removal record (\`inv erase history\`): the nodes whose workers finished, each with
every image.

JOB defaults to the last job of the ImageList --name (a request the controller has not started yet
is shown as Submitted), or, without --name, to the newest ImageJob.

--follow waits for the job to finish, as \`inv erase\` does (a spinner on a terminal, a progress
line on stderr at least every 30 s otherwise), and exits with its result. Ctrl-C stops following
(exit 130); the job keeps running.

Exit codes: 0 shown (with --follow: the job Completed); 1 the job Failed (or --timeout passed);
2 no such job, bad input or no usable cluster; 130 interrupted.`);

  static override examples = [
    { description: 'The newest job', command: '<%= config.bin %> erase status' },
    {
      description: 'Re-attach to a job until it finishes',
      command: '<%= config.bin %> erase status imagelist-3-1a2b3 --follow',
    },
    {
      description: 'The last run of a nightly list, as JSON',
      command: '<%= config.bin %> erase status --name nightly -o json',
    },
    {
      description: 'Its phase and bytes freed, for a script (kubectl JSONPath)',
      command: '<%= config.bin %> erase status --name nightly -o jsonpath=\'{.phase},{.bytesFreed}{"\\n"}\'',
    },
    {
      description: 'One line per node, sorted by node name',
      command: '<%= config.bin %> erase status JOB --sort-by node -o custom-columns=NODE:node,OUT:outcome',
    },
  ];

  static override args = jobArg('; default: the newest job');

  static override flags = statusFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    exitOnInterrupt();
    const { args, flags } = await this.parse(EraseStatus);
    // Complete and validate (every problem at once), then connect.
    const { options, problems } = completeStatusOptions(args.job, flags);
    if (problems.length) failFlags(this, problems);
    const session = EraseSession.open(this, flags);
    await session.run(
      this,
      'erase status',
      () => this.show(session, options),
      (e) =>
        e instanceof JobNotFoundError
          ? e.message
          : e instanceof EraseRequestError
            ? { line: `request rejected: ${e.message}`, exit: EXIT_PARTIAL_FAILURE }
            : undefined,
    );
  }

  /** One look at the job (with its Events on a table), or --follow to its end. */
  private async show(session: EraseSession, options: StatusOptions): Promise<void> {
    const { rest } = session;
    const { output, noHeaders, sortBy } = options;
    const { look, last } = await this.target(rest, options.job, options.list);
    let first: RequestSnapshot;
    try {
      first = await look();
    } catch (e) {
      // A job deleted after delayOnSuccess: what its removal record kept.
      const gone = e instanceof JobNotFoundError ? await recorded(rest, last) : undefined;
      if (!gone) throw e;
      return this.print(gone, options);
    }
    const job = first.job?.metadata.name;
    const listJob = first.list.status?.lastJob;
    if (!first.job && listJob && first.list.status?.lastJobGeneration === first.generation) {
      const gone = await recorded(rest, listJob);
      if (gone) return this.print(gone, options);
    }
    if (!options.follow || first.finished) {
      const pods = first.job ? await workerPods(rest, first.job) : undefined;
      let report = buildReport(first.list, {
        generation: first.generation,
        job: first.job,
        pods,
        submitted: !first.job,
      });
      // Every image of a node whose termination message was cut, from its record.
      if (job && report.results.some((n) => n.imagesTruncated || (!n.images && n.outcome !== 'Skipped')))
        report = withRecordImages(report, await readHistory(rest, { job }).catch(() => []));
      printReport(report, output, { noHeaders, sortBy, status: true });
      if ((output === 'table' || output === 'wide') && !noHeaders && report.job)
        process.stdout.write(
          `\n${renderEvents(await jobEvents(rest, report.job), Date.now(), { wide: output === 'wide', width: terminalWidth() })}`,
        );
      if (report.phase === 'Failed' || report.phase === 'Error') this.exit(EXIT_PARTIAL_FAILURE);
      return;
    }
    setInterruptHint(() =>
      job
        ? `job ${job} keeps running in the cluster${options.standalone ? ' (with no controller now that this process stops)' : ''}: follow it again with \`${this.config.bin} erase status ${job} --follow\`, or cancel it with \`${this.config.bin} erase cancel ${job}\``
        : undefined,
    );
    if (options.standalone) await session.startControllers(options.workersNamespace, options.configNamespace);
    let report;
    try {
      report = await followWithProgress(rest, look, {
        timeoutMs: options.timeoutMs,
        spin: output === 'table' || output === 'wide',
      });
    } catch (e) {
      if (!(e instanceof FollowTimeoutError)) throw e;
      printReport(e.report, output, { noHeaders, sortBy, status: true });
      failLine(this, e.message, EXIT_PARTIAL_FAILURE);
    }
    printReport(report, output, { noHeaders, sortBy, status: true });
    if (report.phase !== 'Completed') this.exit(EXIT_PARTIAL_FAILURE);
  }

  /** A job read from its record alone (it was deleted): the report, and exit 1 if it Failed. */
  private print(report: EraseReport, options: StatusOptions): void {
    printReport(report, options.output, {
      noHeaders: options.noHeaders,
      sortBy: options.sortBy,
      status: true,
    });
    if (report.phase === 'Failed') this.exit(EXIT_PARTIAL_FAILURE);
  }

  /**
   * How to look at what was asked for: a job by name, a list's last request, or the newest job;
   * `last` names the job looked at, when known, to read its record if it is gone.
   */
  private async target(
    rest: KubeRest,
    job: string | undefined,
    list: string | undefined,
  ): Promise<{ look: () => Promise<RequestSnapshot>; last?: string }> {
    if (job) return { look: () => jobSnapshot(rest, job), last: job };
    if (list) {
      let l: ImageList;
      try {
        l = await resources.get<ImageList>(rest, 'ImageList', undefined, list);
      } catch (e) {
        if (isNotFound(e)) failLine(this, `imagelist ${list} not found`);
        throw e;
      }
      if (l.spec.schedule) {
        const last = l.status?.lastJob;
        if (!last)
          failLine(this, `imagelist ${list} runs on the schedule "${l.spec.schedule}" and has not run yet`);
        return { look: () => jobSnapshot(rest, last), last };
      }
      const gen = l.metadata.generation ?? 1;
      return { look: () => requestSnapshot(rest, list, gen), last: l.status?.lastJob };
    }
    const newest = await newestJob(rest);
    if (!newest) failLine(this, 'no erase jobs in this cluster');
    return { look: () => jobSnapshot(rest, newest), last: newest };
  }
}

/** The report of deleted job `job` from its removal record, or undefined without one. */
async function recorded(rest: KubeRest, job: string | undefined): Promise<EraseReport | undefined> {
  if (!job) return undefined;
  // Without the record (not installed, not readable) the job is simply not found, as before.
  const records = await readHistory(rest, { job }).catch(() => []);
  return records.length ? reportFromRecords(job, records) : undefined;
}
