// Offline inventory (`inv scan -f`, `inv images -f`): reads multi-document YAML or JSON,
// including `List` kinds (the output of `helm template` or `kubectl get -o yaml`), reduces each
// object to what the rules read as soon as it is parsed, and groups the source objects by
// namespace, so the same rules run with no cluster. Every document that could not be used is
// reported (kind, apiVersion, name, why), never dropped silently.
import { manifestInputs, type InputOptions } from './manifest-input.js';
import { parseDocuments } from './manifest-parse.js';
import { imageResourceName } from './naming.js';
import { desiredImages, kindsString, type InvalidRef } from './rules.js';
import {
  apiVersionOf,
  BUILTIN,
  type OwnerKindSpec,
  type SourceKinds,
  type SourceKindSpec,
} from './source-kinds.js';
import { readKinds, stripFor } from './sources.js';
import type { RawObject } from './strip.js';
import { emptyNamespaceObjects, type NamespaceObjects } from './types.js';

export { ManifestError, DEFAULT_MAX_INPUT_BYTES } from './manifest-input.js';

interface Doc {
  apiVersion?: unknown;
  kind?: unknown;
  items?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
}

/** A document that was read but could not be used. */
export interface SkippedDocument {
  input: string;
  where: string;
  apiVersion?: string;
  kind?: string;
  name?: string;
  reason: string;
}

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
        this.skip({
          input,
          where: w,
          reason: `not a Kubernetes object (a ${Array.isArray(v) ? 'list' : typeof v})`,
        });
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
      this.skip({
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
        this.skip({ ...id, reason: `${kind} is read only as ${want}, not ${apiVersion}` });
      } else {
        this.read.objects++;
        this.read.ignored[kind] = (this.read.ignored[kind] ?? 0) + 1;
      }
      return;
    }
    this.read.objects++;
    const ns = str(d.metadata?.namespace) ?? this.defaultNamespace;
    let objs = this.read.byNamespace.get(ns);
    if (!objs) {
      objs = emptyNamespaceObjects();
      this.read.byNamespace.set(ns, objs);
    }
    (objs[source.key] ??= []).push(stripFor(source)(d as RawObject));
  }

  private skip(s: SkippedDocument): void {
    this.read.skipped.push(s);
  }
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

/** One line per skipped document, for stderr. */
export function describeSkipped(s: SkippedDocument): string {
  const what = [s.apiVersion, s.kind].filter(Boolean).join(' ') || 'document';
  return `skipped ${what}${s.name ? ` ${s.name}` : ''} (${s.input}: ${s.where}): ${s.reason}`;
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
