// `inv erase`: writes an ImageList request and (unless --no-wait) follows its ImageJob.
// Thin: validation, a call into src/core/erase, rendering.
import { parseDurationMs } from '../core/duration.js';
import { Command, Flags } from '@oclif/core';
import fs from 'node:fs';
import {
  eraseOutputFlags,
  followWithProgress,
  printReport,
  standaloneFlag,
  startStandalone,
  workersNamespaceFlag,
  type EraseOutput,
} from '../cli/erase-common.js';
import { EXIT_PARTIAL_FAILURE } from '../cli/exit-codes.js';
import { exitIfCrdMissing, failLine } from '../cli/fail.js';
import { kubeFlags, restOptions } from '../cli/flags.js';
import { paragraphs } from '../cli/help-text.js';
import { exitOnInterrupt, setInterruptHint } from '../cli/interrupt.js';
import { confirm } from '../cli/prompt.js';
import { colors, spinner, toJson, toYaml } from '../cli/style.js';
import { DEFAULT_CONFIG, parseDuration, type EraseConfig } from '../core/erase/config.js';
import { validateImages, PRUNE_ALL } from '../core/erase/images.js';
import { listLimitProblems } from '../core/erase/list-limits.js';
import { selectNodes, type NodeLike } from '../core/erase/nodes.js';
import { DEFAULT_CONTROLLER_LEASE, preflight, type PreflightResult } from '../core/erase/preflight.js';
import { DEFAULT_TIME_ZONE, nextTick, scheduleProblems } from '../core/erase/schedule.js';
import { parseSelector } from '../core/erase/selector.js';
import { DEFAULT_IMAGELIST, IMAGELISTS_PATH, type ImageList } from '../core/erase/types.js';
import { loadKubeConfig } from '../core/kube/config.js';
import { ERASE_CRDS, requireCrds } from '../core/kube/crds.js';
import { KubeApiError, KubeRest, KubeTransportError } from '../core/kube/rest.js';

export default class Erase extends Command {
  static override summary =
    'Remove images from every node: create an ImageList request and follow its ImageJob.';

