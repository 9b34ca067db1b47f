// `inv erase`: writes an ImageList request and (unless --no-wait) follows its ImageJob.
// Thin: validation, a call into src/core/erase, rendering.
import { rfc3339 } from '../core/timestamps.js';
import { scanFlags } from '../cli/erase/scan-flags.js';
import { eraseDryRunProblem } from '../cli/dry-run-flag.js';
import { printErr, printOut } from '../cli/output/wrap.js';
import { Command, Flags } from '@oclif/core';
import {
  eraseOutputFlags,
  followWithProgress,
  interruptHint,
  printReport,
  standaloneFlag,
  workersNamespaceFlag,
} from '../cli/erase/common.js';
import { completeErase, validateErase, type EraseFlags, type EraseOptions } from '../cli/erase/options.js';
import { EraseSession } from '../cli/erase/session.js';
import { EXIT_PARTIAL_FAILURE } from '../cli/process/exit-codes.js';
import { failLine } from '../cli/process/fail.js';
import { kubeFlags } from '../cli/flags.js';
import { readSourceKindsFile } from '../cli/source-kinds-flag.js';
import { ERASE_DESCRIPTION, ERASE_EXAMPLES } from '../cli/erase/help.js';
import { exitOnInterrupt, setInterruptHint } from '../cli/process/interrupt.js';
import { confirm } from '../cli/process/prompt.js';
import { renderScheduled, renderSubmitted } from '../cli/erase/render.js';
import { colors, spinner } from '../cli/output/style.js';
import { PRUNE_ALL } from '../core/erase/api/images.js';
import { DEFAULT_IMAGELIST, IMAGELISTS_PATH, type ImageList } from '../core/erase/api/types.js';
import { DEFAULT_TIME_ZONE, nextTick } from '../core/erase/imagelist/schedule.js';
import { nodeSummary } from '../core/erase/requester/node-summary.js';
import {
  DEFAULT_CONTROLLER_LEASE,
  preflight,
  type PreflightResult,
} from '../core/erase/requester/preflight.js';
import { ERASE_CRDS, requireCrds } from '../core/kube/crds.js';
import { KubeTransportError, type KubeRest } from '../core/kube/rest.js';

export default class Erase extends Command {
  static override summary = 'Remove images from every node: write an ImageList request, follow its ImageJob.';

  static override description = ERASE_DESCRIPTION;

  static override examples = ERASE_EXAMPLES;

  static override flags = {
    images: Flags.string({
      description:
        'Comma-separated images: refs, repo@sha256:… refs or image IDs (repeatable: --images a --images b).',
      multiple: true,
      // One value per --images: a stray word after it is an error, never one more target.
      multipleNonGreedy: true,
    }),
    imagelist: Flags.string({ description: 'JSON file with an array of images.' }),
    'all-unused': Flags.boolean({
      description: 'Remove every image not in use (the "*" target). Asks on a TTY unless --yes.',
      exclusive: ['images', 'imagelist'],
    }),
    ...scanFlags,
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
    'protect-inventory': Flags.boolean({
      description:
        'With --all-unused: keep every image a workload in the cluster references, even when nothing runs it on the node (a Deployment scaled to 0, a suspended CronJob). --no-protect-inventory turns it off.',
      default: true,
      allowNo: true,
    }),
    'dry-run': Flags.boolean({ description: 'Report what each node would remove; remove nothing.' }),
    'image-fs-above': Flags.string({
      description:
        'With --all-unused: a node is cleaned only when its images take at least this percentage of its image file system (decimals allowed); below it, it removes nothing.',
      dependsOn: ['image-fs-down-to'],
    }),
    'image-fs-down-to': Flags.string({
      description:
        'With --image-fs-above: remove until usage is at or below this percentage, then stop (never seen in use first, then longest unused, then largest).',
      dependsOn: ['image-fs-above'],
    }),
    'unused-for': Flags.string({
      description:
        'With --all-unused: remove only images the node has seen unused for at least this long (e.g. 7d, 12h), by its own record in /var/lib/inv.',
    }),
    'node-selector': Flags.string({ char: 'l', description: 'Only nodes matching this label selector.' }),
    'job-timeout': Flags.string({
      description: 'Job deadline (e.g. 10m); unfinished nodes fail with reason timeout.',
    }),
    'max-parallel': Flags.string({
      description:
        'Rollout waves: at most this many nodes (N) or this share of the nodes (P%, rounded down, at least 1) run a worker at once. Default: every node at once.',
    }),
    pause: Flags.string({
      description:
        'With --max-parallel: whole waves, the next starting this long (e.g. 2m) after the previous one finished.',
      dependsOn: ['max-parallel'],
    }),
    'failure-budget': Flags.integer({
      description:
        'With --max-parallel: after this many failed nodes, the nodes not started yet are skipped (reason rollout-stopped) and the job fails.',
      min: 1,
      dependsOn: ['max-parallel'],
    }),
    name: Flags.string({ description: 'Name of the ImageList.', default: DEFAULT_IMAGELIST }),
    ...workersNamespaceFlag,
    'controller-lease': Flags.string({
      description:
        'namespace/name of the Lease the erase controllers hold (inv watch --leader-elect-namespace/--leader-elect-id); the request is refused when nobody holds it, unless --standalone.',
      default: DEFAULT_CONTROLLER_LEASE,
    }),
    ...standaloneFlag,
    'source-kinds': Flags.string({
      description:
        'With --standalone: the declared source kinds a --all-unused prune protects (a SourceKinds file, see README, "Declared source kinds"); default: the daemon\'s, from ConfigMap inv-source-kinds in --config-namespace.',
      helpValue: 'FILE',
      dependsOn: ['standalone'],
    }),
    wait: Flags.boolean({
      description:
        'Follow the job until it finishes and exit with its result (the default, on a terminal or not); --no-wait returns once the request is written.',
      allowNo: true,
    }),
    timeout: Flags.string({
      description:
        'The whole wait for the job, from the request on (e.g. 30m); the job keeps running after it (exit 1).',
      default: '1h',
    }),
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
    ...eraseOutputFlags,
    ...kubeFlags,
  };

