// Offline inventory (`inv scan -f`, `inv images -f`): reads multi-document YAML or JSON,
// including `List` kinds (the output of `helm template` or `kubectl get -o yaml`), reduces each
// object to what the rules read as soon as it is parsed, and groups the source objects by
// namespace, so the same rules run with no cluster. Every document that could not be used is
// reported (kind, apiVersion, name, why), never dropped silently.
import { takeOutBadContainers } from './containers.js';
import { manifestInputs, type InputOptions } from './input.js';
import { parseDocuments } from './parse.js';
import { imageResourceName } from '../naming.js';
import { desiredImages, kindsString, type InvalidRef } from '../rules.js';
import {
  apiVersionOf,
  BUILTIN,
  type OwnerKindSpec,
  type SourceKinds,
  type SourceKindSpec,
} from '../source-kinds.js';
import { readKinds, stripFor } from '../sources.js';
import type { RawObject } from '../strip.js';
import { emptyNamespaceObjects, type NamespaceObjects } from '../source-fields.js';

export { ManifestError, DEFAULT_MAX_INPUT_BYTES } from './input.js';

interface Doc {
  apiVersion?: unknown;
  kind?: unknown;
  items?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
}

/** A document (or one container of it) that was read but could not be used. */
export interface SkippedDocument {
  input: string;
  where: string;
  apiVersion?: string;
  kind?: string;
  name?: string;
  /** Set when only this container of the document was skipped. */
  container?: string;
  reason: string;
  /**
   * Set on an aggregate: this many more of the same category, the first at input/where. Only
   * the first few of each category are kept one by one, so what is skipped never costs more
   * memory or more warning lines than a handful of entries.
   */
  count?: number;
}

/** Why documents are skipped, coarsely: the unit of aggregation. */
type SkipCategory = 'empty' | 'not-object' | 'no-kind' | 'version' | 'container';
const CATEGORY_REASON: Record<SkipCategory, string> = {
  empty: 'empty document',
  'not-object': 'not a Kubernetes object',
  'no-kind': 'no apiVersion or kind',
  version: 'a source kind under another apiVersion',
  container: 'a container the rules cannot read',
};
/** Skipped documents reported one by one per category; the rest are counted. Empty: none. */
export const SKIPPED_DETAILED = 20;

