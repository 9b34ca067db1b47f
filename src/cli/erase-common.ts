// What `inv erase`, `inv erase status` and `inv erase cancel` share: output and namespace flags,
// the in-process controllers of --standalone, following a job with a spinner (TTY) or a
// progress line on stderr at least every 30 s (no TTY), and printing an EraseReport.
import { Flags } from '@oclif/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { follow, type FollowOptions, type RequestSnapshot } from '../core/erase/follow.js';
import type { EraseReport } from '../core/erase/report.js';
import { DEFAULT_NAMESPACE } from '../core/erase/types.js';
import type { KubeRest } from '../core/kube/rest.js';
import { cliControllerLogger } from './controller-log.js';
import {
  formatElapsed,
  progressLine,
  renderEraseReport,
  renderJobStatus,
  reportName,
} from './render-erase.js';
import { spinner, toJson, toYaml } from './style.js';
import { terminalWidth } from './table.js';

export const ERASE_OUTPUTS = ['table', 'wide', 'name', 'json', 'yaml'] as const;
export type EraseOutput = (typeof ERASE_OUTPUTS)[number];

export const eraseOutputFlags = {
  output: Flags.string({
    char: 'o',
    description:
      'Output format: table, wide (every column, full image IDs, image lists of real runs too), name (imagejob/NAME), json or yaml (an EraseReport, docs/schemas/EraseReport.json).',
    options: [...ERASE_OUTPUTS],
    default: 'table',
  }),
  'no-headers': Flags.boolean({ description: 'Tables without their header row and summary lines.' }),
};

export const workersNamespaceFlag = {
  'workers-namespace': Flags.string({
    description:
      "Namespace of the erase controllers' worker Pods and configuration (ConfigMap inv-erase-config): the daemon's --erase-namespace.",
    default: DEFAULT_NAMESPACE,
  }),
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
): Promise<{ done: Promise<void> }> {
  const { installCrds } = await import('../core/kube/crd-install.js');
  await installCrds(rest);
  const { EraseControllers } = await import('../core/erase/controllers.js');
  const done = new EraseControllers({
    kubeConfig: kc,
    namespace,
    jobResyncMs: 2000,
    logger: cliControllerLogger(),
  }).start(signal);
  return { done };
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
  let lastLine = '';
  let lastKey = '';
  let lastAt = 0;
  const key = (r: EraseReport) => JSON.stringify([r.job, r.phase, r.nodes]);
  const tick = (r?: EraseReport) => {
    if (r) lastLine = progressLine(r, Date.now() - started);
    if (spin) {
      if (r) spin.text = lastLine;
      return;
    }
    if (!lastLine) return;
    const now = Date.now();
    const changed = r !== undefined && key(r) !== lastKey;
    if ((changed && now - lastAt >= 5000) || now - lastAt >= 30_000 || lastAt === 0) {
      if (r) lastKey = key(r);
      lastAt = now;
      process.stderr.write(`${lastLine}\n`);
    }
  };
  // The elapsed time moves on between polls; so does the 30 s line when a poll hangs.
  const timer = setInterval(() => {
    if (spin && lastLine)
      spin.text = lastLine.replace(/, [^,]+$/, `, ${formatElapsed(Date.now() - started)}`);
    else if (!spin) tick();
  }, 1000);
  try {
    return await follow(rest, look, {
      ...opts,
      onProgress: (r) => {
        opts.onReport?.(r);
        tick(r);
      },
    });
  } finally {
    clearInterval(timer);
    spin?.stop();
  }
}

/** Prints a report in the chosen output; `status` adds the job's identity and timing. */
export function printReport(
  r: EraseReport,
  output: EraseOutput,
  opts: { noHeaders?: boolean; status?: boolean },
): void {
  if (output === 'json') return void process.stdout.write(toJson(r));
  if (output === 'yaml') return void process.stdout.write(toYaml(r));
  if (output === 'name') return void process.stdout.write(reportName(r));
  const o = { wide: output === 'wide', noHeaders: opts.noHeaders, width: terminalWidth() };
  process.stdout.write(opts.status ? renderJobStatus(r, Date.now(), o) : renderEraseReport(r, o));
}