  async run(): Promise<void> {
    exitOnInterrupt();
    setInterruptHint(() => 'nothing was submitted');
    this.refuseMisreadFlags(this.argv);
    const { flags } = await this.parse(Erase);
    // Complete, then validate every flag rule at once; only then connect.
    const { options, problems: unread } = completeErase(flags as EraseFlags);
    const problems = validateErase(options, unread);
    if (problems.length) failLine(this, problems.join('\n'));
    const session = EraseSession.open(this, flags);
    const { EraseRequestError, ScheduledListError } = await import('../core/erase/requester/request.js');
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
    const { submitErase, refuseScheduledList } = await import('../core/erase/requester/request.js');
    // Without the CRDs nothing else matters: one line naming the missing CRD (exit 2).
    if (!flags.standalone) await requireCrds(rest, ERASE_CRDS);
    // A one-off request on a scheduled list is refused whoever runs it: say so before the rest.
    if (!flags.schedule) await refuseScheduledList(rest, flags.name);
    const pre = await this.preflight(rest, images, flags);
    const targets = images.filter((i) => i !== PRUNE_ALL);
    // Nodes are listed only to ask (a prompt names how many nodes it touches).
    const nodes = () => nodeSummary(rest, pre.config, flags['node-selector']);
    if (images.includes(PRUNE_ALL) && !flags.yes && !flags['dry-run']) {
      const ok = await confirm(
        `Remove every unused image${o.scan ? ` that scanner ${o.scan.scanner} finds vulnerable` : ''} on ${(await nodes()) ?? 'every selected node'}${flags.schedule ? `, on every tick of "${flags.schedule}" (${flags['time-zone'] ?? DEFAULT_TIME_ZONE})` : ''}, in context ${session.context}?`,
      );
      if (!ok) failLine(this, 'aborted: nothing was submitted');
    }
    await this.warnReferenced(
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
    setInterruptHint(() => interruptHint(flags.name, generation, job, flags.standalone));
    if (!o.wait) {
      const { buildReport } = await import('../core/erase/requester/report.js');
      const list = await rest.get<ImageList>(`${IMAGELISTS_PATH}/${flags.name}`);
      const report = buildReport(list, { generation, submitted: true });
      if (output === 'table' || output === 'wide')
        printOut(renderSubmitted(this.config.bin, flags.name, generation));
      else printReport(report, output, {});
      return;
    }
    const { requestSnapshot, FollowTimeoutError } = await import('../core/erase/requester/follow.js');
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
        `${e.message}: ${interruptHint(flags.name, generation, job, flags.standalone)}`,
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

  /** The preflight (src/core/erase/requester/preflight.ts): every problem at once, exit 2. */
  private async preflight(
    rest: KubeRest,
    images: string[],
    flags: {
      'workers-namespace': string;
      'config-namespace': string;
      name: string;
      'protect-inventory': boolean;
      'dry-run': boolean;
      standalone: boolean;
      'controller-lease': string;
      schedule?: string;
    },
  ): Promise<PreflightResult> {
    const spin = spinner('Checking the cluster');
    let pre: PreflightResult;
    try {
      pre = await preflight(rest, {
        workersNamespace: flags['workers-namespace'],
        configNamespace: flags['config-namespace'],
        standalone: flags.standalone,
        lease: flags['controller-lease'],
        listName: flags.name,
        request: { images, protectInventory: flags['protect-inventory'], dryRun: flags['dry-run'] },
      });
    } catch (e) {
      spin?.stop();
      if (e instanceof KubeTransportError) failLine(this, `cannot reach the cluster: ${e.message}`);
      throw e;
    }
    spin?.stop();
    // A schedule only needs a controller by its first tick: say so, but write it.
    const late = flags.schedule ? pre.problems.filter((p) => p.startsWith('no erase controller')) : [];
    for (const p of [...pre.warnings, ...late]) printErr(`warning: ${p}\n`);
    const problems = pre.problems.filter((p) => !late.includes(p));
    if (problems.length === 1) failLine(this, problems[0]!);
    if (problems.length)
      failLine(this, `the cluster cannot run this request:\n  - ${problems.join('\n  - ')}`);
    return pre;
  }

  /**
   * A targeted removal of an image that workloads reference goes ahead (it was named on
   * purpose), but the user hears who uses it first, and is asked on a TTY.
   */
  private async warnReferenced(
    rest: KubeRest,
    targets: string[],
    noPrompt: boolean,
    where: () => Promise<string>,
  ): Promise<void> {
    if (targets.length === 0) return;
    const { inventoryTargets } = await import('../core/erase/requester/referenced-targets.js');
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
    if (!ok) failLine(this, 'aborted: nothing was submitted');
  }
}
