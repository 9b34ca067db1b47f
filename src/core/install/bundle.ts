// What `inv install` applies, read from files that ship inside the npm package (package.json
// "files": crds/ and deploy/), located relative to this module, so an installed `inv` needs no
// checkout of the repository.
//
// deploy/ stays the single source: `kubectl apply -k deploy/` and `inv install --daemon` apply
// the same objects. This reader implements the part of kustomize that deploy/kustomization.yaml
// uses (resources, labels without selectors, images) and refuses anything else, and
// test/install/bundle.test.ts compares its output with `kubectl kustomize deploy/`.
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../kube/apply.js';
import { crdDir } from '../kube/crd-install.js';
import { packageRoot } from '../package-root.js';

/** The package's deploy/ folder (src/core/package-root.ts finds the package; crds/ is kube's crdDir). */
export const deployDir = path.join(packageRoot(), 'deploy');

/** Every object of the bundle carries this label; uninstall deletes nothing without it. */
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';
export const PART_OF = 'image-inventory';

interface Kustomization {
  resources?: string[];
  labels?: { pairs?: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  [k: string]: unknown;
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'labels', 'images']);

function readDocs(file: string): KubeObject[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
      return d.toJS() as KubeObject | null;
    })
    .filter((o): o is KubeObject => Boolean(o));
}

/** The CRDs of crds/, in file order. */
export function readCrdObjects(dir = crdDir): KubeObject[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => readDocs(path.join(dir, f)));
}

function splitImage(ref: string): string {
  // The image name of a container, without tag or digest: kustomize matches on it.
  const at = ref.indexOf('@');
  const noDigest = at >= 0 ? ref.slice(0, at) : ref;
  const colon = noDigest.lastIndexOf(':');
  return colon > noDigest.lastIndexOf('/') ? noDigest.slice(0, colon) : noDigest;
}

export interface BundleOptions {
  /** Replaces the daemon's image (the kustomization's `images:` entry) when set. */
  image?: string;
  dir?: string;
}

/** The daemon bundle: the objects `kubectl kustomize deploy/` renders, CRDs included. */
export function readBundle(opts: BundleOptions = {}): KubeObject[] {
  const dir = opts.dir ?? deployDir;
  const k = parse(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
  const unknown = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unknown.length)
    throw new Error(`deploy/kustomization.yaml: ${unknown.join(', ')} is not supported by inv install`);
  const objects = (k.resources ?? []).flatMap((r) => readDocs(path.join(dir, r)));
  for (const l of k.labels ?? []) {
    if (l.includeSelectors || l.includeTemplates)
      throw new Error(
        'deploy/kustomization.yaml: labels with includeSelectors/includeTemplates are not supported',
      );
    for (const o of objects) o.metadata.labels = { ...o.metadata.labels, ...l.pairs };
  }
  for (const o of objects) {
    const spec = (o as { spec?: { template?: { spec?: PodSpecLike } } }).spec?.template?.spec;
    if (!spec) continue;
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      const name = splitImage(c.image ?? '');
      const rule = (k.images ?? []).find((i) => i.name === name);
      if (opts.image && rule) c.image = opts.image;
      else if (rule) {
        const repo = rule.newName ?? rule.name;
        c.image = rule.digest ? `${repo}@${rule.digest}` : `${repo}${rule.newTag ? `:${rule.newTag}` : ''}`;
      }
    }
  }
  return objects;
}

interface PodSpecLike {
  containers?: { image?: string }[];
  initContainers?: { image?: string }[];
}

const FIRST = ['Namespace', 'CustomResourceDefinition'];

/** Namespaces and CRDs first (what the others live in or need), otherwise the bundle's order. */
export function applyOrder(objects: KubeObject[]): KubeObject[] {
  const rank = (o: KubeObject) => {
    const i = FIRST.indexOf(o.kind);
    return i < 0 ? FIRST.length : i;
  };
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i)
    .map((x) => x.o);
}