export interface ManifestRead {
  byNamespace: Map<string, NamespaceObjects>;
  /** Kubernetes objects read (sources and others), List items counted one by one. */
  objects: number;
  /** Objects of kinds that are not image sources (Service, ConfigMap, ...), by kind. */
  ignored: Record<string, number>;
  skipped: SkippedDocument[];
  inputs: string[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const isListKind = (d: Doc) =>
  Array.isArray(d.items) && typeof d.kind === 'string' && d.kind.endsWith('List');

/** Collects parsed documents into per-namespace source objects. Pure: values in, state out. */
export class ManifestCollector {
  readonly read: ManifestRead = { byNamespace: new Map(), objects: 0, ignored: {}, skipped: [], inputs: [] };
  private readonly detailed = new Map<SkipCategory, number>();
  private readonly aggregates = new Map<SkipCategory, SkippedDocument>();

  private readonly byApi = new Map<string, SourceKindSpec | OwnerKindSpec>();
  private readonly byKind = new Map<string, SourceKindSpec | OwnerKindSpec>();

  constructor(
    private readonly defaultNamespace: string,
    kinds: SourceKinds = BUILTIN,
  ) {
    for (const k of readKinds(kinds)) {
      this.byApi.set(`${apiVersionOf(k)}/${k.kind}`, k);
      if (!this.byKind.has(k.kind)) this.byKind.set(k.kind, k);
    }
  }

  add(value: unknown, input: string, where: string): void {
    // A List is flattened with an explicit stack: Lists inside Lists never recurse.
    const stack: { value: unknown; where: string }[] = [{ value, where }];
    while (stack.length) {
      const { value: v, where: w } = stack.pop()!;
      if (v === null || v === undefined) continue; // an empty document ("---" with nothing after)
      if (typeof v !== 'object' || Array.isArray(v)) {
        this.skip('not-object', {
          input,
          where: w,
          reason: `not a Kubernetes object (a ${Array.isArray(v) ? 'list' : typeof v})`,
        });
        continue;
      }
      if (isEmpty(v)) {
        this.skip('empty', { input, where: w, reason: CATEGORY_REASON.empty });
        continue;
      }
      const d = v as Doc;
      if (isListKind(d)) {
        const items = d.items as unknown[];
        // Let each item be collected once reduced: only the stack holds it from here.
        d.items = undefined;
        for (let i = items.length - 1; i >= 0; i--)
          stack.push({ value: items[i], where: `${w}, items[${i}]` });
        continue;
      }
      this.object(d, input, w);
    }
  }

  private object(d: Doc, input: string, where: string): void {
    const apiVersion = str(d.apiVersion);
    const kind = str(d.kind);
    const name = str(d.metadata?.name);
    const id = { input, where, apiVersion, kind, name };
    if (!apiVersion || !kind) {
      this.skip('no-kind', {
        ...id,
        reason: `no ${!apiVersion && !kind ? 'apiVersion and kind' : !kind ? 'kind' : 'apiVersion'}`,
      });
      return;
    }
    const source = this.byApi.get(`${apiVersion}/${kind}`);
    if (!source) {
      const known = this.byKind.get(kind);
      if (known) {
        const want = apiVersionOf(known);
        this.skip('version', { ...id, reason: `${kind} is read only as ${want}, not ${apiVersion}` });
      } else {
        this.read.objects++;
        this.read.ignored[kind] = (this.read.ignored[kind] ?? 0) + 1;
      }
      return;
    }
    this.read.objects++;
    for (const p of takeOutBadContainers(d as Record<string, unknown>, source))
      this.skip('container', { ...id, container: p.container, reason: p.reason });
    // A cluster-scoped kind's objects count in the namespace its entry names.
    const ns =
      ('namespace' in source ? source.namespace : undefined) ??
      str(d.metadata?.namespace) ??
      this.defaultNamespace;
    let objs = this.read.byNamespace.get(ns);
    if (!objs) {
      objs = emptyNamespaceObjects();
      this.read.byNamespace.set(ns, objs);
    }
    (objs[source.key] ??= []).push(stripFor(source)(d as RawObject));
  }

  private skip(category: SkipCategory, s: SkippedDocument): void {
    const shown = this.detailed.get(category) ?? 0;
    if (category !== 'empty' && shown < SKIPPED_DETAILED) {
      this.detailed.set(category, shown + 1);
      this.read.skipped.push(s);
      return;
    }
    const agg = this.aggregates.get(category);
    if (agg) agg.count!++;
    else {
      const first = { input: s.input, where: s.where, reason: CATEGORY_REASON[category], count: 1 };
      this.aggregates.set(category, first);
      this.read.skipped.push(first);
    }
  }
}

/** `{}`: no key at all (checked without building a key array). */
function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** Reads every input under `p` (a file, a directory, '-' or a stream), one document at a time. */
export async function readManifests(
  p: string,
  opts: InputOptions & { defaultNamespace?: string; kinds?: SourceKinds } = {},
): Promise<ManifestRead> {
  const c = new ManifestCollector(opts.defaultNamespace ?? 'default', opts.kinds);
  for await (const input of manifestInputs(p, opts)) {
    c.read.inputs.push(input.name);
    for (const doc of parseDocuments(input.text, input.name)) c.add(doc.value, input.name, doc.where);
  }
  return c.read;
}

/** One line per skipped document (or aggregate of them), for stderr. */
export function describeSkipped(s: SkippedDocument): string {
  if (s.count !== undefined) {
    const n = s.count.toLocaleString('en-US');
    const where = `${s.input}: ${s.count === 1 ? '' : 'the first at '}${s.where}`;
    if (s.reason === CATEGORY_REASON.empty)
      return `${n} empty document${s.count === 1 ? '' : 's'} skipped (${where})`;
    const what = s.reason === CATEGORY_REASON.container ? 'container' : 'document';
    return `${n} more ${what}${s.count === 1 ? '' : 's'} skipped (${where}): ${s.reason}`;
  }
  const what = [s.apiVersion, s.kind].filter(Boolean).join(' ') || 'document';
  const doc = `${what}${s.name ? ` ${s.name}` : ''}`;
  const subject = s.container !== undefined ? `container ${JSON.stringify(s.container)} of ${doc}` : doc;
  return `skipped ${subject} (${s.input}: ${s.where}): ${s.reason}`;
}

export interface OfflineImage {
  namespace: string;
  image: string;
  kinds: string;
  name: string;
}

export interface OfflineReport {
  images: OfflineImage[];
  invalid: Omit<InvalidRef, 'kind' | 'name'>[];
  /** Documents that could not be used, each also warned about on stderr. */
  skipped: SkippedDocument[];
  /** Objects of kinds that reference no images for the inventory (Service, ConfigMap, ...), by kind. */
  ignored: Record<string, number>;
}

export function offlineInventory(read: ManifestRead, kinds?: SourceKinds): OfflineReport {
  const report: OfflineReport = { images: [], invalid: [], skipped: read.skipped, ignored: read.ignored };
  for (const [ns, objs] of read.byNamespace) {
    const { images, invalid } = desiredImages(ns, objs, kinds);
    for (const [image, kinds] of images) {
      report.images.push({ namespace: ns, image, kinds: kindsString(kinds), name: imageResourceName(image) });
    }
    for (const i of invalid) {
      report.invalid.push({
        namespace: i.namespace,
        source: i.source,
        container: i.container,
        image: i.image,
        reason: i.reason,
      });
    }
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  report.images.sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.image, b.image));
  report.invalid.sort(
    (a, b) => cmp(a.namespace, b.namespace) || cmp(a.source, b.source) || cmp(a.container, b.container),
  );
  return report;
}
