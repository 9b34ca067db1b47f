// reconcileNamespace: one full rebuild of a namespace's inventory. The same function runs
// for `inv scan` (objects listed from the API) and `inv watch` (objects from the informer
// cache): callers pass the namespace's objects in, and the Image store to write through.
import type { ImageResource } from './image-resource.js';
import type { InvalidRefReporter } from './invalid-ref-events.js';
import type { ImageStore } from './image-store.js';
import { planNamespace, type Change } from './plan.js';
import { desiredImages, type InvalidRef } from './rules.js';
import { BUILTIN, type SourceKinds } from './source-kinds.js';
import type { NamespaceObjects } from './source-fields.js';
import { forEachConcurrent } from '../concurrency.js';
import { isNamespaceTerminating } from '../kube/rest.js';

export interface ImageOutcome {
  name: string;
  image: string;
  kinds: string;
  /** Previous kinds, for updates and deletes. */
  previousKinds?: string;
  change: Change;
  /** What happened: applied, only planned (dry-run), or failed. */
  result: 'applied' | 'planned' | 'failed' | 'skipped';
  error?: string;
}

export interface NamespaceResult {
  namespace: string;
  images: ImageOutcome[];
  invalid: InvalidRef[];
  errors: string[];
  /** Problems that do not make the rebuild fail, e.g. an Event that could not be written. */
  warnings: string[];
  writes: number;
  counts: { created: number; updated: number; deleted: number; unchanged: number };
}

/** Writes of one namespace's rebuild in flight at once (docs/inventory.md says it). */
export const NAMESPACE_WRITES = 8;

export interface ReconcileDeps {
  store: ImageStore;
  events?: InvalidRefReporter;
  /** Concurrent writes within one namespace. */
  concurrency?: number;
  /** The source kinds in force (built-in plus declared). Default: built-in. */
  kinds?: SourceKinds;
}

function uidLookup(objs: NamespaceObjects): (kind: string, name: string) => string | undefined {
  return (kind, name) => {
    const k = BUILTIN.byKind(kind);
    return k && objs[k.key]?.find((o) => o.metadata.name === name)?.metadata.uid;
  };
}

export async function reconcileNamespace(
  deps: ReconcileDeps,
  namespace: string,
  objs: NamespaceObjects,
  opts: { dryRun?: boolean; existing?: ImageResource[] } = {},
): Promise<NamespaceResult> {
  const { images: desired, users, invalid } = desiredImages(namespace, objs, deps.kinds);
  const existing = opts.existing ?? (await deps.store.list(namespace));
  const plan = planNamespace(desired, existing, users);
  const result: NamespaceResult = {
    namespace,
    images: [],
    invalid,
    errors: [],
    warnings: [],
    writes: 0,
    counts: { created: 0, updated: 0, deleted: 0, unchanged: 0 },
  };
  const outcomes = new Map<string, ImageOutcome>();
  for (const p of plan) {
    const o: ImageOutcome = {
      name: p.name,
      image: p.image,
      kinds: p.kinds,
      change: p.change,
      result: p.change === 'none' ? 'applied' : p.change === 'conflict' ? 'skipped' : 'planned',
    };
    if (p.change === 'update' || p.change === 'delete') o.previousKinds = p.current?.status?.kinds ?? '';
    if (p.reason) o.error = p.reason;
    outcomes.set(p.name, o);
    result.images.push(o);
    if (p.change === 'none') result.counts.unchanged++;
    if (p.change === 'conflict') result.errors.push(`${namespace}/${p.name}: ${p.reason}`);
  }

  if (!opts.dryRun) {
    const n = deps.concurrency ?? NAMESPACE_WRITES;
    const fail = (name: string, e: unknown) => {
      const o = outcomes.get(name)!;
      if (isNamespaceTerminating(e)) {
        // The namespace is being deleted: its Images go with it, there is nothing to keep.
        o.result = 'skipped';
        o.error = 'namespace is being deleted';
        return;
      }
      o.result = 'failed';
      o.error = (e as Error).message;
      result.errors.push(`${namespace}/${name}: ${o.error}`);
    };
    // Creates and updates first, then deletes: a ref that moved never disappears in between.
    await forEachConcurrent(
      plan.filter((p) => p.change === 'create' || p.change === 'update'),
      n,
      async (p) => {
        try {
          // `result` counts each write as it is sent: `writes += await` would lose increments
          // made by the other workers while this one awaited.
          await deps.store.ensure(namespace, p.name, p.image, p.status, p.current, result);
          outcomes.get(p.name)!.result = 'applied';
          if (p.change === 'create') result.counts.created++;
          else result.counts.updated++;
        } catch (e) {
          fail(p.name, e);
        }
      },
    );
    await forEachConcurrent(
      plan.filter((p) => p.change === 'delete'),
      n,
      async (p) => {
        try {
          await deps.store.delete(namespace, p.current!, result);
          outcomes.get(p.name)!.result = 'applied';
          result.counts.deleted++;
        } catch (e) {
          fail(p.name, e);
        }
      },
    );
    if (deps.events && invalid.length) {
      const r = await deps.events.report(namespace, invalid, uidLookup(objs));
      result.writes += r.created;
      result.warnings.push(...r.errors);
    }
  }
  return result;
}
