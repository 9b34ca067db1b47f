// `inv erase`: writes an ImageList request and (by default on a TTY) follows its ImageJob.
// Thin: validation, a call into src/core/erase, rendering.
import { Command, Flags } from '@oclif/core';
import fs from 'node:fs';
import readline from 'node:readline/promises';
import { EXIT_PARTIAL_FAILURE, EXIT_USAGE } from '../cli/exit-codes.js';
import { cliControllerLogger } from '../cli/controller-log.js';
import { exitIfCrdMissing, failLine } from '../cli/fail.js';
import { kubeFlags, outputFlag, restOptions, type OutputFormat } from '../cli/flags.js';
import { colors, spinner, table, toJson, toYaml } from '../cli/style.js';
import { formatBytes } from '../core/size.js';
import { parseDuration } from '../core/erase/config.js';
import { validateImages, PRUNE_ALL } from '../core/erase/images.js';
import { decodeResult } from '../core/erase/results.js';
import { DEFAULT_TIME_ZONE, nextTick, scheduleProblems } from '../core/erase/schedule.js';
import { parseSelector } from '../core/erase/selector.js';
import { DEFAULT_IMAGELIST, DEFAULT_NAMESPACE, type ImageJob, type ImageList } from '../core/erase/types.js';
import { loadKubeConfig } from '../core/kube/config.js';
import { KubeRest } from '../core/kube/rest.js';
import { paragraphs } from '../cli/help-text.js';

export default class Erase extends Command {
  static override summary =
    'Remove images from every node: create an ImageList request and follow its ImageJob.';

  static override description =
    paragraphs(`Creates (or updates) the ImageList and records a new request, so the same list run twice
starts two jobs. The ImageList controller (in \`inv watch\`, or in-process with --standalone)
starts an ImageJob, which runs one \`inv node-remove\` worker Pod per selected node. In-use,
pinned and excluded images are never removed; nodes matching the configured node filter, and
NotReady or cordoned nodes, are skipped.

--wait (the default on a TTY) follows the job with a spinner, then prints one row per node.

An ImageList chooses which images go and, with --node-selector, narrows the nodes; what the
workers run as (image, runtime socket, namespace) comes only from the administrator's
configuration (ConfigMap inv-erase-config).

Deleting an ImageJob or its ImageList first deletes the job's worker Pods and ConfigMaps
(finalizer erase.imageinventory.dev/cleanup). If no controller runs, the deletion waits: start
\`inv watch\` again, or remove the finalizer yourself with \`kubectl patch imagejob NAME --type=merge
-p '{"metadata":{"finalizers":null}}'\`; the garbage collector then deletes the worker objects
through their ownerReferences.

--schedule '0 3 * * *' makes the list run on each tick of a 5-field cron expression (in
--time-zone, UTC by default) instead of once now; \`inv erase\` then returns at once and the
daemon (\`inv watch --erase-controllers\`) starts the runs. The schedule is validated here and
again by the controller. A scheduled list starts no run when it is written; a one-off \`inv
erase\` on it is refused (use another --name).

Exit codes: 0 the job Completed (or the request was submitted without --wait, or a schedule
was written); 1 the job Failed; 2 bad input, a rejected request, or no usable cluster.`);

  static override examples = [
    {
      description: 'Remove two images from every node',
      command: '<%= config.bin %> erase --images nginx:1.25,docker.io/library/redis:7',
    },
    {
      description: 'Preview pruning every unused image on the gpu pool',
      command: '<%= config.bin %> erase --all-unused --dry-run --node-selector pool=gpu',
    },
    {
      description: 'Prune every unused image each night at 03:00 Berlin time (runs under inv watch)',
      command:
        "<%= config.bin %> erase --all-unused --yes --schedule '0 3 * * *' --time-zone Europe/Berlin --name nightly",
    },
    {
      description: 'From a file, on a cluster without the daemon, JSON result',
      command: '<%= config.bin %> erase --imagelist targets.json --standalone -o json',
    },
  ];

