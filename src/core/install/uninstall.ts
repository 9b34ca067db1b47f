// `inv uninstall`: deletes what `inv install` created, and nothing else.
//
// - Every bundle object, of every kind, is read first and deleted only if inv wrote it (its
//   field manager "inv" or our part-of label: ownership.ts), with its UID as a precondition (a
//   same-named object someone created in between stays). Anything else is kept and named.
// - A namespace of ours is kept when another field manager has written it (it may predate
//   `inv install`) or when it holds any object inv did not create, of any kind: a Secret, a
//   RoleBinding, the administrator's exclusion lists, or the erase configuration as the
//   administrator edited it (install wrote it once; the settings in it are theirs). Deleting
//   the namespace would delete them (namespace-leftovers.ts says which objects count).
// - The CRDs go only when asked (`--crds`), since deleting a CRD deletes every Image, ImageList
//   and ImageJob with it; countInstances() says how many, for the confirmation. A CRD of our
//   name that someone else installed (another tool, `kubectl apply -f crds/`) is kept too.
// - A dry run reads everything the same way and deletes nothing.
import * as resources from '../kube/resources.js';
import { kindInfo } from '../kube/kinds.js';
import { sleep } from '../concurrency.js';
import { bundlePath, displayName, FIELD_MANAGER, type KubeObject } from '../kube/apply.js';
import { OUR_CRDS, asCrdMissing, type OurCrd } from '../kube/crds.js';
import { isConflict, isNotFound, KubeApiError, type KubeRest } from '../kube/rest.js';
import { CLEANUP_FINALIZER } from '../erase/api/types.js';
import { applyOrder, readBundle } from './bundle.js';
import { namespaceContents, namespacedResources, type NamespacedResource } from './namespace-contents.js';
import { foreignObjects, type Uninstalled } from './namespace-leftovers.js';
import { notOurs } from './ownership.js';
import { installedDaemonImage, installObjects, isCreateOnly } from './install.js';

export type UninstallAction = 'deleted' | 'not found' | 'kept';

export interface UninstallStep {
  name: string;
  /** The namespace of a namespaced object. */
  namespace?: string;
  action: UninstallAction;
  /** Why an object was kept. */
  reason?: string;
  /** The UID of an object deleted (or, in a dry run, to be deleted): its dependents go with it. */
  uid?: string;
}

/** How many objects of each of our kinds exist; undefined for a kind whose CRD is absent. */
export async function countInstances(rest: KubeRest): Promise<Record<string, number | undefined>> {
  const out: Record<string, number | undefined> = {};
  for (const crd of OUR_CRDS) {
    try {
      const { items } = await resources.list<unknown, 0>(rest, kindInfo(crd.group, crd.kind), undefined, {
        map: () => 0,
      });
      out[crd.kind] = items.length;
    } catch (e) {
      if (!asCrdMissing(e)) throw e;
      out[crd.kind] = undefined;
    }
  }
  return out;
}

async function deleteIfOurs(
  rest: KubeRest,
  o: KubeObject,
  ours: (cur: KubeObject) => string | undefined | Promise<string | undefined>,
  dryRun = false,
): Promise<UninstallStep> {
  const name = displayName(o);
  const namespace = o.metadata.namespace;
  const p = bundlePath(o);
  let cur: KubeObject;
  try {
    cur = await rest.request<KubeObject>('GET', p, { timeoutMs: 15_000 });
  } catch (e) {
    if (isNotFound(e)) return { name, namespace, action: 'not found' };
    throw e;
  }
  const why = await ours(cur);
  if (why) return { name, namespace, action: 'kept', reason: why };
  const uid = cur.metadata.uid as string | undefined;
  if (dryRun) return { name, namespace, action: 'deleted', uid };
  try {
    await rest.request('DELETE', p, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: cur.metadata.uid } },
      query: { propagationPolicy: 'Background' },
      timeoutMs: 15_000,
    });
  } catch (e) {
    if (isNotFound(e)) return { name, namespace, action: 'not found' };
    throw e;
  }
  return { name, namespace, action: 'deleted', uid };
}

