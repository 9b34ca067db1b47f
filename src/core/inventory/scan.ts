// `inv scan` against a cluster: rebuild each requested namespace once, with a bounded
// number of namespaces in flight. A failing namespace is reported and does not stop others.
//
// With a label selector only the selected workloads are read, so the scan cannot know what the
// rest of the namespace references: writing from that partial view would delete or shrink the
// Images of every workload outside the selector. A selector scan is therefore read-only: it
// reports the images the selected workloads reference and never reads or writes Images.
import * as resources from '../kube/resources.js';
import { forbiddenMessage } from '../kube/forbidden.js';
import { namespaceMissing } from '../kube/namespaces.js';
import type { KubeRest } from '../kube/rest.js';
import { ImageStore } from './image-store.js';
import { InvalidRefReporter } from './invalid-ref-events.js';
import { imageResourceName } from './naming.js';
import { reconcileNamespace, type NamespaceResult } from './rebuild.js';
import { desiredImages, kindsString } from './rules.js';
import type { SourceKinds } from './source-kinds.js';
import { listNamespaceObjects } from './sources.js';
import { forEachConcurrent } from '../concurrency.js';
import type { ScanStop } from './scan-stop.js';
import type { ImageResource } from './image-resource.js';
import type { NamespaceObjects } from './source-fields.js';
import { kindStreams } from './cluster-scan/kind-streams.js';
import { mergeStreams, type MergeEnd } from './cluster-scan/merged-pages.js';
import { countSourceObjects, listingFor } from './cluster-scan/choose-listing.js';

export interface ScanOptions {
  /** Namespaces to rebuild; undefined means every namespace. */
  namespaces?: string[];
  dryRun?: boolean;
  concurrency?: number;
  /**
   * Fail a namespace that does not exist instead of treating it as empty (catches typos). The
   * check GETs the Namespace when the caller may; a user whose Roles live only in that
   * namespace may not, and is not required to.
   */
  checkNamespaces?: boolean;
  /** A label selector for the workload LISTs; makes the scan read-only (see above). */
  selector?: string;
  /**
   * Read-only without a selector: the images the workloads reference, with no Image read or
   * written (a dry run where the Image CRD is not installed: there is nothing to compare with).
   */
  readOnly?: boolean;
  /** The source kinds in force (built-in plus the served declared ones). Default: built-in. */
  kinds?: SourceKinds;
  onProgress?: (done: number, total: number, namespace: string) => void;
  /** ReplicaSets' metadata: listed when some Pod needs it (default), or always (bench). */
  ownerLists?: 'when-needed' | 'always';
  /** Stops the scan between namespaces (^C): see scan-stop.ts. */
  stop?: ScanStop;
  /**
   * How the objects are read. `merged`: one cluster-wide paginated LIST per kind, regrouped
   * namespace by namespace as the pages arrive (cluster-scan/), for a scan of every namespace;
   * the namespaces it cannot finish (a cluster-wide LIST forbidden, a page that fails) are then
   * read `per-namespace`, as a scan of some namespaces always is. Default: when `namespaces` is
   * undefined or `allNamespaces` is set, merged unless namespaces are large on average
   * (`mergedMaxPerNamespace`); else per-namespace.
   */
  listing?: 'merged' | 'per-namespace';
  /** The namespaces are every namespace of the cluster (-A): a merged listing reads them all. */
  allNamespaces?: boolean;
  /** Page size of the merged listing's LISTs (default 500, as every LIST). */
  pageSize?: number;
  /**
   * Without `listing`, a scan of every namespace is merged unless the cluster holds more source
   * objects per namespace than this (cluster-scan/choose-listing.ts; default 150).
   */
  mergedMaxPerNamespace?: number;
  /**
   * Takes each namespace's result as it is rebuilt, instead of the report holding it (a scan of
   * 10,000 namespaces need not keep them all as objects). `reset` says that every result handed
   * over so far is void and each namespace comes again: a merged listing whose kind broke the
   * API server's order re-reads every namespace (cluster-scan/merged-pages.ts).
   */
  results?: { add(r: NamespaceResult): void; reset(): void };
}

