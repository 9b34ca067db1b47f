// How `inv erase status` and `inv erase cancel` pick the job they act on, the same way: a JOB
// argument, or --name LIST for that ImageList's last job; never both. Status alone falls back
// to the newest job (showing is harmless); cancel asks for one of the two (stopping someone
// else's newest job by accident is not).
import * as resources from '../../core/kube/resources.js';
import { Args, Flags } from '@oclif/core';
import { newestJob } from '../../core/erase-request/follow.js';
import { type ImageList } from '../../core/erase/api/types.js';
import { isNotFound, type KubeRest } from '../../core/kube/rest.js';
import { completes } from '../completion/sources.js';

export const jobArg = (what: string) => ({
  job: completes(
    'imagejobs',
    Args.string({ description: `ImageJob name (or --name LIST for its last job)${what}.` }),
  ),
});

export const jobNameFlag = {
  name: completes(
    'imagelists',
    Flags.string({ description: 'ImageList whose last job to use (instead of JOB).' }),
  ),
};

/** A problem with the selection as given, or undefined. */
export function jobSelectProblem(
  job: string | undefined,
  list: string | undefined,
  required: boolean,
): string | undefined {
  if (job && list) return 'give JOB or --name, not both';
  if (required && !job && !list) return 'give the job: JOB, or --name LIST for the ImageList’s last job';
  return undefined;
}

/** The last job of ImageList `list` (a scheduled list's last run, else its newest job). */
export async function lastJobOf(rest: KubeRest, list: string): Promise<{ job?: string; problem?: string }> {
  let l: ImageList;
  try {
    l = await resources.get<ImageList>(rest, 'ImageList', undefined, list);
  } catch (e) {
    if (isNotFound(e)) return { problem: `imagelist ${list} not found` };
    throw e;
  }
  const job = l.status?.lastJob ?? (await newestJob(rest, list));
  return job ? { job } : { problem: `imagelist ${list} has no job (yet)` };
}
