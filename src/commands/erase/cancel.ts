// `inv erase cancel JOB`: stops a running erase job now. Only inv's own jobs and their own
// worker Pods are touched (src/core/erase/cancel.ts).
import { parseDurationMs } from '../../core/duration.js';
import { Args, Command, Flags } from '@oclif/core';
import { standaloneFlag, startStandalone, workersNamespaceFlag } from '../../cli/erase-common.js';
import { EXIT_PARTIAL_FAILURE } from '../../cli/exit-codes.js';
import { exitIfCrdMissing, failLine } from '../../cli/fail.js';
import { connect } from '../../cli/connect.js';
import { kubeFlags } from '../../cli/flags.js';
import { paragraphs } from '../../cli/help-text.js';
import { exitOnInterrupt, setInterruptHint } from '../../cli/interrupt.js';
import { spinner, toJson, toYaml } from '../../cli/style.js';
import { CancelRefusedError, cancelJob, jobGone } from '../../core/erase/cancel.js';
import { isNotFound, type KubeRest } from '../../core/kube/rest.js';

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

A job that has already finished is left as it is (exit 0).

Exit codes: 0 cancelled (or already finished); 1 the job is still waiting for its cleanup after
--timeout (no controller running?); 2 no such job, not one of inv's, or no usable cluster.`);

  static override examples = [
    { description: 'Cancel a job', command: '<%= config.bin %> erase cancel imagelist-3-1a2b3' },
    {
      description: 'Cancel a job left behind by an interrupted --standalone run',
      command: '<%= config.bin %> erase cancel imagelist-3-1a2b3 --standalone',
    },
  ];

  static override args = {
    job: Args.string({ description: 'ImageJob name.', required: true }),
  };

  static override flags = {
    wait: Flags.boolean({
      description:
        'Wait until the job and its objects are gone (the default); --no-wait returns after the deletes.',
      allowNo: true,
      default: true,
    }),
    timeout: Flags.string({ description: 'How long to wait for the cleanup.', default: '1m' }),
    ...standaloneFlag,
    ...workersNamespaceFlag,
    output: Flags.string({
      char: 'o',
      description: 'Output format.',
      options: ['table', 'name', 'json', 'yaml'],
      default: 'table',
    }),
    ...kubeFlags,
  };

  async run(): Promise<void> {
    exitOnInterrupt();
    const { args, flags } = await this.parse(EraseCancel);
    let timeoutMs = 0;
    let kc;
    let rest: KubeRest;
    try {
      timeoutMs = parseDurationMs(flags.timeout, '--timeout');
      ({ kc, rest } = connect(flags));
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const stop = new AbortController();
    let controllers: Promise<void> | undefined;
    try {
      if (flags.standalone)
        controllers = (
          await startStandalone(kc, rest, flags['workers-namespace'], stop.signal, flags['config-namespace'])
        ).done;
      const r = await cancelJob(rest, args.job);
      let gone = r.alreadyFinished === undefined ? false : undefined;
      if (r.alreadyFinished === undefined && flags.wait) {
        setInterruptHint(
          () =>
            `imagejob ${args.job} is deleted and its workers stopped; its cleanup goes on without this command`,
        );
        const spin = spinner(`Waiting for imagejob ${args.job} to be cleaned up`, flags.output === 'table');
        const deadline = Date.now() + timeoutMs;
        try {
          while (!(gone = await jobGone(rest, args.job)) && Date.now() < deadline)
            await new Promise((res) => setTimeout(res, 500));
        } finally {
          spin?.stop();
        }
      }
      const out = {
        job: args.job,
        cancelled: r.alreadyFinished === undefined,
        alreadyFinished: r.alreadyFinished ?? null,
        podsDeleted: r.podsDeleted,
        podsLeft: r.podsLeft,
        cleanedUp: gone ?? null,
      };
      if (flags.output === 'json') process.stdout.write(toJson(out));
      else if (flags.output === 'yaml') process.stdout.write(toYaml(out));
      else if (flags.output === 'name') process.stdout.write(`imagejob/${args.job}\n`);
      else if (r.alreadyFinished)
        process.stdout.write(`imagejob/${args.job} already ${r.alreadyFinished}: nothing to cancel\n`);
      else
        process.stdout.write(
          `imagejob/${args.job} cancelled: ${r.podsDeleted.length} worker Pod(s) deleted${
            gone ? ', job and its objects cleaned up' : flags.wait ? '' : ', cleanup under way'
          }\n`,
        );
      for (const p of r.podsLeft)
        process.stderr.write(
          `warning: Pod ${p} carries the job's label but the job does not own it: left alone\n`,
        );
      if (flags.wait && gone === false)
        failLine(
          this,
          `imagejob ${args.job} still waits for its cleanup after ${flags.timeout}: no erase controller removed its finalizer; start one (\`inv watch\`), or run \`${this.config.bin} erase cancel ${args.job} --standalone\``,
          EXIT_PARTIAL_FAILURE,
        );
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e;
      if (e instanceof CancelRefusedError) failLine(this, e.message);
      exitIfCrdMissing(this, e);
      if (isNotFound(e)) failLine(this, `imagejob ${args.job} not found`);
      failLine(this, `erase cancel failed: ${(e as Error).message}`);
    } finally {
      stop.abort();
      await controllers;
      rest.close();
    }
  }
}
