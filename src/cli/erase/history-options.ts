// `inv erase history` in kubectl's Options shape: the argument and flags as parsed are completed
// into HistoryOptions and validated together (every problem in one error, before any request).
// PURE: the time `--since 24h` counts back from is handed in.
import { parseDurationMs } from '../../core/duration.js';
import { isOutcome, OUTCOMES, type Outcome } from '../../core/contract/worker-summary.js';
import type { HistoryFilter } from '../../core/erase-request/history.js';
import type { historyFlags } from './history-flags.js';
import type { CommandFlagValues } from '../flags.js';

export type HistoryFlags = CommandFlagValues<typeof historyFlags>;

export interface HistoryOptions {
  filter: HistoryFilter;
  output: 'table' | 'wide' | 'json' | 'yaml' | `jsonpath=${string}` | `custom-columns=${string}`;
  noHeaders: boolean;
}

/** A time as RFC 3339, or a duration counted back from `now`; a problem naming the flag otherwise. */
function timeOf(flag: string, v: string, now: Date, problems: string[]): Date | undefined {
  if (/^\d{4}-\d\d-\d\d/.test(v)) {
    const t = Date.parse(v);
    if (Number.isNaN(t))
      problems.push(`--${flag}: not a time: ${JSON.stringify(v)} (RFC 3339, e.g. 2026-12-05T08:00:00Z)`);
    return Number.isNaN(t) ? undefined : new Date(t);
  }
  try {
    return new Date(now.getTime() - parseDurationMs(v, `--${flag}`));
  } catch (e) {
    problems.push(`${(e as Error).message} (or an RFC 3339 time)`);
    return undefined;
  }
}

export function completeHistoryOptions(
  job: string | undefined,
  flags: HistoryFlags,
  now: Date,
): { options: HistoryOptions; problems: string[] } {
  const problems: string[] = [];
  const outcomes: Outcome[] = [];
  for (const o of (flags.outcome ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (isOutcome(o)) outcomes.push(o);
    else problems.push(`--outcome: unknown outcome ${JSON.stringify(o)} (known: ${OUTCOMES.join(', ')})`);
  }
  const since = flags.since ? timeOf('since', flags.since, now, problems) : undefined;
  const until = flags.until ? timeOf('until', flags.until, now, problems) : undefined;
  if (since && until && since >= until) problems.push('--since must be before --until');
  return {
    options: {
      filter: {
        job,
        list: flags.name,
        nodes: flags.node ?? [],
        image: flags.image,
        outcomes,
        since,
        until,
      },
      output: flags.output as HistoryOptions['output'],
      noHeaders: !!flags['no-headers'],
    },
    problems,
  };
}