/**
 * A namespace that someone else created or changed (another field manager in managedFields)
 * may have been there before `inv install` applied its label to it: deleting it would take
 * whatever else lives in it. Only a namespace that inv alone has written is deleted.
 */
export function othersManage(cur: KubeObject): string | undefined {
  const managers = ((cur.metadata.managedFields as { manager?: string }[] | undefined) ?? [])
    .map((f) => f.manager ?? '')
    .filter((m) => m !== FIELD_MANAGER);
  return managers.length
    ? `also written by ${[...new Set(managers)].join(', ')}, not only by inv; delete it yourself once nothing else lives in it`
    : undefined;
}

/**
 * An object install creates once and never touches again (the erase configuration), changed
 * since: the administrator's settings live in it, so uninstall keeps it (and its namespace).
 * `bundle` holds each form install may have written it in (the shipped one, and the one with the
 * installed daemon's image and pull secrets, which `--image` writes into the workers' part).
 */
export function editedCreateOnly(cur: KubeObject, bundle: readonly KubeObject[]): string | undefined {
  const shipped = bundle.filter(
    (o) => isCreateOnly(o) && o.kind === cur.kind && o.metadata.name === cur.metadata.name,
  );
  if (!shipped.length) return undefined;
  const data = (o: KubeObject) => JSON.stringify((o as { data?: unknown }).data ?? {});
  return shipped.some((o) => data(cur) === data(o))
    ? undefined
    : 'edited since inv install wrote it (your settings): kept; delete it yourself once you no longer need it';
}

/** The bundle as `inv install --image` wrote it for the daemon running now (none: the shipped one). */
async function asInstalled(rest: KubeRest): Promise<KubeObject[]> {
  const daemon = await installedDaemonImage(rest);
  return daemon
    ? installObjects({ daemon: true, image: daemon.image, imagePullSecrets: daemon.pullSecrets })
    : [];
}

/**
 * Deletes the daemon bundle (never the CRDs), last-applied first: the namespaces come last, each
 * judged by what is left in it then (and, in a dry run, by what would be left).
 */
export async function uninstallDaemon(
  rest: KubeRest,
  opts: { dryRun?: boolean } = {},
): Promise<UninstallStep[]> {
  const objects = applyOrder(readBundle())
    .filter((o) => o.kind !== 'CustomResourceDefinition')
    .reverse();
  // Read before the Deployment goes: the erase configuration is judged against what install wrote.
  const installed = await asInstalled(rest);
  const steps: UninstallStep[] = [];
  let resources: Promise<{ resources: NamespacedResource[]; unreadable: string[] }> | undefined;
  const veto = async (ns: string) => {
    resources ??= namespacedResources(rest);
    const kept = new Set(steps.filter((s) => s.action === 'kept' && s.namespace === ns).map((s) => s.name));
    const deleted = new Set(steps.flatMap((s) => (s.action === 'deleted' && s.uid ? [s.uid] : [])));
    const bundle = new Set(objects.filter((b) => b.metadata.namespace === ns).map(displayName));
    return namespaceVeto(rest, ns, await resources, { bundle, kept, deleted });
  };
  for (const o of objects) {
    steps.push(
      await deleteIfOurs(
        rest,
        o,
        async (cur) =>
          o.kind === 'Namespace'
            ? (notOurs(cur) ?? othersManage(cur) ?? (await veto(cur.metadata.name)))
            : (notOurs(cur) ?? (isCreateOnly(o) ? editedCreateOnly(cur, [o, ...installed]) : undefined)),
        opts.dryRun,
      ),
    );
  }
  return steps;
}

const MAX_NAMED = 10;

/**
 * Why namespace `ns` stays: the objects in it that inv did not create (see foreignObjects for
 * `uninstalled`), or the kinds it could not read. Undefined: it may go.
 */
