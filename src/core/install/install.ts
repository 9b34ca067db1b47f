// `inv install`: server-side applies the CRDs (and, with the daemon, the whole deploy/ bundle)
// in dependency order, then waits until the CRDs are Established so that `inv scan` can run
// right after. Never deletes anything: an object dropped from a newer bundle stays until
// `inv uninstall` or the administrator removes it.
//
// Never takes over someone else's object (ownership.ts). Install first reads every object of
// the bundle and refuses before writing anything when one exists that inv did not write, so a
// refusal leaves nothing half-installed. Each write then carries the resourceVersion that was
// checked (or, for an object that was absent, creates only): an object someone creates or
// changes between the check and the write is checked again, never overwritten unseen. Objects
// annotated create-only (the erase configuration) are created when missing and otherwise never
// touched, whoever wrote them: the administrator's own configuration is not a conflict.
import { deploymentImage, followDaemon, isEraseConfig, withDaemonImage } from './worker-image.js';
import {
  applyObject,
  bundlePath,
  bundleRef,
  displayName,
  FIELD_MANAGER,
  type KubeObject,
} from '../kube/apply.js';
import { collectionPath } from '../kube/resources.js';
import { CONFIG_KEY } from '../erase/config/config.js';
import { waitEstablished } from '../kube/crd-install.js';
import { isAlreadyExists, isConflict, isNotFound, type KubeRest } from '../kube/rest.js';
import { applyOrder, readBundle } from './bundle.js';
import { describeForeign, foreignObject, ForeignObjectsError, type ForeignObject } from './ownership.js';
import { SOURCE_KINDS_CONFIGMAP, withSourceKinds } from './source-kinds.js';
import type { DaemonImage } from './worker-image.js';
import type { SourceKindSpec } from '../inventory/source-kinds.js';

export { ForeignObjectsError };

/** What install did (or, in a dry run, would do) to one object. */
export type InstallAction = 'created' | 'configured' | 'unchanged' | 'taken over' | 'refused';

export interface InstallStep {
  name: string;
  action: InstallAction;
  /** For a refused or taken-over object: whose it was. */
  detail?: string;
}

export interface InstallOptions {
  /** Also the daemon: namespaces, RBAC, Deployment, NetworkPolicies. */
  daemon: boolean;
  /** The daemon's and the workers' image (worker-image.ts); undefined: the bundle's. */
  image?: string;
  /** Pull secrets of the daemon and the workers, by name. */
  imagePullSecrets?: readonly string[];
  /**
   * The CRDs alone (`inv erase --standalone`): never the erase configuration, whose absence
   * must fail a job closed rather than be filled with defaults on the way.
   */
  crdsOnly?: boolean;
  /** Take over objects of the bundle's names that inv did not write (server-side apply's force). */
  forceConflicts?: boolean;
  /** Declared source kinds for the daemon: the file's text and its kinds (plurals resolved). */
  sourceKinds?: { text: string; kinds: readonly SourceKindSpec[] };
  /** Deadline for the CRDs to become Established. */
  timeoutMs?: number;
  onApplied?: (step: InstallStep) => void;
}

/** Objects annotated so are created when missing and never changed afterwards (the erase configuration). */
export const INSTALL_ANNOTATION = 'imageinventory.dev/install';
export const isCreateOnly = (o: KubeObject): boolean =>
  (o.metadata.annotations as Record<string, string> | undefined)?.[INSTALL_ANNOTATION] === 'create-only';

/**
 * The ClusterRole whose labels add reading Images to the built-in `view`, `edit` and `admin`
 * roles: it comes with the Image CRD, so that a namespace's readers can read its inventory.
 */
export const isViewAggregation = (o: KubeObject): boolean =>
  o.kind === 'ClusterRole' &&
  (o.metadata.labels as Record<string, string> | undefined)?.[
    'rbac.authorization.k8s.io/aggregate-to-view'
  ] === 'true';

/**
 * The objects install would apply, in order. Without the daemon: the CRDs, the ClusterRole that
 * lets `view` read Images, and the erase configuration with its namespace (erase refuses to run
 * without it, `--standalone` too).
 */
export function installObjects(
  opts: Pick<InstallOptions, 'daemon' | 'image' | 'imagePullSecrets' | 'crdsOnly' | 'sourceKinds'>,
): KubeObject[] {
  let all = applyOrder(readBundle({ image: opts.image }));
  // The workers run the daemon's image too, with its pull secrets (worker-image.ts).
  const want = wanted(opts, all);
  if (want) all = withDaemonImage(all, want);
  if (opts.crdsOnly) return all.filter((o) => o.kind === 'CustomResourceDefinition');
  if (opts.sourceKinds) all = withSourceKinds(all, opts.sourceKinds.text, opts.sourceKinds.kinds);
  if (opts.daemon) return all;
  const config = all.find(
    (o) => o.kind === 'ConfigMap' && isCreateOnly(o) && o.metadata.name !== SOURCE_KINDS_CONFIGMAP,
  );
  return all.filter(
    (o) =>
      o.kind === 'CustomResourceDefinition' ||
      isViewAggregation(o) ||
      o === config ||
      (o.kind === 'Namespace' && o.metadata.name === config?.metadata.namespace),
  );
}