  static override description =
    paragraphs(`Creates (or updates) the ImageList and records a new request, so the same list run twice
starts two jobs. The ImageList controller (in \`inv watch\`, or in-process with --standalone)
starts an ImageJob, which runs one \`inv node-remove\` worker Pod per selected node. In-use,
pinned and excluded images are never removed; nodes matching the configured node filter, and
NotReady or cordoned nodes, are skipped.

Before writing anything, erase checks that it can run: a controller holds the Lease
(--controller-lease; not with --standalone), the workers' namespace and the configuration
exist, and you have the permissions it needs (SelfSubjectAccessReview). Each problem is named,
and nothing is written (exit 2).

By default erase waits for the job (on a terminal and in CI alike): a spinner shows the running,
pending and finished nodes and the elapsed time (without a terminal, a progress line on stderr
at least every 30 s), then one row per node and, for a dry run, every node's targets, images and
outcomes. --no-wait returns once the request is written; \`inv erase status\` shows the job at any
time (--follow re-attaches) and \`inv erase cancel JOB\` stops it. Ctrl-C stops waiting (exit 130);
the job keeps running in the cluster.

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

Exit codes: 0 the job Completed (or the request was submitted with --no-wait, or a schedule
was written); 1 the job Failed, or --timeout passed first; 2 bad input, a failed preflight, a
rejected request, or no usable cluster; 130 interrupted (Ctrl-C).`);

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
    {
      description: 'Submit and return; follow the job later',
      command:
        '<%= config.bin %> erase --images nginx:1.25 --no-wait && <%= config.bin %> erase status --name imagelist --follow',
    },
  ];

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
    ...workersNamespaceFlag,
    'controller-lease': Flags.string({
      description:
        'namespace/name of the Lease the erase controllers hold (inv watch --leader-elect-namespace/--leader-elect-id); the request is refused when nobody holds it, unless --standalone.',
      default: DEFAULT_CONTROLLER_LEASE,
    }),
    ...standaloneFlag,
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
    const output = flags.output as EraseOutput;
    let deadline: number | undefined;
    let timeoutMs = 0;
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
      if (images.length === 0)
        throw new Error('nothing to remove: pass --images, --imagelist or --all-unused');
      if (images.includes(PRUNE_ALL) && !flags.yes && !flags['dry-run'] && !process.stdin.isTTY)
        throw new Error('--all-unused removes every image not in use: confirm with --yes');
      // What the CRD and the ImageList controller would refuse (list-limits.ts), refused here
      // first, in the same words, before anything is written.
      const problems = [...listLimitProblems(flags.name, images), ...validateImages(images)];
      if (problems.length) throw new Error(problems.join('\n'));
      if (flags['node-selector']) parseSelector(flags['node-selector']);
      if (flags['job-timeout'] && !(parseDuration(flags['job-timeout'], '--job-timeout') > 0))
        throw new Error('--job-timeout must be longer than 0s');
      timeoutMs = parseDurationMs(flags.timeout, '--timeout');
      if (!(timeoutMs > 0))
        throw new Error(`--timeout must be longer than 0s, got ${JSON.stringify(flags.timeout)}`);
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
      failLine(this, (e as Error).message);
    }
    // Waiting is the default on a terminal and off it alike, so a command behaves the same in CI.
    const wait = !flags.schedule && (flags.standalone || (flags.wait ?? true));

    let kc;
    let restOpts;
    try {
      kc = loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context });
      restOpts = restOptions(flags);
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const context = kc.getCurrentContext() || '(in-cluster)';
    const rest = new KubeRest(kc, restOpts);
    const stop = new AbortController();
    let controllers: Promise<void> | undefined;
    const { submitErase, refuseScheduledList, EraseRequestError, ScheduledListError } =
      await import('../core/erase/request.js');
    try {
      // Without the CRDs nothing else matters: one line naming the missing CRD (exit 2).
      if (!flags.standalone) await requireCrds(rest, ERASE_CRDS);
      // A one-off request on a scheduled list is refused whoever runs it: say so before the rest.
      if (!flags.schedule) await refuseScheduledList(rest, flags.name);
      const pre = await this.preflight(rest, images, flags);
      const targets = images.filter((i) => i !== PRUNE_ALL);
      // Nodes are listed only to ask (a prompt names how many nodes it touches).
      const nodes = () => this.nodeSummary(rest, pre.config, flags['node-selector']);
      if (images.includes(PRUNE_ALL) && !flags.yes && !flags['dry-run']) {
        const ok = await confirm(
          `Remove every unused image on ${(await nodes()) ?? 'every selected node'}${flags.schedule ? `, on every tick of "${flags.schedule}" (${flags['time-zone'] ?? DEFAULT_TIME_ZONE})` : ''}, in context ${context}?`,
        );
        if (!ok) failLine(this, 'aborted: nothing was submitted');
      }
      await this.warnReferenced(
        rest,
        targets,
        Boolean(flags.yes || flags['dry-run'] || flags.schedule),
        async () => `${await nodes().then((n) => (n ? `from ${n} ` : ''))}in context ${context}`,
      );
      if (flags.standalone)
        controllers = (
          await startStandalone(kc, rest, flags['workers-namespace'], stop.signal, flags['config-namespace'])
        ).done;
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
      let job: string | undefined;
      setInterruptHint(() => interruptHint(flags.name, generation, job, flags.standalone));
      if (!wait) {
        const { buildReport } = await import('../core/erase/report.js');
        const list = await rest.get<ImageList>(`${IMAGELISTS_PATH}/${flags.name}`);
        const report = buildReport(list, { generation, submitted: true });
        if (output === 'table' || output === 'wide')
          process.stdout.write(
            `imagelist/${flags.name} generation ${generation} submitted; follow it with \`${this.config.bin} erase status --name ${flags.name} --follow\`\n`,
          );
        else printReport(report, output, {});
        return;
      }
      const { requestSnapshot, FollowTimeoutError } = await import('../core/erase/follow.js');
      let report;
      try {
        report = await followWithProgress(rest, () => requestSnapshot(rest, flags.name, generation), {
          timeoutMs,
          spin: output === 'table' || output === 'wide',
          onReport: (r) => {
            job = r.job ?? undefined;
          },
        });
      } catch (e) {
        if (!(e instanceof FollowTimeoutError)) throw e;
        printReport(e.report, output, { noHeaders: flags['no-headers'] });
        failLine(
          this,
          `${e.message}: ${interruptHint(flags.name, generation, job, flags.standalone)}`,
          EXIT_PARTIAL_FAILURE,
        );
      }
      printReport(report, output, { noHeaders: flags['no-headers'] });
      if (report.phase !== 'Completed') this.exit(EXIT_PARTIAL_FAILURE);
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e;
      if (e instanceof EraseRequestError) failLine(this, `request rejected: ${e.message}`);
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
   * Words kubectl users type that mean something else here: `--dry-run=client|server` (a boolean
   * here; with a value, oclif would read the value as a target) and `-n` (the target namespace
   * on scan; erase works on nodes).
   */
  private refuseMisreadFlags(argv: string[]): void {
    for (const a of argv) {
      if (a === '--') break;
      const dry = /^--dry-run=(.*)$/.exec(a);
      if (dry)
        failLine(
          this,
          `--dry-run takes no value (got --dry-run=${dry[1]}): an erase dry run has every selected node's worker report what it would remove, and removes nothing; there is no client- or server-side variant as in kubectl`,
        );
      if (a === '-n' || a.startsWith('-n=') || a === '--namespace' || a.startsWith('--namespace='))
        failLine(
          this,
          `${a.split('=')[0]} is not an erase flag: erase works on nodes, not on a namespace; the namespace of the worker Pods and the erase configuration is --workers-namespace`,
        );
    }
  }

  /** The preflight (src/core/erase/preflight.ts): every problem at once, exit 2. */
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
    for (const p of [...pre.warnings, ...late]) process.stderr.write(`warning: ${p}\n`);
    const problems = pre.problems.filter((p) => !late.includes(p));
    if (problems.length === 1) failLine(this, problems[0]!);
    if (problems.length)
      failLine(this, `the cluster cannot run this request:\n  - ${problems.join('\n  - ')}`);
    return pre;
  }

  /** "3 of 5 nodes (2 skipped: cordoned, not ready)", or undefined when Nodes cannot be read. */
  private async nodeSummary(
    rest: KubeRest,
    config: EraseConfig | undefined,
    selector: string | undefined,
  ): Promise<string | undefined> {
    try {
      const nodes = await rest.list<NodeLike>('/api/v1/nodes');
      const sel = selectNodes(nodes.items, config ?? DEFAULT_CONFIG, selector ?? '');
      const total = sel.selected.length + sel.skipped.length;
      const why = [...new Set(sel.skipped.map((s) => s.reason.replace('-', ' ')))].join(', ');
      return `${sel.selected.length} of ${total} node(s)${selector ? ` matching ${selector}` : ''}${
        sel.skipped.length ? ` (${sel.skipped.length} skipped: ${why})` : ''
      }`;
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 403) return undefined;
      throw e;
    }
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
    const { findReferencedTargets } = await import('../core/erase/referenced-targets.js');
    let found;
    try {
      found = await findReferencedTargets(rest, targets);
    } catch (e) {
      process.stderr.write(
        `warning: could not read the inventory to check who uses these images: ${(e as Error).message}\n`,
      );
      return;
    }
    if (found.length === 0) return;
    const c = colors(process.stderr);
    for (const f of found)
      process.stderr.write(c.yellow(`warning: ${f.target} is referenced by ${f.users.join(', ')}\n`));
    if (noPrompt || !process.stdin.isTTY) return;
    const ok = await confirm(
      `Remove them anyway ${await where()}? The next start of those workloads pulls them again.`,
    );
    if (!ok) failLine(this, 'aborted: nothing was submitted');
  }

  /** A schedule was written: say when it runs next, and that nothing waits for it. */
  private renderScheduled(
    name: string,
    generation: number,
    output: EraseOutput,
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
    if (output === 'name') return void process.stdout.write(`imagelist/${name}\n`);
    process.stdout.write(
      `imagelist/${name} generation ${generation}: schedule "${spec.schedule}" (${spec.timeZone})${
        flags.suspend ? ', suspended' : `, next run ${out.nextRun}`
      }.\nNot waiting for a run: the erase controllers of \`inv watch\` start each run; \`kubectl get imagelist ${name}\` shows the last and next run.\n`,
    );
  }
}

/** What ^C leaves behind, and how to follow or cancel it. */
function interruptHint(
  list: string,
  generation: number,
  job: string | undefined,
  standalone: boolean,
): string {
  if (!job)
    return `imagelist/${list} generation ${generation} was submitted and its job starts without this command: follow it with \`inv erase status --name ${list} --follow\`, then cancel it with \`inv erase cancel JOB\` if you must`;
  if (standalone)
    return `job ${job} stays in the cluster, unfinished, and nothing runs it now that this process (--standalone) stops; its worker Pods may still be running: finish it with \`inv erase status ${job} --follow --standalone\`, or cancel it with \`inv erase cancel ${job} --standalone\``;
  return `job ${job} keeps running in the cluster: follow it with \`inv erase status ${job} --follow\`, or cancel it with \`inv erase cancel ${job}\``;
}
