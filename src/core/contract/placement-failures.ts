// The two ways a worker never runs on its node, as its node's reason starts them and as the
// metric inv_erase_workers_not_placed_total labels them: `unschedulable: ...` (the scheduler
// could not place it) and `rejected: ...` (the node's kubelet refused it at admission). Either
// fails the node (outcome Failed: the node was not cleaned; docs/erase.md says why not Skipped).
// PURE.

export const PLACEMENT_FAILURES = ['unschedulable', 'rejected'] as const;
export type PlacementFailureKind = (typeof PLACEMENT_FAILURES)[number];

/** Which of the two a node's reason says, if either. */
export const placementFailureKind = (reason: string): PlacementFailureKind | undefined =>
  PLACEMENT_FAILURES.find((k) => reason.startsWith(`${k}: `));