/** How the objects were read: what a bench prints, and a test checks. */
export interface ScanListing {
  strategy: 'merged' | 'per-namespace';
  /** Namespaces read one at a time after a merged listing stopped, and why it stopped. */
  fallback?: { namespaces: number; reason: string };
  /** The source objects counted before choosing (a scan of every namespace without `listing`). */
  sourceObjects?: number;
}

export interface ScanFailure {
  namespace: string;
  error: string;
  /** NotFound: no such namespace; Forbidden: a permission is missing; Error: anything else. */
  reason: 'NotFound' | 'Forbidden' | 'Error';
}

export interface ScanReport {
  /** The namespaces rebuilt, sorted; empty when `ScanOptions.results` took them. */
  results: NamespaceResult[];
  /** How many namespaces were rebuilt (kept in `results` or handed over). */
  rebuilt: number;
  failures: ScanFailure[];
  /** True for a selector scan or `readOnly`: nothing was compared with or written to the Images. */
  readOnly: boolean;
  listing?: ScanListing;
}

export async function listAllNamespaces(rest: KubeRest): Promise<string[]> {
  const { items } = await resources.list<{ metadata: { name: string } }, string>(
    rest,
    'Namespace',
    undefined,
    {
      map: (n) => n.metadata.name,
    },
  );
  return items.sort();
}

class NamespaceNotFound extends Error {}

/** Throws NamespaceNotFound when the namespace surely does not exist; a 403 proves nothing. */
async function checkNamespace(rest: KubeRest, ns: string): Promise<void> {
  if (await namespaceMissing(rest, ns)) throw new NamespaceNotFound(`namespace "${ns}" not found`);
}

/** What a selector scan reports for one namespace: the referenced images, written nowhere. */
function readOnlyResult(
  ns: string,
  objs: Parameters<typeof desiredImages>[1],
  kinds?: SourceKinds,
): NamespaceResult {
  const { images, invalid } = desiredImages(ns, objs, kinds);
  return {
    namespace: ns,
    images: [...images]
      .map(([image, kinds]) => ({
        name: imageResourceName(image),
        image,
        kinds: kindsString(kinds),
        change: 'none' as const,
        result: 'planned' as const,
      }))
      .sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : 0)),
    invalid,
    errors: [],
    warnings: [],
    writes: 0,
    counts: { created: 0, updated: 0, deleted: 0, unchanged: 0 },
  };
}

