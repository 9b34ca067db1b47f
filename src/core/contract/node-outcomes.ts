// The outcomes of a node in a job (ImageJob status.nodes[].outcome), with every fact about each in
// one trait table: which of the job's counts it adds to, whether its worker ran to the end (so its
// Pod's summary lists the node's images), and its colour in `inv erase`'s table. A node outcome is
// one entry here: the compiler asks for each trait, and the readers of status.nodes
// (./results.ts, erase/api/node-status.ts), the requester's report and its renderer derive their
// lists from it. PURE.

/** The job count a node outcome adds to (results.ts JobCounts). */
export type NodeOutcomeCount = 'pending' | 'succeeded' | 'failed' | 'skipped';

export interface NodeOutcomeTraits {
  /** The job's count it adds to. */
  counts: NodeOutcomeCount;
  /** Its worker ran to the end: the Pod's summary lists the node's targets and images. */
  ran: boolean;
  /** Its colour in `inv erase`'s table of nodes (cli/erase/render.ts). */
  colour: 'green' | 'red' | 'yellow';
}

export const NODE_OUTCOME_TRAITS = {
  /** Not finished yet: planned, waiting for its wave, or its worker still running. */
  Pending: { counts: 'pending', ran: false, colour: 'yellow' },
  Succeeded: { counts: 'succeeded', ran: true, colour: 'green' },
  Failed: { counts: 'failed', ran: true, colour: 'red' },
  /** Not selected, not ready, or its rollout stopped: no worker ran there. */
  Skipped: { counts: 'skipped', ran: false, colour: 'yellow' },
} as const satisfies Record<string, NodeOutcomeTraits>;

export type NodeOutcome = keyof typeof NODE_OUTCOME_TRAITS;

export const NODE_OUTCOMES = Object.keys(NODE_OUTCOME_TRAITS) as readonly NodeOutcome[];

export const isNodeOutcome = (v: unknown): v is NodeOutcome =>
  typeof v === 'string' && Object.hasOwn(NODE_OUTCOME_TRAITS, v);

/** The traits of one node outcome. */
export const nodeTraitsOf = (o: NodeOutcome): NodeOutcomeTraits => NODE_OUTCOME_TRAITS[o];
