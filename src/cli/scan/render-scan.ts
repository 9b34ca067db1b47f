// Renders `inv scan`: one kubectl-style table for every namespace scanned (a NAMESPACE column
// when there is more than one), a totals line, and the ScanReport document (docs/output.md)
// for -o json|yaml. `scan` against a cluster and `scan -f` print the same shape and the same
// status words in the table and in JSON.
import type { OfflineReport, SkippedDocument } from '../../core/inventory/manifests/collect.js';
import type { ImageOutcome, NamespaceResult } from '../../core/inventory/rebuild.js';
import type { ScanFailure, ScanReport } from '../../core/inventory/scan.js';
import { abbreviate } from '../../core/refs/abbreviate.js';
import type { Output } from '../flags.js';
import { renderData } from '../output/print-data.js';
import { kindsArray, reportDocument } from '../output/output-shape.js';
import { colors } from '../output/style.js';
import { renderTable, type Column, type TableOptions } from '../output/table.js';

/** What happened to one Image, in the words of both the table and the JSON. */
export const STATUSES = [
  'created',
  'updated',
  'deleted',
  'unchanged',
  'would-create',
  'would-update',
  'would-delete',
  'found',
  'failed',
  'skipped',
] as const;
export type ImageStatus = (typeof STATUSES)[number];
type Counts = Record<ImageStatus, number>;

export interface ScanImage {
  image: string;
  /** The Image resource's name (what `kubectl get image NAME -n NS` takes). */
  name: string;
  kinds: string[];
  /** For updates and deletes: the kinds the Image had. */
  previousKinds?: string[];
  status: ImageStatus;
  /** Why it failed or was skipped. */
  error?: string;
}

export interface ScanNamespace {
  namespace: string;
  counts: Counts;
  writes: number;
  images: ScanImage[];
  invalid: { source: string; container: string; image: string; reason: string }[];
  warnings: string[];
  errors: string[];
}

export interface ScanDocumentInput {
  source: 'cluster' | 'files';
  dryRun: boolean;
  readOnly: boolean;
  selector?: string;
  namespaces: ScanNamespace[];
  failures: ScanFailure[];
  skipped: SkippedDocument[];
  ignored: Record<string, number>;
}

const zero = (): Counts => Object.fromEntries(STATUSES.map((s) => [s, 0])) as Counts;

function statusOf(o: ImageOutcome, dryRun: boolean, readOnly: boolean): ImageStatus {
  if (o.result === 'failed') return 'failed';
  // Skipped work (a name taken by someone else's Image, a namespace being deleted) is never
  // shown as done, whatever was planned.
  if (o.result === 'skipped' || o.change === 'conflict') return 'skipped';
  if (o.change === 'none') return readOnly ? 'found' : 'unchanged';
  const past = { create: 'created', update: 'updated', delete: 'deleted' } as const;
  return dryRun ? `would-${o.change}` : past[o.change];
}

function tally(images: ScanImage[]): Counts {
  const counts = zero();
  for (const i of images) counts[i.status]++;
  return counts;
}

/** One rebuilt namespace as the ScanReport shows it. */
export function scanNamespaceOf(r: NamespaceResult, dryRun: boolean, readOnly: boolean): ScanNamespace {
  const images = r.images.map((o): ScanImage => {
    const i: ScanImage = {
      image: o.image,
      name: o.name,
      kinds: kindsArray(o.kinds),
      status: statusOf(o, dryRun, readOnly),
    };
    if (o.previousKinds !== undefined) i.previousKinds = kindsArray(o.previousKinds);
    if (o.error) i.error = o.error;
    return i;
  });
  return {
    namespace: r.namespace,
    counts: tally(images),
    writes: r.writes,
    images,
    invalid: r.invalid.map((i) => ({
      source: i.source,
      container: i.container,
      image: i.image,
      reason: i.reason,
    })),
    warnings: r.warnings,
    errors: r.errors,
  };
}

