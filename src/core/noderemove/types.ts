// Shapes of `inv node-remove`: what the decision step produces and what the report carries.

export type Outcome =
  | 'removed'
  | 'would-remove'
  | 'in-use'
  | 'pinned'
  /** The sandbox (pause) image: the runtime's configured one, or the upstream pause image. */
  | 'sandbox-image'
  | 'excluded'
  /** A `*` prune kept it: a workload in the cluster references it (the job's protected set). */
  | 'protected'
  | 'not-present'
  | 'invalid'
  | 'failed';

/** A parsed removal target. */
export type Target =
  | { kind: 'all'; input: string }
  | { kind: 'id'; input: string; id: string }
  /** 12-63 hex digits of an ID; `ref` is the name reading of a bare hex string, tried first. */
  | { kind: 'id-prefix'; input: string; prefix: string; ref?: string }
  /** `name@digest`, matched against repoDigests. */
  | { kind: 'digest'; input: string; ref: string }
  /** normalized `name:tag`, matched against normalized repoTags. */
  | { kind: 'tag'; input: string; ref: string }
  | { kind: 'invalid'; input: string; reason: string };

/** One row of the decision: a target and one image it matched (or none). */
export interface Decision {
  target: string;
  /** '' when the target matched no image or was invalid. */
  imageId: string;
  /** Every name of the image: tags, digest refs, then the ID. */
  aliases: string[];
  /** The image's size as the runtime lists it (ListImages), in bytes; 0 when unknown or no image. */
  size: number;
  /** `remove` means "remove unless the re-check finds it in use". */
  action: 'remove' | 'keep';
  /** For keep: why (`failed`: refused for safety, the reason in detail). */
  outcome: Exclude<Outcome, 'removed' | 'would-remove'> | 'remove';
  /** Human explanation for the table (the JSON only carries `error`). */
  detail: string;
}

export interface Result {
  target: string;
  imageId: string;
  aliases: string[];
  /** Bytes, as the runtime listed the image (0 when there is no image). */
  size: number;
  outcome: Outcome;
  /** The error or refusal (failed) or the reason (invalid); '' otherwise. */
  error: string;
  /** Human explanation for the table; not part of the JSON report. */
  detail: string;
}

export interface RuntimeInfo {
  name: string;
  version: string;
  apiVersion: string;
}

/** What the removed (or, in a dry run, would-be-removed) images take, each image counted once. */
export function bytesFreed(results: readonly Result[]): number {
  const seen = new Set<string>();
  let n = 0;
  for (const r of results) {
    if ((r.outcome !== 'removed' && r.outcome !== 'would-remove') || seen.has(r.imageId)) continue;
    seen.add(r.imageId);
    n += r.size;
  }
  return n;
}

export interface Report {
  node: string;
  runtime: RuntimeInfo;
  results: Result[];
  /** Things the operator should know that are not a result (also printed on stderr). */
  warnings?: string[];
}