export async function namespaceVeto(
  rest: KubeRest,
  ns: string,
  discovered: { resources: readonly NamespacedResource[]; unreadable: readonly string[] },
  uninstalled: Uninstalled,
): Promise<string | undefined> {
  const { objects, unreadable } = await namespaceContents(rest, ns, discovered.resources);
  const kinds = new Set(discovered.resources.map((r) => `${r.group}/${r.kind}`));
  const foreign = foreignObjects(objects, uninstalled, kinds);
  const why: string[] = [];
  if (foreign.length) {
    const named = foreign.slice(0, MAX_NAMED).join(', ');
    const more = foreign.length > MAX_NAMED ? ` and ${foreign.length - MAX_NAMED} more` : '';
    why.push(
      `holds ${foreign.length} object${foreign.length === 1 ? '' : 's'} inv did not create (${named}${more})`,
    );
  }
  const cannot = [...discovered.unreadable, ...unreadable].sort();
  if (cannot.length)
    why.push(
      `could not read all it holds, so it may hold objects of yours: ${cannot.slice(0, MAX_NAMED).join('; ')}${cannot.length > MAX_NAMED ? ` and ${cannot.length - MAX_NAMED} more` : ''}`,
    );
  return why.length
    ? `${why.join('; ')}; deleting the namespace would delete them too. Move or delete them, then run uninstall again (or delete the namespace yourself)`
    : undefined;
}

/**
 * Deletes our CRDs and waits until they are gone. The API server deletes their instances;
 * an ImageJob keeps its cleanup finalizer until a running daemon has removed its worker
 * objects. When no daemon does so within `finalizerGraceMs`, we drop our finalizer ourselves:
 * the worker Pods and ConfigMaps carry ownerReferences to the job, so the garbage collector
 * removes them.
 */
export async function uninstallCrds(
  rest: KubeRest,
  opts: { timeoutMs?: number; finalizerGraceMs?: number; dryRun?: boolean } = {},
): Promise<UninstallStep[]> {
  const steps: UninstallStep[] = [];
  const deleting: OurCrd[] = [];
  for (const crd of OUR_CRDS) {
    const step = await deleteIfOurs(
      rest,
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crd.name },
      },
      notOurs,
      opts.dryRun,
    );
    steps.push(step);
    if (step.action === 'deleted' && !opts.dryRun) deleting.push(crd);
  }
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 120_000);
  for (const crd of deleting) {
    for (;;) {
      try {
        await resources.get(rest, 'CustomResourceDefinition', undefined, crd.name, { timeoutMs: 10_000 });
      } catch (e) {
        if (isNotFound(e)) break;
        throw e;
      }
      if (Date.now() - started > (opts.finalizerGraceMs ?? 10_000)) await dropJobFinalizers(rest);
      if (Date.now() > deadline) throw new Error(`CRD ${crd.name} still terminating after deletion`);
      await sleep(250);
    }
  }
  return steps;
}

async function dropJobFinalizers(rest: KubeRest): Promise<void> {
  let items: KubeObject[];
  try {
    items = (await resources.list<KubeObject>(rest, 'ImageJob')).items;
  } catch (e) {
    if (asCrdMissing(e) || isNotFound(e)) return;
    throw e;
  }
  for (const job of items) {
    const finalizers = (job.metadata.finalizers as string[] | undefined) ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) continue;
    await resources
      .patch(
        rest,
        'ImageJob',
        undefined,
        job.metadata.name,
        [
          { op: 'test', path: '/metadata/resourceVersion', value: job.metadata.resourceVersion },
          {
            op: 'replace',
            path: '/metadata/finalizers',
            value: finalizers.filter((f) => f !== CLEANUP_FINALIZER),
          },
        ],
        { contentType: 'application/json-patch+json', timeoutMs: 15_000 },
      )
      .catch((e: unknown) => {
        // Changed or gone meanwhile: the next pass of the wait loop looks again.
        if (!isNotFound(e) && !isConflict(e) && !(e instanceof KubeApiError && e.code === 422)) throw e;
      });
  }
}