/** The cluster scan as the ScanReport input. */
export function fromClusterScan(report: ScanReport, dryRun: boolean, selector?: string): ScanDocumentInput {
  return {
    source: 'cluster',
    dryRun: dryRun || report.readOnly,
    readOnly: report.readOnly,
    selector,
    namespaces: report.results.map((r) => scanNamespaceOf(r, dryRun, report.readOnly)),
    failures: report.failures,
    skipped: [],
    ignored: {},
  };
}

/** The offline scan (-f) as the same ScanReport input: every image is `found`. */
export function fromOfflineScan(report: OfflineReport): ScanDocumentInput {
  // One pass each (a dump of a whole cluster has thousands of namespaces).
  const byNs = new Map<string, { images: ScanImage[]; invalid: ScanNamespace['invalid'] }>();
  const entry = (ns: string) => {
    let e = byNs.get(ns);
    if (!e) byNs.set(ns, (e = { images: [], invalid: [] }));
    return e;
  };
  for (const i of report.images)
    entry(i.namespace).images.push({
      image: i.image,
      name: i.name,
      kinds: kindsArray(i.kinds),
      status: 'found',
    });
  for (const i of report.invalid)
    entry(i.namespace).invalid.push({
      source: i.source,
      container: i.container,
      image: i.image,
      reason: i.reason,
    });
  const namespaces = [...byNs.keys()].sort();
  return {
    source: 'files',
    dryRun: true,
    readOnly: true,
    namespaces: namespaces.map((ns) => {
      const { images, invalid } = byNs.get(ns)!;
      return { namespace: ns, counts: tally(images), writes: 0, images, invalid, warnings: [], errors: [] };
    }),
    failures: [],
    skipped: report.skipped,
    ignored: report.ignored,
  };
}

export function scanDocument(input: ScanDocumentInput) {
  const totals = zero();
  let images = 0;
  let invalid = 0;
  for (const n of input.namespaces) {
    for (const s of STATUSES) totals[s] += n.counts[s];
    images += n.images.length;
    invalid += n.invalid.length;
  }
  return reportDocument('ScanReport', {
    source: input.source,
    dryRun: input.dryRun,
    readOnly: input.readOnly,
    selector: input.selector ?? null,
    namespaces: input.namespaces,
    failures: input.failures,
    skipped: input.skipped,
    ignored: input.ignored,
    totals: {
      namespaces: input.namespaces.length,
      images,
      invalid,
      failures: input.failures.length,
      ...totals,
    },
  });
}

function paint(status: ImageStatus): (s: string) => string {
  const c = colors();
  if (status === 'failed') return c.red;
  if (status === 'skipped') return c.yellow;
  if (status === 'created' || status === 'would-create') return c.green;
  if (status === 'deleted' || status === 'would-delete') return c.red;
  if (status === 'updated' || status === 'would-update') return c.cyan;
  return (s) => s;
}

/** The totals line: counts of each status that occurred (created..unchanged always on a write). */
export function totalsLine(doc: ReturnType<typeof scanDocument>): string {
  const t = doc.totals;
  const always: ImageStatus[] =
    doc.source === 'files' || doc.readOnly
      ? ['found']
      : doc.dryRun
        ? ['would-create', 'would-update', 'would-delete', 'unchanged']
        : ['created', 'updated', 'deleted', 'unchanged'];
  const shown = [...always, ...STATUSES.filter((s) => !always.includes(s) && t[s] > 0)];
  const parts = shown.map((s) => `${t[s]} ${s}`);
  const where =
    doc.namespaces.length === 1 && doc.failures.length === 0
      ? `namespace ${doc.namespaces[0]!.namespace}`
      : `${t.namespaces} namespace${t.namespaces === 1 ? '' : 's'}`;
  let line = `${where}: ${t.images} image${t.images === 1 ? '' : 's'}: ${parts.join(', ')}`;
  if (t.invalid) line += `; ${t.invalid} invalid ref${t.invalid === 1 ? '' : 's'}`;
  if (t.failures) line += `; ${t.failures} namespace${t.failures === 1 ? '' : 's'} failed`;
  if (doc.selector !== null) line += ` (selector ${doc.selector}: read-only, the inventory was not written)`;
  else if (doc.source === 'files') line += ' (offline: nothing written)';
  else if (doc.dryRun) line += ' (dry run: nothing written)';
  return line;
}