/**
 * Why install refuses without an image: nobody publishes one, so the user builds and pushes it
 * (`npm run image`, scripts/image.mjs, from a checkout).
 */
export const noImageAdvice = (bin: string): string =>
  `no image for the daemon and the erase workers: no registry publishes one, so build it from a checkout of inv and push it to a registry your nodes pull from (npm run image -- --push REGISTRY/inv:TAG), then: ${bin} install --daemon --image REGISTRY/inv:TAG (add --image-pull-secret NAME if the registry needs credentials)`;

/** The image (and pull secrets) of the daemon installed now, or undefined when there is none. */
export async function installedDaemonImage(rest: KubeRest): Promise<DaemonImage | undefined> {
  const dep = readBundle().find((o) => o.kind === 'Deployment')!;
  try {
    return deploymentImage(await rest.request<KubeObject>('GET', bundlePath(dep), { timeoutMs: 15_000 }));
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** What --image and --image-pull-secret ask for, when either is given. */
function wanted(
  opts: Pick<InstallOptions, 'image' | 'imagePullSecrets'>,
  objects: KubeObject[],
): DaemonImage | undefined {
  const pullSecrets = opts.imagePullSecrets ?? [];
  if (!opts.image && !pullSecrets.length) return undefined;
  const image = opts.image ?? deploymentImage(objects.find((o) => o.kind === 'Deployment'))?.image;
  return image ? { image, pullSecrets } : undefined;
}

/**
 * The erase configuration's step when it exists: its worker settings move with the daemon's when
 * they followed it (a write of that key alone, with the resourceVersion read), else a note.
 */
async function eraseConfigStep(
  rest: KubeRest | undefined,
  p: PlannedObject,
  plan: PlannedObject[],
  want: DaemonImage | undefined,
): Promise<InstallStep | undefined> {
  if (!want || !p.current || !isEraseConfig(p.object)) return undefined;
  const daemon = deploymentImage(plan.find((x) => x.object.kind === 'Deployment')?.current);
  const { text, note } = followDaemon(p.current, daemon, want);
  const name = displayName(p.object);
  if (text === undefined) return { name, action: 'unchanged', ...(note ? { detail: note } : {}) };
  const moved = `worker settings follow the daemon's (${want.image})${note ? `; ${note}` : ''}`;
  if (rest) {
    const cur = p.current as KubeObject & { data?: Record<string, string> };
    try {
      await rest.request('PUT', bundlePath(cur), {
        body: { ...cur, data: { ...cur.data, [CONFIG_KEY]: text } },
        query: { fieldManager: FIELD_MANAGER },
      });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return { name, action: 'unchanged', detail: 'changed by someone meanwhile: kept as it is' };
    }
  }
  return { name, action: 'configured', detail: moved };
}

/**
 * Creates `o` unless it exists: an administrator's later edits are never overwritten. Install
 * never changes such an object, so whoever wrote it, it is never refused or taken over.
 */
async function createIfMissing(rest: KubeRest, o: KubeObject): Promise<'created' | 'unchanged'> {
  try {
    await rest.request('POST', collectionPath(bundleRef(o)), {
      body: o,
      query: { fieldManager: FIELD_MANAGER },
    });
    return 'created';
  } catch (e) {
    if (isAlreadyExists(e)) return 'unchanged';
    throw e;
  }
}

/** One object of the bundle and what exists under its name now. */
export interface PlannedObject {
  object: KubeObject;
  /** The object as read; undefined when absent. */
  current?: KubeObject;
  /** Set when it exists and inv did not write it. */
  foreign?: ForeignObject;
}

async function planOne(rest: KubeRest, object: KubeObject): Promise<PlannedObject> {
  try {
    const current = await rest.request<KubeObject>('GET', bundlePath(object), { timeoutMs: 15_000 });
    return { object, current, foreign: isCreateOnly(object) ? undefined : foreignObject(current) };
  } catch (e) {
    if (isNotFound(e)) return { object };
    throw e;
  }
}

/** Reads every object of the bundle as it is now; writes nothing. */
export async function planInstall(rest: KubeRest, objects: KubeObject[]): Promise<PlannedObject[]> {
  const out: PlannedObject[] = [];
  for (const o of objects) out.push(await planOne(rest, o));
  return out;
}

const ATTEMPTS = 5;

/**
 * Applies one planned object. Absent: created, and only created. Present: applied with the
 * resourceVersion that was checked, forcing our fields (ours, or taken over on request). A 409
 * (changed, or created meanwhile) or a 404 (deleted meanwhile) means: read it again, decide again.
 */
async function applyPlanned(
  rest: KubeRest,
  first: PlannedObject,
  force: boolean,
  applied: string[],
): Promise<InstallStep> {
  let p = first;
  const name = displayName(p.object);
  if (isCreateOnly(p.object))
    return { name, action: p.current ? 'unchanged' : await createIfMissing(rest, p.object) };
  for (let attempt = 1; ; attempt++) {
    if (p.foreign && !force) throw new ForeignObjectsError([p.foreign], applied);
    try {
      if (!p.current) {
        await createObject(rest, p.object);
        return { name, action: 'created' };
      }
      const before = p.current.metadata.resourceVersion;
      const after = await applyObject(rest, p.object, { force: true, resourceVersion: before });
      if (after.metadata.resourceVersion === before) return { name, action: 'unchanged' };
      return p.foreign
        ? { name, action: 'taken over', detail: describeForeign(p.foreign) }
        : { name, action: 'configured' };
    } catch (e) {
      // Changed, created or deleted since it was read: read it again and decide again.
      const raced = isConflict(e) || (p.current && isNotFound(e));
      if (!raced || attempt >= ATTEMPTS) throw e;
      p = await planOne(rest, p.object);
    }
  }
}

/**
 * A resourceVersion no stored object has (etcd revisions count up from 1 and stay far below
 * 2^64-1). An apply that carries it creates an absent object, the precondition playing no part
 * in a create, and fails with 409 on any existing one: create-only, with server-side apply.
 */
export const NO_OBJECT_HAS_THIS_VERSION = '18446744073709551615';

/**
 * Creates an absent object with server-side apply, so that the field manager "inv" owns every
 * field (a later upgrade can then drop one), and only creates it: a same-named object that
 * appeared since the check is a 409, then read and checked again.
 */
async function createObject(rest: KubeRest, o: KubeObject): Promise<KubeObject> {
  return applyObject(rest, o, { force: false, resourceVersion: NO_OBJECT_HAS_THIS_VERSION });
}

export async function install(rest: KubeRest, opts: InstallOptions): Promise<InstallStep[]> {
  const objects = installObjects(opts);
  const plan = await planInstall(rest, objects);
  const foreign = plan.flatMap((p) => (p.foreign ? [p.foreign] : []));
  if (foreign.length && !opts.forceConflicts) throw new ForeignObjectsError(foreign);
  const out: InstallStep[] = [];
  const applied: string[] = [];
  const want = wanted(opts, objects);
  for (const p of plan) {
    const step =
      (await eraseConfigStep(rest, p, plan, want)) ??
      (await applyPlanned(rest, p, opts.forceConflicts ?? false, applied));
    out.push(step);
    applied.push(step.name);
    opts.onApplied?.(step);
  }
  await waitEstablished(
    rest,
    objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name),
    opts.timeoutMs ?? 60_000,
  );
  return out;
}

/** What the object would look like, without what every write changes. */
function comparable(o: KubeObject): string {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...meta } = o.metadata;
  return JSON.stringify({ ...o, metadata: meta });
}

