// What an ImageJob's status may take, so that every status write fits: etcd refuses a request
// over 1.5 MiB (its default --max-request-bytes), and the object it stores is the whole job as
// JSON: metadata with managedFields, the spec (the targets alone up to 1 MB, list-limits.ts) and
// the status. The node results (status.nodes) are the part that grows with the cluster; they get
// what the rest of the object leaves, less a margin, in the first form that fits:
//   1. every entry whole (NODES_BUDGET at most, node-status.ts);
//   2. abridged (the counts no total is made of left out, as before);
//   3. packed: the whole entries as gzip'd JSON in base64, in status.nodesPacked (EKS-style names
//      and repeated counts pack about tenfold: 5,000 nodes beside a 1 MB list fit);
//   4. packed and abridged.
// When none fits, the job cannot record its nodes: fitNodes says why and the controller fails the
// job with that reason (imagejob/status-fit.ts) rather than have every write refused.
// managedFields: a status.nodes declared as a map list (CRDs before this version) costs one
// managedFields entry per node (about 120 bytes plus the node's name); the measured managedFields
// show whether the server keeps them, and until they show the list is atomic, form 1 and 2 are
// charged for them. PURE.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { NodeResult } from '../../contract/results.js';
import { ABRIDGED, decodeNodes, encodeNodes, NODES_BUDGET, type NodeStatus } from './node-status.js';
import type { ImageJob } from './types.js';

/** etcd's default --max-request-bytes: the largest object the API server can store. */
export const ETCD_REQUEST_LIMIT = 1_572_864;
/**
 * Kept free of the limit: etcd's key and transaction, the server's own serialization (field
 * order, timestamps it sets), managedFields that change with a write, fields of the status
 * that change after the budget is taken.
 */
export const STATUS_MARGIN = 32 * 1024;
/** The gzip'd JSON this version unpacks at most (a packed field read back is input too). */
const MAX_UNPACKED = 16 * 1024 * 1024;

export type NodesFit =
  | { nodes: NodeStatus[]; nodesPacked?: undefined; form: 'whole' | 'abridged'; bytes: number }
  | { nodes?: undefined; nodesPacked: string; form: 'packed' | 'packed-abridged'; bytes: number }
  | { problem: string; bytes: number };

const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '');

/** status.nodes as gzip'd JSON in base64. Deterministic: the same entries pack the same. */
export const packNodes = (nodes: readonly NodeStatus[]): string =>
  gzipSync(JSON.stringify(nodes), { level: 9 }).toString('base64');

/** The entries of a packed status.nodes; throws on anything else. */
export function unpackNodes(packed: string): unknown[] {
  const json = gunzipSync(Buffer.from(packed, 'base64'), { maxOutputLength: MAX_UNPACKED }).toString();
  const v: unknown = JSON.parse(json);
  if (!Array.isArray(v)) throw new Error('status.nodesPacked does not hold a list');
  return v;
}

/** The managedFields a map-keyed status.nodes would add for these entries (an upper estimate). */
export function perNodeManagedFields(nodes: readonly NodeStatus[]): number {
  let n = 0;
  for (const e of nodes) {
    // "k:{\"node\":\"<name>\"}":{".":{},"f:node":{},"f:outcome":{},...},
    n += Buffer.byteLength(e.node) + 32;
    for (const k of Object.keys(e)) n += k.length + 8;
  }
  return n;
}

/** True when the job's managedFields show status.nodes held as one atomic field. */
export const nodesAtomic = (job: ImageJob): boolean =>
  JSON.stringify(job.metadata.managedFields ?? []).includes('"f:nodes":{}') &&
  !JSON.stringify(job.metadata.managedFields ?? []).includes('k:{\\"node\\"');

/**
 * The bytes status.nodes (or nodesPacked) may take in `job` as it will be written: the limit
 * less the margin and everything else in the object (metadata with managedFields, spec, the
 * rest of the status, measured as JSON). Negative when even that does not fit.
 */
export function roomForNodes(job: ImageJob): number {
  const { nodes: _n, nodesPacked: _p, ...rest } = job.status ?? {};
  return ETCD_REQUEST_LIMIT - STATUS_MARGIN - bytesOf({ ...job, status: rest }) - 32;
}

/** The node results in the first form that fits `room` bytes (see the top of this file). */
export function fitNodes(results: readonly NodeResult[], room: number, atomic: boolean): NodesFit {
  const whole = encodeNodes(results, Infinity);
  const cost = (n: NodeStatus[]) => bytesOf(n) + (atomic ? 0 : perNodeManagedFields(n));
  const plainRoom = Math.min(room, NODES_BUDGET);
  const c1 = cost(whole);
  if (c1 <= plainRoom) return { nodes: whole, form: 'whole', bytes: c1 };
  const abridged = whole.map((e) => {
    const o = { ...e };
    for (const k of ABRIDGED) delete o[k];
    return o;
  });
  const c2 = cost(abridged);
  if (c2 <= plainRoom) return { nodes: abridged, form: 'abridged', bytes: c2 };
  const p1 = packNodes(whole);
  // "nodesPacked":"...", with its quotes
  if (p1.length + 16 <= room) return { nodesPacked: p1, form: 'packed', bytes: p1.length + 16 };
  const p2 = packNodes(abridged);
  if (p2.length + 16 <= room) return { nodesPacked: p2, form: 'packed-abridged', bytes: p2.length + 16 };
  return {
    problem: `the results of ${results.length} node(s) take ${p2.length} bytes even packed, and the ImageJob leaves ${Math.max(0, room)} for them: etcd stores at most ${ETCD_REQUEST_LIMIT} bytes per object, and the spec (the targets) takes the rest; use fewer targets or select fewer nodes per list`,
    bytes: p2.length,
  };
}

/**
 * Every node's result as the status holds it (status.nodesPacked when set, else status.nodes);
 * with `lenient`, entries this version cannot read are left out (and a packed field it cannot
 * unpack reads as none).
 */
export function statusNodes(
  st: { nodes?: readonly unknown[]; nodesPacked?: string } | undefined,
  lenient = false,
): NodeResult[] {
  if (!st?.nodesPacked) return decodeNodes(st?.nodes, lenient);
  let entries: unknown[];
  try {
    entries = unpackNodes(st.nodesPacked);
  } catch (e) {
    if (lenient) return [];
    throw new Error(`status.nodesPacked cannot be read: ${(e as Error).message}`);
  }
  return decodeNodes(entries, lenient);
}
