// Which ImageJobs the ImageJob controller acts on: only those the ImageList controller created,
// proven by a controller ownerReference to a live ImageList whose UID matches the one the job
// records. Anyone else's ImageJob is refused (marked Failed, nothing created). Even a trusted
// job's worker settings come from the administrator's configuration (settings.ts), so an
// ImageJob, forged or not, can choose which images go and on which nodes (narrowing only), never
// what runs there. A job not started yet must also ask for exactly what its list asks for
// (specProblem): a copy of a live dry-run list's owner and UID that asks for other images, or
// for a real run, is refused.
import { isDeepStrictEqual } from 'node:util';
import type { EraseReader } from '../../cluster/reader.js';
import { parseDuration } from '../../config/config.js';
import { hasScope } from '../../../refs/scope.js';
import { API_VERSION, type ImageJob, type ImageList } from '../../api/types.js';

/** Pure: what is wrong with the job's claim to come from an ImageList, or undefined. */
export function ownerProblem(job: ImageJob): string | undefined {
  const refs = job.metadata.ownerReferences ?? [];
  const ref = refs.find((r) => r.controller === true);
  if (!ref || ref.kind !== 'ImageList' || ref.apiVersion !== API_VERSION) {
    return 'not created by the ImageList controller (no controller ownerReference to an ImageList)';
  }
  const want = job.spec?.imageList;
  if (!want || ref.uid !== want.uid || ref.name !== want.name) {
    return `its ownerReference (ImageList ${ref.name}, UID ${ref.uid}) does not match spec.imageList`;
  }
  return undefined;
}

/**
 * Pure: where the job's request differs from what the ImageList controller makes of the list
 * (imagelist-controller.ts), or undefined. Settings the administrator's configuration supplies
 * (exclusions, which only keep images; a default rollout, which only slows a job) are not the
 * list's to decide and are not compared; the worker's settings are never read from a job.
 */
export function specProblem(job: ImageJob, list: ImageList): string | undefined {
  const name = list.metadata.name;
  const gen = list.metadata.generation ?? 1;
  if (job.spec.imageList.generation !== gen) {
    // The list moved on before this job started (it waited in the queue, or the update came
    // within milliseconds). The list's status, which only the ImageList controller writes, says
    // whether that controller made this job from that generation; only then does it run.
    const st = list.status;
    if (st?.lastJob === job.metadata.name && st.lastJobGeneration === job.spec.imageList.generation)
      return undefined;
    return `made for generation ${job.spec.imageList.generation} of ImageList ${name}, which is at generation ${gen}, and not the job its controller started: its request cannot be checked against the list`;
  }
  const j = job.spec;
  const l = list.spec;
  const fields: [string, unknown, unknown][] = [
    ['images', j.images, l.images],
    ['dryRun', j.dryRun ?? false, l.dryRun ?? false],
    ['nodeSelector', j.nodeSelector || undefined, l.nodeSelector || undefined],
    ['protectInventory', j.protectInventory !== false, l.protectInventory !== false],
    ['scan', j.scan, l.scan || undefined],
    ['imageFs', j.imageFs, l.imageFs || undefined],
    ['minUnusedAge', j.minUnusedAge || undefined, l.minUnusedAge || undefined],
    ['scope', j.scope, hasScope(l.scope) ? l.scope : undefined],
    ['keepNewest', j.keepNewest, l.keepNewest],
  ];
  if (l.rollout) fields.push(['rollout', j.rollout, l.rollout]);
  if (l.jobTimeout) {
    let want: number | undefined;
    try {
      want = parseDuration(l.jobTimeout, 'spec.jobTimeout');
    } catch {
      want = undefined;
    }
    fields.push(['jobTimeout', j.config?.jobTimeoutSeconds, want]);
  }
  const differ = fields.filter(([, a, b]) => !isDeepStrictEqual(a, b)).map(([f]) => f);
  return differ.length
    ? `its spec differs from what ImageList ${name} asks for (${differ.join(', ')})`
    : undefined;
}

/**
 * ownerProblem, then the live check: the ImageList exists with that UID; with `checkSpec` (a
 * job not started yet), its request is the list's (specProblem).
 */
export async function trustProblem(
  reader: EraseReader,
  job: ImageJob,
  checkSpec = false,
): Promise<string | undefined> {
  const problem = ownerProblem(job);
  if (problem) return problem;
  const { name, uid } = job.spec.imageList;
  const list = await reader.list(name);
  if (!list) return `ImageList ${name} (UID ${uid}) does not exist`;
  if (list.metadata.uid !== uid) return `ImageList ${name} has UID ${list.metadata.uid}, not ${uid}`;
  return checkSpec ? specProblem(job, list) : undefined;
}
