// `inv erase status` in kubectl's Options shape: the argument and flags as parsed are completed
// into StatusOptions and validated together (every problem in one error, before any request);
// the command then only looks or follows as the options say. PURE.
import { parseDurationMs } from '../../core/duration.js';
import { attempt, sortByOption } from '../flag-problems.js';
import type { EraseOutput } from './common.js';
import { jobSelectProblem } from './job-select.js';
import type { statusFlags } from './status-flags.js';
import type { CommandFlagValues } from '../flags.js';

/** The flags `inv erase status` reads, as oclif parses them (./status-flags.ts). */
export type StatusFlags = CommandFlagValues<typeof statusFlags>;

export interface StatusOptions {
  /** The job by name, or the last job of the ImageList `list`; neither: the newest job. */
  job?: string;
  list?: string;
  follow: boolean;
  /** With follow: the whole wait. */
  timeoutMs: number;
  /** Run the controllers in this process while following. */
  standalone: boolean;
  workersNamespace: string;
  configNamespace: string;
  output: EraseOutput;
  noHeaders: boolean;
  sortBy?: string;
}

/** The options, and every problem with the argument and flags (each naming its flag). */
export function completeStatusOptions(
  job: string | undefined,
  flags: StatusFlags,
): { options: StatusOptions; problems: string[] } {
  const problems: string[] = [];
  const timeoutMs = attempt(problems, () => parseDurationMs(flags.timeout, '--timeout'));
  if (timeoutMs !== undefined && !(timeoutMs > 0))
    problems.push(`--timeout must be longer than 0s, got ${JSON.stringify(flags.timeout)}`);
  const selection = jobSelectProblem(job, flags.name, false);
  if (selection) problems.push(selection);
  if (flags.standalone && !flags.follow)
    problems.push('--standalone runs the controllers while following: add --follow');
  sortByOption(problems, flags['sort-by']);
  return {
    options: {
      job,
      list: flags.name,
      follow: !!flags.follow,
      timeoutMs: timeoutMs ?? 0,
      standalone: !!flags.standalone,
      workersNamespace: flags['workers-namespace'],
      configNamespace: flags['config-namespace'],
      output: flags.output as EraseOutput,
      noHeaders: !!flags['no-headers'],
      sortBy: flags['sort-by'],
    },
    problems,
  };
}