/**
 * `inv install --dry-run=server`: what install would do to each object, refusals included;
 * the API server computes each apply (dryRun=All) and stores nothing.
 */
export async function dryRunInstall(
  rest: KubeRest,
  opts: Pick<InstallOptions, 'daemon' | 'image' | 'imagePullSecrets' | 'forceConflicts' | 'sourceKinds'>,
): Promise<InstallStep[]> {
  const objects = installObjects(opts);
  const plan = await planInstall(rest, objects);
  const want = wanted(opts, objects);
  const out: InstallStep[] = [];
  for (const p of plan) {
    const name = displayName(p.object);
    const config = await eraseConfigStep(undefined, p, plan, want);
    if (config) out.push(config);
    else if (!p.current) out.push({ name, action: 'created' });
    else if (isCreateOnly(p.object)) out.push({ name, action: 'unchanged' });
    else if (p.foreign && !opts.forceConflicts)
      out.push({ name, action: 'refused', detail: describeForeign(p.foreign) });
    else {
      const after = await applyObject(rest, p.object, {
        force: true,
        resourceVersion: p.current.metadata.resourceVersion,
        dryRun: true,
      });
      const changed = comparable(after) !== comparable(p.current);
      out.push(
        p.foreign
          ? { name, action: 'taken over', detail: describeForeign(p.foreign) }
          : { name, action: changed ? 'configured' : 'unchanged' },
      );
    }
  }
  return out;
}