export interface ScanRenderOptions extends TableOptions {
  /** Show the NAMESPACE column (-A, several -n, or -f over several namespaces). */
  namespaceColumn?: boolean;
}

/** stdout for the table formats and -o name; warnings and errors are returned for stderr. */
export function renderScan(
  doc: ReturnType<typeof scanDocument>,
  output: Output,
  opts: ScanRenderOptions = {},
): { stdout: string; stderr: string } {
  // json, yaml and kubectl's templates; custom-columns prints one line per image, as the table
  // does, each with its namespace.
  const data = renderData(doc, output, { items: scanItems(doc), noHeaders: opts.noHeaders });
  if (data !== undefined) return { stdout: data, stderr: problems(doc) };
  const rows = doc.namespaces.flatMap((n) => n.images.map((i) => ({ ns: n.namespace, i })));
  if (output === 'name') {
    // Images that exist in the cluster by their resource name, as kubectl prints them; offline
    // there is no object, so the normalized refs (each once).
    const names =
      doc.source === 'files' || doc.readOnly
        ? [...new Set(rows.map((r) => r.i.image))].sort()
        : rows.filter((r) => r.i.status !== 'deleted').map((r) => `image.imageinventory.dev/${r.i.name}`);
    return { stdout: names.map((n) => `${n}\n`).join(''), stderr: problems(doc) };
  }
  const withReason = rows.some((r) => r.i.error || r.i.previousKinds);
  const columns: Column[] = [
    ...(opts.namespaceColumn ? [{ header: 'NAMESPACE', collapse: true }] : []),
    { header: 'IMAGE', shrink: true, minWidth: 24, ref: true },
    { header: 'KINDS' },
    { header: 'STATUS' },
    { header: 'NAME', wide: true },
    ...(withReason ? [{ header: 'REASON', shrink: true, minWidth: 12 }] : []),
  ];
  const body = rows.map(({ ns, i }) => [
    ...(opts.namespaceColumn ? [ns] : []),
    i.image,
    i.kinds.join(',') || '-',
    paint(i.status)(i.status),
    i.name,
    ...(withReason ? [reason(i)] : []),
  ]);
  let stdout = rows.length ? renderTable(columns, body, opts) : '';
  // Nothing scanned at all (every namespace failed): the errors on stderr are the whole story.
  const nothing = doc.namespaces.length === 0 && doc.failures.length > 0;
  if (!opts.noHeaders && !nothing) stdout += `${rows.length ? '\n' : ''}${totalsLine(doc)}\n`;
  return { stdout, stderr: problems(doc) };
}

/** The rows of custom-columns: each image of each namespace, with its `namespace`. */
export const scanItems = (doc: ReturnType<typeof scanDocument>) =>
  doc.namespaces.flatMap((n) => n.images.map((i) => ({ namespace: n.namespace, ...i })));

function reason(i: ScanImage): string {
  if (i.error) return i.error;
  if (i.previousKinds) return `kinds were ${i.previousKinds.join(',') || '-'}`;
  return '';
}

/** Invalid refs, warnings and failed namespaces, for stderr in every format. */
function problems(doc: ReturnType<typeof scanDocument>): string {
  let out = '';
  for (const n of doc.namespaces) out += namespaceProblems(n);
  return out + failureLines(doc.failures);
}

/** A namespace's invalid refs and warnings, as stderr lines. */
export function namespaceProblems(n: ScanNamespace): string {
  const c = colors(process.stderr);
  let out = '';
  for (const i of n.invalid) {
    out += `${c.yellow(
      `warning: namespace ${n.namespace}: ${i.source} container ${i.container}: invalid image ${JSON.stringify(abbreviate(i.image))}: ${i.reason}`,
    )}\n`;
  }
  for (const w of n.warnings) out += `${c.yellow(`warning: namespace ${n.namespace}: ${w}`)}\n`;
  return out;
}

/** The failed namespaces, as stderr lines. */
export function failureLines(failures: ScanFailure[]): string {
  const c = colors(process.stderr);
  return failures.map((f) => `${c.red(`error: namespace ${f.namespace}: ${f.error}`)}\n`).join('');
}
