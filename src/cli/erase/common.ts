// What `inv erase`, `inv erase status` and `inv erase cancel` share: output and namespace flags,
// the in-process controllers of --standalone, following a job with a spinner (TTY) or a
// progress line on stderr at least every 30 s (no TTY), and what ^C leaves behind.
import { Flags } from '@oclif/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { follow, type FollowOptions, type RequestSnapshot } from '../../core/erase-request/follow.js';
import type { EraseReport } from '../../core/erase-request/report.js';
import { DEFAULT_CONFIG_NAMESPACE, DEFAULT_NAMESPACE } from '../../core/erase/api/types.js';
import type { KubeRest } from '../../core/kube/rest.js';
import type { SourceKindSpec } from '../../core/inventory/source-kinds.js';
import { cliControllerLogger } from '../process/controller-log.js';
import { ERASE_OUTPUTS, progressLine } from './render.js';
import { spinner } from '../output/style.js';
import { outputFlags, sortByFlag } from '../flags.js';
import { completes } from '../completion/sources.js';

export { ERASE_OUTPUTS, printReport, type EraseOutput } from './render.js';

/** The shared `-o`, `--no-headers` and `--sort-by` (src/cli/flags.ts); json and yaml print an EraseReport. */
export const eraseOutputFlags = {
  ...outputFlags(ERASE_OUTPUTS),
  ...sortByFlag('per-node results (.results[*])', '.node'),
};

export const workersNamespaceFlag = {
  'workers-namespace': completes(
    'namespaces',
    Flags.string({
      description: "Namespace of the erase controllers' worker Pods: the daemon's --erase-namespace.",
      default: DEFAULT_NAMESPACE,
    }),
  ),
  'config-namespace': completes(
    'namespaces',
    Flags.string({
      description:
        "Namespace of the erase configuration (ConfigMap inv-erase-config) and exclusion lists: the daemon's --erase-config-namespace.",
      default: DEFAULT_CONFIG_NAMESPACE,
    }),
  ),
};

export const standaloneFlag = {
  standalone: Flags.boolean({
    description: 'Run the erase controllers in this process until the job finishes (no daemon needed).',
  }),
};

/** Starts the controllers in this process (installing the CRDs first); stop them with `signal`. */
export async function startStandalone(
  kc: KubeConfig,
  rest: KubeRest,
  namespace: string,
  signal: AbortSignal,
  configNamespace?: string,
  sourceKinds?: SourceKindSpec[],
): Promise<{ done: Promise<void> }> {
  // The CRDs only, checked as `inv install` does: a same-named CRD that inv did not write is
  // refused, not replaced.
  const { install } = await import('../../core/install/install.js');
  await install(rest, { daemon: false, crdsOnly: true, timeoutMs: 30_000 });
  // A `*` prune protects what the daemon's would: the kinds declared in its ConfigMap (in the
  // configuration namespace, where `inv install` puts it), or those of --source-kinds.
  const { kindsLikeTheDaemon } = await import('../../core/inventory/source-kinds-configmap.js');
  const kinds = await kindsLikeTheDaemon(
    rest,
    configNamespace ?? DEFAULT_CONFIG_NAMESPACE,
    sourceKinds,
    (s) => process.stderr.write(`warning: source kind skipped: ${s.reason}\n`),
  );
  const { EraseControllers } = await import('../../core/erase/controllers.js');
  const { ScanProtection } = await import('../../core/erase/worker/inventory-protection.js');
  const done = new EraseControllers({
    kubeConfig: kc,
    namespace,
    configNamespace,
    jobResyncMs: 2000,
    logger: cliControllerLogger(),
    protection: new ScanProtection(rest, kinds),
  }).start(signal);
  return { done };
}

/**
 * Without a terminal, whether to print the progress line now: the first one at once, a change
 * at most every 5 s (5,000 nodes finishing would otherwise print a line a second), and a line at
 * least every 30 s whatever happens, so a CI log shows the command is alive.
 */
export function progressDue(printedAt: number, changed: boolean, now: number): boolean {
  return printedAt === 0 || (changed && now - printedAt >= 5000) || now - printedAt >= 30_000;
}

/**
 * Follows a job to its end: a spinner with the counts and elapsed time on a TTY, otherwise a
 * progress line on stderr when something changes (at most every 5 s) and at least every 30 s.
 */
export async function followWithProgress(
  rest: KubeRest,
  look: () => Promise<RequestSnapshot>,
  opts: FollowOptions & { spin: boolean; onReport?: (r: EraseReport) => void },
): Promise<EraseReport> {
  const started = Date.now();
  const spin = spinner('Waiting for the job to start', opts.spin);
  let last: EraseReport | undefined;
  let printedKey = '';
  let printedAt = 0;
  const key = (r: EraseReport) => JSON.stringify([r.job, r.phase, r.nodes]);
  // Called on every poll and every second between polls (the elapsed time moves on, and the
  // 30 s line is due even while a poll hangs).
  const tick = () => {
    if (!last) return;
    const line = progressLine(last, Date.now() - started);
    if (spin) {
      spin.text = line;
      return;
    }
    const now = Date.now();
    if (progressDue(printedAt, key(last) !== printedKey, now)) {
      printedKey = key(last);
      printedAt = now;
      process.stderr.write(`${line}\n`);
    }
  };
  const timer = setInterval(tick, 1000);
  try {
    return await follow(rest, look, {
      ...opts,
      onProgress: (r) => {
        opts.onReport?.(r);
        last = r;
        tick();
      },
    });
  } finally {
    clearInterval(timer);
    spin?.stop();
  }
}

/** What ^C leaves behind once `inv erase` has submitted, and how to follow or cancel it. */
export function interruptHint(
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
