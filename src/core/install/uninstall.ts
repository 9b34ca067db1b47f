// `inv uninstall`: deletes what `inv install` created, and nothing else.
//
// - Every bundle object, of every kind, is read first and deleted only if inv wrote it (its
//   field manager "inv" or our part-of label: ownership.ts), with its UID as a precondition (a
//   same-named object someone created in between stays). Anything else is kept and named.
// - A namespace of ours is kept when another field manager has written it (it may predate
//   `inv install`) or when it holds ConfigMaps we did not create (the administrator's
//   exclusion lists) or the erase configuration as the administrator edited it (install
//   wrote it once; the settings in it are theirs): deleting the namespace would delete them.
// - The CRDs go only when asked (`--crds`), since deleting a CRD deletes every Image, ImageList
//   and ImageJob with it; countInstances() says how many, for the confirmation. A CRD of our
//   name that someone else installed (another tool, `kubectl apply -f crds/`) is kept too.
import { displayName, FIELD_MANAGER, objectPath, type KubeObject } from '../kube/apply.js';
import { OUR_CRDS, asCrdMissing, type OurCrd } from '../kube/crds.js';
import { isConflict, isNotFound, KubeApiError, type KubeRest } from '../kube/rest.js';
import { CLEANUP_FINALIZER, MANAGED_BY, MANAGED_BY_LABEL } from '../erase/types.js';
import { applyOrder, PART_OF, PART_OF_LABEL, readBundle } from './bundle.js';
import { notOurs } from './ownership.js';
import { isCreateOnly } from './install.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type UninstallAction = 'deleted' | 'not found' | 'kept';

export interface UninstallStep {
  name: string;
  action: UninstallAction;
  /** Why an object was kept. */
  reason?: string;
}

/** How many objects of each of our kinds exist; undefined for a kind whose CRD is absent. */
export async function countInstances(rest: KubeRest): Promise<Record<string, number | undefined>> {
  const out: Record<string, number | undefined> = {};
  for (const crd of OUR_CRDS) {
    try {
      const { items } = await rest.list<unknown, 0>(`/apis/${crd.group}/${crd.version}/${crd.plural}`, {
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
): Promise<UninstallStep> {
  const name = displayName(o);
  const p = objectPath(o);
  let cur: KubeObject;
  try {
    cur = await rest.request<KubeObject>('GET', p, { timeoutMs: 15_000 });
  } catch (e) {
    if (isNotFound(e)) return { name, action: 'not found' };
    throw e;
  }
  const why = await ours(cur);
  if (why) return { name, action: 'kept', reason: why };
  try {
    await rest.request('DELETE', p, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: cur.metadata.uid } },
      query: { propagationPolicy: 'Background' },
      timeoutMs: 15_000,
    });
  } catch (e) {
    if (isNotFound(e)) return { name, action: 'not found' };
    throw e;
  }
  return { name, action: 'deleted' };
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
 */
export function editedCreateOnly(cur: KubeObject, bundle: readonly KubeObject[]): string | undefined {
  const shipped = bundle.find(
    (o) => isCreateOnly(o) && o.kind === cur.kind && o.metadata.name === cur.metadata.name,
  );
  if (!shipped) return undefined;
  const data = (o: KubeObject) => JSON.stringify((o as { data?: unknown }).data ?? {});
  return data(cur) === data(shipped)
    ? undefined
    : 'edited since inv install wrote it (your settings): kept; delete it yourself once you no longer need it';
}

/** ConfigMaps in `ns` that inv did not create (the erase controllers label theirs), or that hold your edits. */
async function foreignConfigMaps(rest: KubeRest, ns: string): Promise<string[]> {
  const { items } = await rest.list<KubeObject>(`/api/v1/namespaces/${ns}/configmaps`);
  const bundle = readBundle();
  return items
    .filter(
      (c) =>
        c.metadata.name !== 'kube-root-ca.crt' &&
        c.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY &&
        (c.metadata.labels?.[PART_OF_LABEL] !== PART_OF || editedCreateOnly(c, bundle) !== undefined),
    )
    .map((c) => c.metadata.name);
}

/** Deletes the daemon bundle (never the CRDs), last-applied first. */
export async function uninstallDaemon(rest: KubeRest): Promise<UninstallStep[]> {
  const objects = applyOrder(readBundle())
    .filter((o) => o.kind !== 'CustomResourceDefinition')
    .reverse();
  const steps: UninstallStep[] = [];
  for (const o of objects) {
    steps.push(
      await deleteIfOurs(rest, o, async (cur) =>
        o.kind === 'Namespace'
          ? (notOurs(cur) ?? othersManage(cur) ?? (await namespaceVeto(rest, cur.metadata.name)))
          : (notOurs(cur) ?? (isCreateOnly(o) ? editedCreateOnly(cur, [o]) : undefined)),
      ),
    );
  }
  return steps;
}

/** Keeps a namespace that holds the administrator's ConfigMaps; see the file comment. */
export async function namespaceVeto(rest: KubeRest, ns: string): Promise<string | undefined> {
  const foreign = await foreignConfigMaps(rest, ns).catch((e: unknown) => {
    if (isNotFound(e)) return [];
    throw e;
  });
  return foreign.length
    ? `holds ConfigMaps inv did not create (${foreign.join(', ')}); delete them, then run uninstall again`
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
  opts: { timeoutMs?: number; finalizerGraceMs?: number } = {},
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
    );
    steps.push(step);
    if (step.action === 'deleted') deleting.push(crd);
  }
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 120_000);
  for (const crd of deleting) {
    for (;;) {
      try {
        await rest.request('GET', `${CRD_PATH}/${crd.name}`, { timeoutMs: 10_000 });
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
  const path = '/apis/erase.imageinventory.dev/v1alpha1/imagejobs';
  let items: KubeObject[];
  try {
    items = (await rest.list<KubeObject>(path)).items;
  } catch (e) {
    if (asCrdMissing(e) || isNotFound(e)) return;
    throw e;
  }
  for (const job of items) {
    const finalizers = (job.metadata.finalizers as string[] | undefined) ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) continue;
    await rest
      .request('PATCH', `${path}/${job.metadata.name}`, {
        contentType: 'application/json-patch+json',
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: job.metadata.resourceVersion },
          {
            op: 'replace',
            path: '/metadata/finalizers',
            value: finalizers.filter((f) => f !== CLEANUP_FINALIZER),
          },
        ],
        timeoutMs: 15_000,
      })
      .catch((e: unknown) => {
        // Changed or gone meanwhile: the next pass of the wait loop looks again.
        if (!isNotFound(e) && !isConflict(e) && !(e instanceof KubeApiError && e.code === 422)) throw e;
      });
  }
}