  static override flags = {
    images: Flags.string({
      description: 'Comma-separated images: refs, repo@sha256:… refs or image IDs (repeatable).',
      multiple: true,
    }),
    imagelist: Flags.string({ description: 'JSON file with an array of images.' }),
    'all-unused': Flags.boolean({
      description: 'Remove every image not in use (the "*" target). Asks on a TTY unless --yes.',
    }),
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
    'protect-inventory': Flags.boolean({
      description:
        'With --all-unused: keep every image a workload in the cluster references, even when nothing runs it on the node (a Deployment scaled to 0, a suspended CronJob). --no-protect-inventory turns it off.',
      default: true,
      allowNo: true,
    }),
    'dry-run': Flags.boolean({ description: 'Report what each node would remove; remove nothing.' }),
    'node-selector': Flags.string({ char: 'l', description: 'Only nodes matching this label selector.' }),
    'job-timeout': Flags.string({
      description: 'Job deadline (e.g. 10m); unfinished nodes fail with reason timeout.',
    }),
    name: Flags.string({ description: 'Name of the ImageList.', default: DEFAULT_IMAGELIST }),
    namespace: Flags.string({
      char: 'n',
      description: 'Namespace of the controllers (workers, configuration).',
      default: DEFAULT_NAMESPACE,
    }),
    standalone: Flags.boolean({
      description: 'Run the controllers in this process until the job finishes (no daemon needed).',
    }),
    wait: Flags.boolean({
      description: 'Follow the job until it finishes (default on a TTY).',
      allowNo: true,
    }),
    timeout: Flags.string({ description: 'With --wait: give up waiting after this long.', default: '1h' }),
    schedule: Flags.string({
      description: "Run on each tick of this 5-field cron expression (e.g. '0 3 * * *') instead of once now.",
    }),
    'time-zone': Flags.string({
      description: 'With --schedule: IANA time zone of the schedule (default UTC).',
      dependsOn: ['schedule'],
    }),
    'starting-deadline': Flags.string({
      description: 'With --schedule: a tick that cannot start within this long (e.g. 30m) is skipped.',
      dependsOn: ['schedule'],
    }),
    suspend: Flags.boolean({
      description:
        'With --schedule: write the schedule paused (no tick runs until written again without it).',
      dependsOn: ['schedule'],
    }),
    ...outputFlag,
    ...kubeFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Erase);
    const output = flags.output as OutputFormat;
    let deadline: number | undefined;
    const images = (flags.images ?? [])
      .flatMap((v) => v.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      if (flags.imagelist) {
        const v = JSON.parse(fs.readFileSync(flags.imagelist, 'utf8')) as unknown;
        if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
          throw new Error(`${flags.imagelist}: must be a JSON array of images`);
        images.push(...v);
      }
      if (flags['all-unused']) images.push(PRUNE_ALL);
      const problems = validateImages(images);
      if (problems.length) throw new Error(problems.join('\n'));
      if (flags['node-selector']) parseSelector(flags['node-selector']);
      if (flags['job-timeout'] && !(parseDuration(flags['job-timeout'], '--job-timeout') > 0))
        throw new Error('--job-timeout must be longer than 0s');
      if (flags.schedule !== undefined) {
        deadline = flags['starting-deadline']
          ? parseDuration(flags['starting-deadline'], '--starting-deadline')
          : undefined;
        const problems = scheduleProblems({
          schedule: flags.schedule,
          timeZone: flags['time-zone'],
          startingDeadlineSeconds: deadline,
        }).map((p) =>
          p
            .replace(/^schedule /, '--schedule ')
            .replace(/^timeZone /, '--time-zone ')
            .replace(/^startingDeadlineSeconds [^:]+/, `--starting-deadline ${flags['starting-deadline']}`),
        );
        if (problems.length) throw new Error(problems.join('\n'));
        if (flags.standalone)
          throw new Error(
            '--schedule needs the daemon (inv watch --erase-controllers): it cannot run with --standalone',
          );
        if (flags.wait)
          throw new Error('--schedule returns without waiting for a run: it cannot run with --wait');
      }
    } catch (e) {
      this.error((e as Error).message, { exit: EXIT_USAGE });
    }
    if (images.includes(PRUNE_ALL) && !flags.yes && !flags['dry-run']) {
      if (!process.stdin.isTTY)
        this.error('--all-unused removes every image not in use: confirm with --yes', { exit: EXIT_USAGE });
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(
        `Remove every unused image on every selected node${flags['node-selector'] ? ` (${flags['node-selector']})` : ''}${flags.schedule ? `, on every tick of "${flags.schedule}"` : ''}? [y/N] `,
      );
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) this.error('aborted', { exit: EXIT_USAGE });
    }

    let kc;
    let restOpts;
    try {
      kc = loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context });
      restOpts = restOptions(flags);
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const rest = new KubeRest(kc, restOpts);
    await this.warnReferenced(rest, images, Boolean(flags.yes || flags['dry-run'] || flags.schedule));
    const wait = !flags.schedule && (flags.standalone || (flags.wait ?? Boolean(process.stdout.isTTY)));
    const stop = new AbortController();
    let controllers: Promise<void> | undefined;
    const { submitErase, waitForJob, EraseRequestError, ScheduledListError } =
      await import('../core/erase/request.js');
    try {
      if (flags.standalone) {
        const { installCrds } = await import('../core/kube/crd-install.js');
        await installCrds(rest);
        const { EraseControllers } = await import('../core/erase/controllers.js');
        controllers = new EraseControllers({
          kubeConfig: kc,
          namespace: flags.namespace,
          jobResyncMs: 2000,
          logger: cliControllerLogger(),
        }).start(stop.signal);
      }
      const generation = await submitErase(rest, {
        name: flags.name,
        images,
        dryRun: flags['dry-run'],
        nodeSelector: flags['node-selector'],
        jobTimeout: flags['job-timeout'],
        protectInventory: flags['protect-inventory'],
        schedule: flags.schedule,
        timeZone: flags['time-zone'],
        startingDeadlineSeconds: deadline,
        suspend: flags.suspend,
      });
      if (flags.schedule) return this.renderScheduled(flags.name, generation, output, flags);
      if (!wait) {
        process.stdout.write(
          output === 'table'
            ? `imagelist/${flags.name} generation ${generation} submitted\n`
            : toJson({ imageList: flags.name, generation }),
        );
        return;
      }
      const spin = spinner('Waiting for the job to start', output === 'table');
      let result: { list: ImageList; job?: ImageJob };
      try {
        result = await waitForJob(rest, flags.name, generation, {
          timeoutMs: parseDuration(flags.timeout, '--timeout') * 1000,
          onProgress: (job) => {
            const s = job?.status;
            if (spin && s)
              spin.text = `${job!.metadata.name}: desired ${s.desired ?? 0}, succeeded ${s.succeeded ?? 0}, failed ${s.failed ?? 0}, skipped ${s.skipped ?? 0}`;
          },
        });
      } finally {
        spin?.stop();
      }
      this.render(result, output, flags['dry-run']);
      const phase = result.job?.status?.phase ?? result.list.status?.phase;
      if (phase !== 'Completed') this.exit(EXIT_PARTIAL_FAILURE);
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e;
      if (e instanceof EraseRequestError) this.error(`request rejected: ${e.message}`, { exit: EXIT_USAGE });
      exitIfCrdMissing(this, e);
      if (e instanceof ScheduledListError) failLine(this, e.message);
      failLine(this, `erase failed: ${(e as Error).message}`);
    } finally {
      stop.abort();
      await controllers;
      rest.close();
    }
  }

  /**
   * A targeted removal of an image that workloads reference goes ahead (it was named on
   * purpose), but the user hears who uses it first, and is asked on a TTY.
   */
  private async warnReferenced(rest: KubeRest, images: string[], noPrompt: boolean): Promise<void> {
    const { findReferencedTargets } = await import('../core/erase/referenced-targets.js');
    let found;
    try {
      found = await findReferencedTargets(
        rest,
        images.filter((i) => i !== PRUNE_ALL),
      );
    } catch (e) {
      process.stderr.write(
        `warning: could not read the inventory to check who uses these images: ${(e as Error).message}\n`,
      );
      return;
    }
    if (found.length === 0) return;
    const c = colors();
    for (const f of found)
      process.stderr.write(c.yellow(`warning: ${f.target} is referenced by ${f.users.join(', ')}\n`));
    if (noPrompt || !process.stdin.isTTY) return;
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(
      'Remove them anyway? The next start of those workloads pulls them again. [y/N] ',
    );
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      rest.close();
      this.error('aborted', { exit: EXIT_USAGE });
    }
  }

  /** A schedule was written: say when it runs next, and that nothing waits for it. */
  private renderScheduled(
    name: string,
    generation: number,
    output: OutputFormat,
    flags: { schedule?: string; 'time-zone'?: string; suspend?: boolean },
  ): void {
    const spec = { schedule: flags.schedule!, timeZone: flags['time-zone'] ?? DEFAULT_TIME_ZONE };
    const next = flags.suspend ? undefined : nextTick(spec, new Date());
    const out = {
      imageList: name,
      generation,
      ...spec,
      suspended: Boolean(flags.suspend),
      nextRun: next?.toISOString().replace(/\.\d{3}Z$/, 'Z') ?? null,
    };
    if (output === 'json') return void process.stdout.write(toJson(out));
    if (output === 'yaml') return void process.stdout.write(toYaml(out));
    process.stdout.write(
      `imagelist/${name} generation ${generation}: schedule "${spec.schedule}" (${spec.timeZone})${
        flags.suspend ? ', suspended' : `, next run ${out.nextRun}`
      }.\nNot waiting for a run: the erase controllers of \`inv watch\` start each run; \`kubectl get imagelist ${name}\` shows the last and next run.\n`,
    );
  }

  private render(r: { list: ImageList; job?: ImageJob }, output: OutputFormat, dryRun: boolean): void {
    const s = r.job?.status;
    const nodes = (s?.nodes ?? []).map(decodeResult);
    const full = {
      imageList: r.list.metadata.name,
      job: r.job?.metadata.name ?? r.list.status?.lastJob,
      phase: s?.phase ?? r.list.status?.phase,
      dryRun,
      desired: s?.desired ?? r.list.status?.desired,
      succeeded: s?.succeeded ?? r.list.status?.success,
      failed: s?.failed ?? r.list.status?.failed,
      skipped: s?.skipped ?? r.list.status?.skipped,
      removed: s?.removed ?? r.list.status?.removed ?? 0,
      protected: s?.protected ?? r.list.status?.protected ?? 0,
      bytesFreed: s?.bytesFreed ?? r.list.status?.bytesFreed ?? 0,
      message: s?.message ?? r.list.status?.message,
      collisions: s?.collisions ?? [],
      nodes,
    };
    if (output === 'json') return void process.stdout.write(toJson(full));
    if (output === 'yaml') return void process.stdout.write(toYaml(full));
    const c = colors();
    const t = table([
      'NODE',
      'OUTCOME',
      dryRun ? 'WOULD REMOVE' : 'REMOVED',
      'IN USE',
      'EXCLUDED',
      'PROTECTED',
      'FAILED',
      dryRun ? 'WOULD FREE' : 'FREED',
      'REASON',
    ]);
    for (const n of nodes) {
      const color = n.outcome === 'Succeeded' ? c.green : n.outcome === 'Failed' ? c.red : c.yellow;
      t.push([
        n.node,
        color(n.outcome),
        n.removed,
        n.inUse,
        n.excluded,
        n.protected,
        n.failed,
        formatBytes(n.bytes),
        n.reason,
      ]);
    }
    if (nodes.length) process.stdout.write(`${t.toString()}\n`);
    const phaseColor = full.phase === 'Completed' ? c.green : c.red;
    process.stdout.write(
      `${full.job}: ${phaseColor(String(full.phase))} desired ${full.desired ?? 0}, succeeded ${full.succeeded ?? 0}, failed ${full.failed ?? 0}, skipped ${full.skipped ?? 0}\n`,
    );
    const freedOn = nodes.filter((n) => n.bytes > 0).length;
    process.stdout.write(
      `${dryRun ? 'would free' : 'freed'} ${formatBytes(full.bytesFreed)} on ${freedOn} node(s)${full.protected ? `; ${full.protected} referenced image(s) kept by the inventory's protection` : ''}\n`,
    );
  }
}
