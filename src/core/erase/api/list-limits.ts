// Limits an ImageList must meet to be able to run at all. Past them, what the list needs is
// refused by the API server later, on every retry: the list's name goes into a label on its
// jobs (63 characters at most), and its targets go to the workers in one ConfigMap (1 MiB at
// most), so such a list used to be accepted and then never run.
// They are refused up front, with the same words at each door: `inv erase` before it writes
// anything (exit 2), the CRD's CEL rules (deploy/crds: the same limits, written in CEL), and the
// ImageList controller (phase Error), for a list that reached the server without those rules (a
// CRD installed by an older `inv install`). Rejecting was chosen over making such lists work
// (hashing the label value, splitting the targets over several ConfigMaps): every reader of the
// label and of the targets would have to change with it, and the ImageJob itself carries the
// targets, so a list near the API server's own request limit could still never run.
// Pure: plain values in, messages out.

/** Kubernetes' limit on a label value, which the list's name becomes on its jobs. */
export const MAX_LIST_NAME_LENGTH = 63;

/**
 * The targets as JSON (`["a","b"]`, what the workers' ConfigMap holds), in bytes. A ConfigMap
 * holds at most 1 MiB (1,048,576 bytes, keys included); 1,000,000 leaves room for the key and
 * keeps the ImageJob, which carries the targets as well, well under the API server's limit.
 */
export const MAX_TARGETS_BYTES = 1_000_000;

/** The same ConfigMap limit for the administrator's merged exclusions (`<job>-exclude`). */
export const MAX_EXCLUSIONS_BYTES = 1_000_000;

/**
 * An ImageJob is stored whole (spec and status) in etcd, which refuses a request over 1.5 MiB
 * by default; the spec may take this much, leaving the rest to the status (status-budget.ts
 * measures what is left before every status write).
 */
export const MAX_JOB_SPEC_BYTES = 1_250_000;

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/** The name's problem ('' when it fits). The CRD's rule on metadata.name says the same. */
export function listNameProblem(name: string): string {
  if (name.length <= MAX_LIST_NAME_LENGTH) return '';
  return `the ImageList name is longer than ${MAX_LIST_NAME_LENGTH} characters: it is also a label value on the list's jobs, which Kubernetes limits to ${MAX_LIST_NAME_LENGTH} characters`;
}

/** The targets' problem ('' when they fit). The CRD's rule on spec.images says the same. */
export function targetsSizeProblem(images: readonly string[]): string {
  if (jsonBytes(images) <= MAX_TARGETS_BYTES) return '';
  return `the targets take more than ${MAX_TARGETS_BYTES} bytes as JSON: the workers get them in one ConfigMap, which Kubernetes limits to 1 MiB; split them over several ImageLists`;
}

/** Every limit of the list itself ([] when it can run): for `inv erase` and the controller. */
export function listLimitProblems(name: string, images: readonly string[]): string[] {
  return [listNameProblem(name), targetsSizeProblem(images)].filter(Boolean);
}

/**
 * The limits of the job the controller is about to create, once the administrator's exclusions
 * and configuration are known ('' when it fits): otherwise the API server would refuse the job
 * or its exclusion ConfigMap on every retry.
 */
export function jobSizeProblem(spec: { exclusions?: readonly string[] }): string {
  const exclusions = jsonBytes(spec.exclusions ?? []);
  if (exclusions > MAX_EXCLUSIONS_BYTES)
    return `the exclusion lists take ${exclusions} bytes as JSON, more than ${MAX_EXCLUSIONS_BYTES}: the workers get them in one ConfigMap, which Kubernetes limits to 1 MiB; the administrator must shorten them`;
  const total = jsonBytes(spec);
  if (total > MAX_JOB_SPEC_BYTES)
    return `the ImageJob would take ${total} bytes (targets, exclusions and configuration), more than ${MAX_JOB_SPEC_BYTES}: the API server stores at most 1.5 MiB per object; use fewer targets or shorter exclusion lists`;
  return '';
}
