// `inv erase status [JOB]`: one erase job as people read it, at any moment: what it was asked,
// its phase and timing, one row per node with its reason, each node's images; --follow
// re-attaches to a running job as `inv erase` does.
import { parseDurationMs } from '../../core/duration.js';
import { Args, Command, Flags } from '@oclif/core';
import {
  eraseOutputFlags,
  followWithProgress,
  printReport,
  standaloneFlag,
  startStandalone,
  workersNamespaceFlag,
  type EraseOutput,
} from '../../cli/erase-common.js';
import { EXIT_PARTIAL_FAILURE } from '../../cli/exit-codes.js';
import { exitIfCrdMissing, failLine } from '../../cli/fail.js';
import { connect } from '../../cli/connect.js';
import { kubeFlags } from '../../cli/flags.js';
import { paragraphs } from '../../cli/help-text.js';
import { exitOnInterrupt, setInterruptHint } from '../../cli/interrupt.js';
import { renderEvents } from '../../cli/render-erase.js';
import { terminalWidth } from '../../cli/table.js';
import {
  FollowTimeoutError,
  jobEvents,
  jobSnapshot,
  JobNotFoundError,
  newestJob,
  requestSnapshot,
  workerPods,
  type RequestSnapshot,
} from '../../core/erase/follow.js';
import { buildReport } from '../../core/erase/report.js';
import { EraseRequestError } from '../../core/erase/request.js';
import { IMAGELISTS_PATH, type ImageList } from '../../core/erase/types.js';
import { isNotFound, type KubeRest } from '../../core/kube/rest.js';

export default class EraseStatus extends Command {
  static override summary = 'Show an erase job: its phase, every node with its reason, every image.';

  static override description =
    paragraphs(`Shows one ImageJob readably, at any time: the request (images, dry run),
its phase and timing, one row per node (outcome, counts, bytes, the reason a node failed, was
skipped or waits: its worker Pod's state), each node's targets, images and outcomes while
the job's worker Pods still exist, and the job's Events (they are deleted with the job, after the configuration's
delayOnSuccess / delayOnFailure).

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
  ];

  static override args = {
    job: Args.string({ description: 'ImageJob name (default: see --name).' }),
  };

  static override flags = {
    name: Flags.string({ description: 'ImageList whose last job to show (when JOB is not given).' }),
    follow: Flags.boolean({ char: 'f', description: 'Wait for the job to finish, showing progress.' }),
    timeout: Flags.string({ description: 'With --follow: the whole wait (e.g. 30m).', default: '1h' }),
    ...standaloneFlag,
    ...workersNamespaceFlag,
    ...eraseOutputFlags,
    ...kubeFlags,
  };

  async run(): Promise<void> {
    exitOnInterrupt();
    const { args, flags } = await this.parse(EraseStatus);
    const output = flags.output as EraseOutput;
    let timeoutMs = 0;
    let rest: KubeRest;
    let kc;
    try {
      timeoutMs = parseDurationMs(flags.timeout, '--timeout');
      if (!(timeoutMs > 0))
        throw new Error(`--timeout must be longer than 0s, got ${JSON.stringify(flags.timeout)}`);
      if (args.job && flags.name) throw new Error('give JOB or --name, not both');
      if (flags.standalone && !flags.follow)
        throw new Error('--standalone runs the controllers while following: add --follow');
      ({ kc, rest } = connect(flags));
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const stop = new AbortController();
    let controllers: Promise<void> | undefined;
    try {
      const look = await this.target(rest, args.job, flags.name);
      const first = await look();
      const job = first.job?.metadata.name;
      if (!flags.follow || first.finished) {
        const pods = first.job ? await workerPods(rest, first.job) : undefined;
        const report = buildReport(first.list, {
          generation: first.generation,
          job: first.job,
          pods,
          submitted: !first.job,
        });
        printReport(report, output, { noHeaders: flags['no-headers'], status: true });
        if ((output === 'table' || output === 'wide') && !flags['no-headers'] && report.job)
          process.stdout.write(
            `\n${renderEvents(await jobEvents(rest, report.job), Date.now(), { wide: output === 'wide', width: terminalWidth() })}`,
          );
        if (report.phase === 'Failed' || report.phase === 'Error') this.exit(EXIT_PARTIAL_FAILURE);
        return;
      }
      setInterruptHint(() =>
        job
          ? `job ${job} keeps running in the cluster${flags.standalone ? ' (with no controller now that this process stops)' : ''}: follow it again with \`${this.config.bin} erase status ${job} --follow\`, or cancel it with \`${this.config.bin} erase cancel ${job}\``
          : undefined,
      );
      if (flags.standalone)
        controllers = (
          await startStandalone(kc, rest, flags['workers-namespace'], stop.signal, flags['config-namespace'])
        ).done;
      let report;
      try {
        report = await followWithProgress(rest, look, {
          timeoutMs,
          spin: output === 'table' || output === 'wide',
        });
      } catch (e) {
        if (!(e instanceof FollowTimeoutError)) throw e;
        printReport(e.report, output, { noHeaders: flags['no-headers'], status: true });
        failLine(this, e.message, EXIT_PARTIAL_FAILURE);
      }
      printReport(report, output, { noHeaders: flags['no-headers'], status: true });
      if (report.phase !== 'Completed') this.exit(EXIT_PARTIAL_FAILURE);
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e;
      if (e instanceof JobNotFoundError) failLine(this, e.message);
      if (e instanceof EraseRequestError)
        failLine(this, `request rejected: ${e.message}`, EXIT_PARTIAL_FAILURE);
      exitIfCrdMissing(this, e);
      failLine(this, `erase status failed: ${(e as Error).message}`);
    } finally {
      stop.abort();
      await controllers;
      rest.close();
    }
  }

  /** How to look at what was asked for: a job by name, a list's last request, or the newest job. */
  private async target(
    rest: KubeRest,
    job: string | undefined,
    list: string | undefined,
  ): Promise<() => Promise<RequestSnapshot>> {
    if (job) return () => jobSnapshot(rest, job);
    if (list) {
      let l: ImageList;
      try {
        l = await rest.get<ImageList>(`${IMAGELISTS_PATH}/${list}`);
      } catch (e) {
        if (isNotFound(e)) failLine(this, `imagelist ${list} not found`);
        throw e;
      }
      if (l.spec.schedule) {
        const last = l.status?.lastJob;
        if (!last)
          failLine(this, `imagelist ${list} runs on the schedule "${l.spec.schedule}" and has not run yet`);
        return () => jobSnapshot(rest, last);
      }
      const gen = l.metadata.generation ?? 1;
      return () => requestSnapshot(rest, list, gen);
    }
    const newest = await newestJob(rest);
    if (!newest) failLine(this, 'no erase jobs in this cluster');
    return () => jobSnapshot(rest, newest);
  }
}
