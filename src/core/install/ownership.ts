// Whose is an existing object? `inv install` changes and `inv uninstall` deletes only objects
// that inv wrote; a same-named object someone else made (another team's ClusterRole, a CRD
// installed by another tool) is named and left alone unless the administrator says
// --force-conflicts.
//
// Written by inv means either of:
// - a managedFields entry of the field manager "inv" (every `inv install` applies with it);
// - the label app.kubernetes.io/part-of=image-inventory, which every object of the bundle
//   carries: an installation made with `kubectl apply -k deploy/` (client-side apply, other
//   field managers) has it, and upgrading that with `inv install` must keep working.
// Pure: takes the objects as read, no I/O.
import { displayName, FIELD_MANAGER, type KubeObject } from '../kube/apply.js';
import { PART_OF, PART_OF_LABEL } from './bundle.js';

interface ManagedFieldsEntry {
  manager?: string;
  subresource?: string;
}

/**
 * The field managers recorded on an object, in order, without repeats. Without `status`, those
 * that wrote only its status (the API server on a CRD, controllers): they report on the object,
 * they do not say whose it is.
 */
export function fieldManagers(o: KubeObject, opts: { status?: boolean } = {}): string[] {
  const entries = (o.metadata.managedFields as ManagedFieldsEntry[] | undefined) ?? [];
  return [
    ...new Set(
      entries
        .filter((e) => opts.status !== false || e.subresource !== 'status')
        .map((e) => e.manager ?? '')
        .filter(Boolean),
    ),
  ];
}

export function writtenByInv(o: KubeObject): boolean {
  return o.metadata.labels?.[PART_OF_LABEL] === PART_OF || fieldManagers(o).includes(FIELD_MANAGER);
}

/** An existing object of one of the bundle's names that inv did not write. */
export interface ForeignObject {
  /** kubectl's short form: clusterrole.rbac.authorization.k8s.io/name */
  name: string;
  kind: string;
  namespace?: string;
  /** Who wrote it (field managers); empty when the object records none. */
  managers: string[];
  /** Its part-of label, when it has another value than ours. */
  partOf?: string;
}

export function foreignObject(cur: KubeObject): ForeignObject | undefined {
  if (writtenByInv(cur)) return undefined;
  return {
    name: displayName(cur),
    kind: cur.kind,
    namespace: cur.metadata.namespace,
    managers: fieldManagers(cur, { status: false }),
    partOf: cur.metadata.labels?.[PART_OF_LABEL],
  };
}

/** One line: the object, where it lives and who manages it. */
export function describeForeign(f: ForeignObject): string {
  const where = f.namespace ? `in namespace ${f.namespace}` : 'cluster-scoped';
  const who = f.managers.length ? `managed by ${f.managers.join(', ')}` : 'no field manager recorded';
  const label = f.partOf ? `, ${PART_OF_LABEL}=${f.partOf}` : '';
  return `${f.name} (${f.kind}, ${where}): ${who}${label}`;
}

/** Why uninstall keeps an object, or undefined when inv wrote it. */
export function notOurs(cur: KubeObject): string | undefined {
  const f = foreignObject(cur);
  if (!f) return undefined;
  const who = f.managers.length ? `managed by ${f.managers.join(', ')}` : 'no field manager recorded';
  return `not installed by inv (${who}; no label ${PART_OF_LABEL}=${PART_OF})`;
}

/** Install refused: these objects exist and are someone else's. Nothing of them was changed. */
export class ForeignObjectsError extends Error {
  constructor(
    readonly foreign: ForeignObject[],
    /** Objects already applied before the refusal (only when one appeared while installing). */
    readonly applied: string[] = [],
  ) {
    const n = foreign.length;
    super(
      `${n} object${n === 1 ? '' : 's'} of the bundle already exist${n === 1 ? 's' : ''} and ` +
        `${n === 1 ? 'was' : 'were'} not written by inv; ` +
        (applied.length
          ? `${applied.length} other object${applied.length === 1 ? ' was' : 's were'} applied before this one appeared, nothing of it changed:\n`
          : 'nothing was changed:\n') +
        foreign.map((f) => `  ${describeForeign(f)}\n`).join('') +
        'Rename or remove them, or take them over with --force-conflicts (inv then owns them, and `inv uninstall` deletes them).',
    );
    this.name = 'ForeignObjectsError';
  }
}
