// Which ImageJobs the ImageJob controller acts on: only those the ImageList controller created,
// proven by a controller ownerReference to a live ImageList whose UID matches the one the job
// records. Anyone else's ImageJob is refused (marked Failed, nothing created). Even a trusted
// job's worker settings come from the administrator's configuration (settings.ts), so an
// ImageJob, forged or not, can choose which images go and on which nodes (narrowing only), never
// what runs there.
import type { EraseReader } from '../reader.js';
import { API_VERSION, type ImageJob } from '../api/types.js';

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

/** ownerProblem, then the live check: the ImageList exists with that UID. */
export async function trustProblem(reader: EraseReader, job: ImageJob): Promise<string | undefined> {
  const problem = ownerProblem(job);
  if (problem) return problem;
  const { name, uid } = job.spec.imageList;
  const list = await reader.list(name);
  if (!list) return `ImageList ${name} (UID ${uid}) does not exist`;
  if (list.metadata.uid !== uid) return `ImageList ${name} has UID ${list.metadata.uid}, not ${uid}`;
  return undefined;
}
