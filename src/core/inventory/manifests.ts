// Offline inventory (`inv scan -f`): reads multi-document YAML or JSON, including `List`
// kinds (the output of `helm template` or `kubectl get -o yaml`), and groups the source
// objects by namespace, so the same rules run with no cluster.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { imageResourceName } from './naming.js';
import { desiredImages, kindsString, type InvalidRef } from './rules.js';
import { SOURCE_KINDS, stripFor, type SourceKind } from './sources.js';
import type { RawObject } from './strip.js';
import type { NamespaceObjects } from './types.js';

export class ManifestError extends Error {}

interface Doc {
  apiVersion?: string;
  kind?: string;
  items?: Doc[];
  metadata?: { namespace?: string };
}

/** Reads every *.yaml, *.yml and *.json under `p` (a file, a directory, or '-' for stdin). */
export function readManifestSources(p: string, stdin?: () => string): { name: string; text: string }[] {
  if (p === '-') return [{ name: '<stdin>', text: stdin ? stdin() : fs.readFileSync(0, 'utf8') }];
  if (!fs.existsSync(p)) throw new ManifestError(`${p}: no such file or directory`);
  const st = fs.statSync(p);
  if (st.isFile()) return [{ name: p, text: fs.readFileSync(p, 'utf8') }];
  const out: { name: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.(ya?ml|json)$/i.test(e.name)) out.push({ name: full, text: fs.readFileSync(full, 'utf8') });
    }
  };
  walk(p);
  return out;
}

export function parseManifests(sources: { name: string; text: string }[]): Doc[] {
  const docs: Doc[] = [];
  const flatten = (d: unknown) => {
    if (!d || typeof d !== 'object') return;
    const doc = d as Doc;
    if (Array.isArray(doc.items) && (doc.kind === 'List' || doc.kind?.endsWith('List')))
      doc.items.forEach(flatten);
    else docs.push(doc);
  };
  for (const src of sources) {
    for (const parsed of parseAllDocuments(src.text)) {
      if (parsed.errors.length) {
        const err = parsed.errors[0]!;
        throw new ManifestError(`${src.name}: not valid YAML or JSON: ${err.message.split('\n')[0]}`);
      }
      flatten(parsed.toJS());
    }
  }
  return docs;
}

const KIND_BY_API: Record<string, SourceKind> = {};
for (const [kind, v] of Object.entries(SOURCE_KINDS))
  KIND_BY_API[`${v.apiVersion}/${kind}`] = kind as SourceKind;

export function groupByNamespace(docs: Doc[], defaultNamespace: string): Map<string, NamespaceObjects> {
  const out = new Map<string, NamespaceObjects>();
  for (const d of docs) {
    const kind = KIND_BY_API[`${d.apiVersion}/${d.kind}`];
    if (!kind) continue; // ReplicaSets and every other kind are not sources.
    const ns = d.metadata?.namespace || defaultNamespace;
    let objs = out.get(ns);
    if (!objs) {
      objs = { deployments: [], statefulSets: [], daemonSets: [], cronJobs: [], jobs: [], pods: [] };
      out.set(ns, objs);
    }
    (objs[SOURCE_KINDS[kind].key] as unknown[]).push(stripFor(kind)(d as RawObject));
  }
  return out;
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
}

export function offlineInventory(byNamespace: Map<string, NamespaceObjects>): OfflineReport {
  const report: OfflineReport = { images: [], invalid: [] };
  for (const [ns, objs] of byNamespace) {
    const { images, invalid } = desiredImages(ns, objs);
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
