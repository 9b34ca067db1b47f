// `inv scan` against a cluster: rebuild each requested namespace once, with a bounded
// number of namespaces in flight. A failing namespace is reported and does not stop others.
import { isNotFound, type KubeRest } from '../kube/rest.js';
import { ImageStore } from './image-store.js';
import { InvalidRefReporter } from './invalid-ref-events.js';
import { reconcileNamespace, type NamespaceResult } from './reconcile.js';
import { listNamespaceObjects } from './sources.js';

export interface ScanOptions {
  /** Namespaces to rebuild; undefined means every namespace. */
  namespaces?: string[];
  dryRun?: boolean;
  concurrency?: number;
  /** Fail a namespace that does not exist instead of treating it as empty (catches typos). */
  checkNamespaces?: boolean;
  onProgress?: (done: number, total: number, namespace: string) => void;
}

export interface ScanFailure {
  namespace: string;
  error: string;
}

export interface ScanReport {
  results: NamespaceResult[];
  failures: ScanFailure[];
}

export async function listAllNamespaces(rest: KubeRest): Promise<string[]> {
  const { items } = await rest.list<{ metadata: { name: string } }, string>('/api/v1/namespaces', {
    map: (n) => n.metadata.name,
  });
  return items.sort();
}

export async function scanCluster(rest: KubeRest, opts: ScanOptions = {}): Promise<ScanReport> {
  const namespaces = opts.namespaces ?? (await listAllNamespaces(rest));
  const store = new ImageStore(rest);
  const events = new InvalidRefReporter(rest);
  const report: ScanReport = { results: [], failures: [] };
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < namespaces.length) {
      const ns = namespaces[next++]!;
      try {
        if (opts.checkNamespaces) {
          try {
            await rest.get(`/api/v1/namespaces/${ns}`);
          } catch (e) {
            if (isNotFound(e)) throw new Error(`namespace "${ns}" not found`);
            throw e;
          }
        }
        const objs = await listNamespaceObjects(rest, ns);
        const r = await reconcileNamespace({ store, events }, ns, objs, { dryRun: opts.dryRun });
        report.results.push(r);
        if (r.errors.length) report.failures.push({ namespace: ns, error: r.errors.join('; ') });
      } catch (e) {
        report.failures.push({ namespace: ns, error: (e as Error).message });
      }
      opts.onProgress?.(++done, namespaces.length, ns);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 4, namespaces.length) }, worker));
  report.results.sort((a, b) => a.namespace.localeCompare(b.namespace));
  report.failures.sort((a, b) => a.namespace.localeCompare(b.namespace));
  return report;
}
