// The registry of the kinds the inventory reads (their group, version and plural come from
// kube/kinds.ts, the table of every kind inv touches). Everything else about them is derived from it: which
// collections `inv scan` lists and `inv watch` watches, how objects are stripped, which fields
// the rules read, the watch predicates, `inv check`'s access list, the help texts, and the
// ClusterRole's inventory rules (test/unit/inventory/source-kinds.test.ts fails when deploy/ differs).
// Adding a built-in kind: one entry here (and its row in kube/kinds.ts), its rule in rules.ts only if it has a special one, and a
// test. Pure data and small pure helpers: no I/O.
import { apiVersionOf, KINDS, type KindName } from '../kube/kinds.js';
import type { ImageFieldPath } from './image-fields.js';

export interface SourceKindSpec {
  kind: string;
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  /** Where a namespace's objects of this kind are kept (NamespaceObjects). */
  key: string;
  /** Dotted paths to the PodSpecs the kind is credited with (`spec.template.spec`). */
  podSpecs: readonly string[];
  /**
   * Dotted paths to references (`{kind, name}`, e.g. Argo Rollouts' spec.workloadRef) to another
   * source object in the same namespace, whose PodSpecs this kind is credited with too.
   */
  workloadRefs?: readonly string[];
  /** Image string fields (`spec.steps[*].image`), parsed (./image-fields.ts). */
  imageFields?: readonly ImageFieldPath[];
  /**
   * Set for a cluster-scoped kind only: the namespace its objects count in (their Images are
   * kept there). Namespaced kinds (every built-in one) leave it unset.
   */
  namespace?: string;
  /** Declared by the administrator (--source-kinds), not built in. */
  declared?: boolean;
}

// A built-in kind's API facts (group, version, plural) come from the kube layer's kind table.
const api = (kind: KindName): Pick<SourceKindSpec, 'kind' | 'group' | 'version' | 'plural'> => {
  const { group, version, plural } = KINDS[kind];
  return { kind, group, version, plural };
};

/** The built-in source kinds, in the order they are listed and shown. */
export const BUILTIN_SOURCE_KINDS: readonly SourceKindSpec[] = [
  { ...api('Deployment'), key: 'deployments', podSpecs: ['spec.template.spec'] },
  { ...api('StatefulSet'), key: 'statefulSets', podSpecs: ['spec.template.spec'] },
  { ...api('DaemonSet'), key: 'daemonSets', podSpecs: ['spec.template.spec'] },
  { ...api('ReplicationController'), key: 'replicationControllers', podSpecs: ['spec.template.spec'] },
  { ...api('CronJob'), key: 'cronJobs', podSpecs: ['spec.jobTemplate.spec.template.spec'] },
  { ...api('Job'), key: 'jobs', podSpecs: ['spec.template.spec'] },
  { ...api('Pod'), key: 'pods', podSpecs: ['spec'] },
];

/**
 * Kinds read only for their metadata (owners), to follow an owned Pod's controller one step up:
 * a Pod's ReplicaSet tells whether a Deployment (credited already), a declared kind, or nothing
 * and nobody (a bare ReplicaSet, credited through its Pods) controls it.
 */
export interface OwnerKindSpec {
  kind: string;
  group: string;
  version: string;
  plural: string;
  key: string;
}
export const OWNER_KINDS: readonly OwnerKindSpec[] = [{ ...api('ReplicaSet'), key: 'replicaSets' }];

export { apiVersionOf };

/** The group of an ownerReference's or manifest's apiVersion (`apps/v1` → apps, `v1` → ''). */
export const groupOf = (apiVersion: string | undefined): string => {
  const i = apiVersion?.indexOf('/') ?? -1;
  return i < 0 ? '' : apiVersion!.slice(0, i);
};

/** The value at a dotted path, or undefined. */
const splitPaths = new Map<string, string[]>();
export function atPath(o: unknown, path: string): unknown {
  let parts = splitPaths.get(path);
  if (!parts) splitPaths.set(path, (parts = path.split('.')));
  let v = o;
  for (const p of parts) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

/** The source kinds in force: the built-in ones plus those the administrator declared. */
export class SourceKinds {
  readonly all: readonly SourceKindSpec[];
  // kind → group → spec: looked up once per owned Pod, without building a key string.
  private readonly byKindGroup = new Map<string, Map<string, SourceKindSpec>>();

  constructor(declared: readonly SourceKindSpec[] = []) {
    this.all = [...BUILTIN_SOURCE_KINDS, ...declared];
    for (const k of this.all) {
      let m = this.byKindGroup.get(k.kind);
      if (!m) this.byKindGroup.set(k.kind, (m = new Map()));
      m.set(k.group, k);
    }
  }

  get declared(): SourceKindSpec[] {
    return this.all.filter((k) => k.declared);
  }

  /** The source kind of a group and kind (an ownerReference's or a manifest's), if any. */
  find(group: string, kind: string): SourceKindSpec | undefined {
    return this.byKindGroup.get(kind)?.get(group);
  }

  /** The first source kind of this name (any group), if any. */
  byKind(kind: string): SourceKindSpec | undefined {
    return this.all.find((k) => k.kind === kind);
  }

  /** True when an owner of this apiVersion and kind is a source kind itself (credited already). */
  isSource(apiVersion: string | undefined, kind: string): boolean {
    // An ownerReference without apiVersion (hand-written) is matched by kind alone.
    if (apiVersion === undefined) return this.all.some((k) => k.kind === kind);
    return Boolean(this.find(groupOf(apiVersion), kind));
  }
}

export const BUILTIN = new SourceKinds();

/** "Deployments, StatefulSets, ... and Pods": for help texts, from the registry. */
export function kindsPhrase(kinds: readonly { kind: string }[] = BUILTIN_SOURCE_KINDS): string {
  const names = kinds.map((k) => `${k.kind}s`);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
