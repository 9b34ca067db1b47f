// `inv scan -o json` over many namespaces without holding them as objects: each rebuilt
// namespace is converted and rendered to its JSON text at once (about a kilobyte for a
// namespace of a few images, against several times that as objects), and the document is put
// together at the end, byte for byte what toJson(scanDocument(...)) prints for the same report.
// The document is still printed whole at the end, not as namespaces finish: a merged listing
// may void every result so far and read each namespace again (ScanOptions.results.reset), and
// printed JSON cannot be taken back.
import type { NamespaceResult } from '../../core/inventory/rebuild.js';
import { toJson } from '../output/style.js';
import {
  failureLines,
  namespaceProblems,
  scanDocument,
  scanNamespaceOf,
  STATUSES,
  type ScanDocumentInput,
} from './render-scan.js';

/** The top-level key whose items are spliced in; an empty array stringifies as this line. */
const NAMESPACES_LINE = '\n  "namespaces": [],\n';
/** Each namespace sits two levels down: the document, then its `namespaces` array. */
const ITEM_INDENT = '    ';

interface Rendered {
  json: string;
  problems: string;
}

export class ScanJsonCollector {
  private readonly done = new Map<string, Rendered>();
  private readonly counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<
    (typeof STATUSES)[number],
    number
  >;
  private images = 0;
  private invalid = 0;

  constructor(
    private readonly dryRun: boolean,
    private readonly readOnly: boolean,
  ) {}

  add(r: NamespaceResult): void {
    const n = scanNamespaceOf(r, this.dryRun, this.readOnly);
    for (const s of STATUSES) this.counts[s] += n.counts[s];
    this.images += n.images.length;
    this.invalid += n.invalid.length;
    // JSON text has no raw newline inside a value, so each line can be indented alone.
    const json = JSON.stringify(n, null, 2)
      .split('\n')
      .map((l) => ITEM_INDENT + l)
      .join('\n');
    this.done.set(r.namespace, { json, problems: namespaceProblems(n) });
  }

  reset(): void {
    this.done.clear();
    for (const s of STATUSES) this.counts[s] = 0;
    this.images = 0;
    this.invalid = 0;
  }

  get size(): number {
    return this.done.size;
  }

  /**
   * stdout (the ScanReport document, in pieces) and stderr (warnings, then failures), as
   * renderScan gives them; `input` is the report's without its namespaces, which are these.
   */
  render(input: ScanDocumentInput): { stdout: string[]; stderr: string } {
    const { failures } = input;
    const doc = scanDocument({ ...input, namespaces: [] });
    doc.totals = {
      ...doc.totals,
      ...this.counts,
      namespaces: this.done.size,
      images: this.images,
      invalid: this.invalid,
    };
    const whole = toJson(doc);
    // In the order the report sorts its results (scan.ts).
    const order = [...this.done.keys()].sort((a, b) => a.localeCompare(b));
    let stderr = '';
    for (const ns of order) stderr += this.done.get(ns)!.problems;
    stderr += failureLines(failures);
    if (order.length === 0) return { stdout: [whole], stderr };
    const at = whole.indexOf(NAMESPACES_LINE);
    if (at < 0) throw new Error('scan report: no namespaces key to fill');
    // Pieces, not one string: the namespaces' texts are written one after the other.
    const stdout = [whole.slice(0, at), '\n  "namespaces": [\n'];
    order.forEach((ns, i) => stdout.push(i ? ',\n' : '', this.done.get(ns)!.json));
    stdout.push('\n  ],\n', whole.slice(at + NAMESPACES_LINE.length));
    return { stdout, stderr };
  }
}