export async function scanCluster(rest: KubeRest, opts: ScanOptions = {}): Promise<ScanReport> {
  const all = opts.namespaces === undefined || opts.allNamespaces === true;
  const namespaces = opts.namespaces ?? (await listAllNamespaces(rest));
  const store = new ImageStore(rest);
  const events = new InvalidRefReporter(rest);
  const readOnly = opts.readOnly === true || opts.selector !== undefined;
  const report: ScanReport = { results: [], rebuilt: 0, failures: [], readOnly };
  const keep = (r: NamespaceResult) => {
    report.rebuilt++;
    if (opts.results) opts.results.add(r);
    else report.results.push(r);
  };
  let done = 0;
  const stop = opts.stop;

  /** One namespace from its objects (and Images, when listed with them). */
  const rebuild = async (ns: string, objs: NamespaceObjects, existing?: ImageResource[]) => {
    if (readOnly) {
      keep(readOnlyResult(ns, objs, opts.kinds));
      return;
    }
    // Stopped while this namespace was being read: it is left as it was.
    if (stop && !stop.enter()) return;
    let completed = false;
    try {
      const r = await reconcileNamespace({ store, events, kinds: opts.kinds }, ns, objs, {
        dryRun: opts.dryRun,
        existing,
      });
      keep(r);
      if (r.errors.length)
        report.failures.push({ namespace: ns, error: r.errors.join('; '), reason: 'Error' });
      completed = true;
    } finally {
      stop?.leave(completed);
    }
  };
  const failed = (ns: string, e: unknown) => {
    const forbidden = forbiddenMessage(e);
    report.failures.push({
      namespace: ns,
      error: forbidden ?? (e as Error).message,
      reason: e instanceof NamespaceNotFound ? 'NotFound' : forbidden ? 'Forbidden' : 'Error',
    });
  };

  let perNamespace = namespaces;
  let listing = opts.listing ?? (all ? undefined : 'per-namespace');
  let sourceObjects: number | undefined;
  if (listing === undefined) {
    sourceObjects = await countSourceObjects(rest, opts.kinds, opts.selector);
    listing = listingFor(sourceObjects, namespaces.length, opts.mergedMaxPerNamespace);
  }
  const merged = listing === 'merged';
  report.listing = {
    strategy: listing,
    ...(sourceObjects !== undefined ? { sourceObjects } : {}),
  };
  if (merged) {
    const end = await scanMerged(rest, namespaces, opts, readOnly, rebuild, failed, (ns) =>
      opts.onProgress?.(++done, namespaces.length, ns),
    );
    perNamespace = end.remaining;
    if (end.rereadAll) {
      // Namespaces already rebuilt may have been incomplete: each is rebuilt again, whole.
      report.results = [];
      report.rebuilt = 0;
      opts.results?.reset();
      report.failures = [];
      done = 0;
    }
    if (end.error !== undefined && perNamespace.length)
      report.listing.fallback = { namespaces: perNamespace.length, reason: (end.error as Error).message };
  }

  await forEachConcurrent(perNamespace, opts.concurrency ?? 4, async (ns) => {
    if (stop?.isStopped) return;
    try {
      if (opts.checkNamespaces) await checkNamespace(rest, ns);
      await rebuild(ns, await listNamespaceObjects(rest, ns, opts.selector, opts.kinds, opts.ownerLists));
    } catch (e) {
      failed(ns, e);
    }
    opts.onProgress?.(++done, namespaces.length, ns);
  });
  report.results.sort((a, b) => a.namespace.localeCompare(b.namespace));
  report.failures.sort((a, b) => a.namespace.localeCompare(b.namespace));
  return report;
}

/**
 * Every namespace from cluster-wide LISTs merged namespace by namespace (cluster-scan/), rebuilt
 * by `concurrency` workers as the namespaces complete. Returns what is left to read one
 * namespace at a time (nothing, unless a LIST failed).
 */
async function scanMerged(
  rest: KubeRest,
  namespaces: string[],
  opts: ScanOptions,
  readOnly: boolean,
  rebuild: (ns: string, objs: NamespaceObjects, existing?: ImageResource[]) => Promise<void>,
  failed: (ns: string, e: unknown) => void,
  progress: (ns: string) => void,
): Promise<MergeEnd> {
  const ks = kindStreams(rest, {
    kinds: opts.kinds,
    selector: opts.selector,
    images: !readOnly,
    pageSize: opts.pageSize,
    owners: opts.ownerLists,
  });
  const merge = mergeStreams(namespaces, ks.streams);
  let end: MergeEnd | undefined;
  // The workers share one generator: its next() calls queue, each namespace goes to one worker.
  await Promise.all(
    Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, async () => {
      for (;;) {
        if (opts.stop?.isStopped || end) return;
        const r = await merge.next();
        if (r.done) {
          end ??= r.value;
          return;
        }
        const { objs, existing } = ks.objects(r.value);
        try {
          await rebuild(r.value.namespace, objs, existing);
        } catch (e) {
          failed(r.value.namespace, e);
        }
        progress(r.value.namespace);
      }
    }),
  );
  // Stopped (^C) before the end: nothing is left to read.
  return end ?? { remaining: [] };
}
