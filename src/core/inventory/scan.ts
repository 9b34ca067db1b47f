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
}

export interface ScanFailure {
  namespace: string;
  error: string;
  /** NotFound: no such namespace; Forbidden: a permission is missing; Error: anything else. */
  reason: 'NotFound' | 'Forbidden' | 'Error';
}

export interface ScanReport {
  results: NamespaceResult[];
  failures: ScanFailure[];
  /** True for a selector scan or `readOnly`: nothing was compared with or written to the Images. */
  readOnly: boolean;
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
  const namespaces = opts.namespaces ?? (await listAllNamespaces(rest));
  const store = new ImageStore(rest);
  const events = new InvalidRefReporter(rest);
  const readOnly = opts.readOnly === true || opts.selector !== undefined;
  const report: ScanReport = { results: [], failures: [], readOnly };
  let done = 0;
  const stop = opts.stop;
  await forEachConcurrent(namespaces, opts.concurrency ?? 4, async (ns) => {
    if (stop?.isStopped) return;
    try {
      if (opts.checkNamespaces) await checkNamespace(rest, ns);
      const objs = await listNamespaceObjects(rest, ns, opts.selector, opts.kinds, opts.ownerLists);
      if (readOnly) {
        report.results.push(readOnlyResult(ns, objs, opts.kinds));
      } else {
        // Stopped while this namespace was being read: it is left as it was.
        if (stop && !stop.enter()) return;
        let completed = false;
        try {
          const r = await reconcileNamespace({ store, events, kinds: opts.kinds }, ns, objs, {
            dryRun: opts.dryRun,
          });
          report.results.push(r);
          if (r.errors.length)
            report.failures.push({ namespace: ns, error: r.errors.join('; '), reason: 'Error' });
          completed = true;
        } finally {
          stop?.leave(completed);
        }
      }
    } catch (e) {
      const forbidden = forbiddenMessage(e);
      report.failures.push({
        namespace: ns,
        error: forbidden ?? (e as Error).message,
        reason: e instanceof NamespaceNotFound ? 'NotFound' : forbidden ? 'Forbidden' : 'Error',
      });
    }
    opts.onProgress?.(++done, namespaces.length, ns);
  });
  report.results.sort((a, b) => a.namespace.localeCompare(b.namespace));
  report.failures.sort((a, b) => a.namespace.localeCompare(b.namespace));
  return report;
}
