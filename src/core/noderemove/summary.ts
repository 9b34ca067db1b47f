// The compact summary written to the Pod's termination-message file, so the controller reads
// per-node results from the Pod status without needing RBAC for logs. The kubelet keeps at most
// 4096 bytes, so the summary degrades in steps until it fits: full list, then only the
// non-trivial results, then counts plus failures, then counts alone.
import fs from 'node:fs';
import path from 'node:path';
import { describeAge } from './trigger/trigger.js';
import { bytesFreed, imageCounts, imageNames, type Report, type Result } from './types.js';
import { removes, traitsOf, type SummaryRow, type SummaryScan } from '../contract/worker-summary.js';

export const TERMINATION_MESSAGE_LIMIT = 4096;

/** A removal in a threshold or age run: how long it had been unused ("unused for 9d"). */
const age = (r: Result) => (r.unusedForMs !== undefined ? describeAge(r.unusedForMs) : '');

// Short keys, as the contract spells them (contract/worker-summary.ts SummaryRow).
const row = (r: Result, cves = 5): SummaryRow => {
  // Outcomes whose reason travels with the row (`inv erase` shows it per image): `explained`.
  const e = r.error || (traitsOf(r.outcome).explained ? r.detail : '') || age(r);
  const n = imageNames(r.aliases, r.imageId).slice(0, 3);
  return {
    t: r.target,
    i: r.imageId,
    o: r.outcome,
    ...(e ? { e } : {}),
    ...(n.length ? { n } : {}),
    ...(r.size ? { s: r.size } : {}),
    ...(r.vuln
      ? { v: [r.vuln.cveCount ?? null, r.vuln.highestSeverity ?? '', (r.vuln.cves ?? []).slice(0, cves)] }
      : {}),
  };
};

/** Scan mode's head: candidates, vulnerable, kept, CVEs, highest severity, ms, why it failed. */
const scanHead = (report: Report): { scan?: SummaryScan } =>
  report.scan
    ? {
        scan: {
          c: report.scan.candidates,
          v: report.scan.vulnerable,
          k: report.scan.kept,
          n: report.scan.cves,
          s: report.scan.highestSeverity,
          ms: report.scan.ms,
          ...(report.scan.failed ? { f: report.scan.failed.slice(0, 300) } : {}),
          // Images the scanner could not judge, by reason code (scan-failures.ts).
          ...(report.scan.failures ? { x: report.scan.failures } : {}),
        },
      }
    : {};
export function terminationSummary(report: Report, limit = TERMINATION_MESSAGE_LIMIT): string {
  const head = {
    node: report.node,
    runtime: `${report.runtime.name} ${report.runtime.version}`,
    // Each image once, whatever the number of targets that matched it.
    counts: imageCounts(report.results),
    /** Bytes freed (or, in a dry run, that would be), as the runtime listed the images. */
    bytes: bytesFreed(report.results),
    /** The runtime's image file system usage [before, after] the removals, or why not measured. */
    ...(report.freed !== undefined ? { fm: report.freed } : {}),
    ...scanHead(report),
    /** A threshold run: image file system bytes used before, capacity, used after (estimated). */
    ...(report.imageFs
      ? { fs: { u: report.imageFs.used, c: report.imageFs.capacity, a: report.imageFs.usedAfter } }
      : {}),
  };
  const interesting = report.results.filter((r) => !removes(r.outcome));
  const failed = report.results.filter((r) => traitsOf(r.outcome).fails === 'run');
  // Scan mode: what the scanner condemned is what the reader wants, the clean ones are not.
  const named = report.results.filter((r) => r.vuln || r.outcome === 'failed');
  // A threshold or age run: what went, with how long it had been unused, matters more than the
  // many images the trigger kept (their counts stay in the head).
  const triggered = report.results.filter((r) => !traitsOf(r.outcome).triggerKept);
  const attempts: object[] = [
    { ...head, results: report.results.map((r) => row(r)) },
    ...(report.scan
      ? [
          { ...head, truncated: true, results: named.map((r) => row(r)) },
          { ...head, truncated: true, results: named.map((r) => row(r, 1)) },
        ]
      : [
          ...(triggered.length < report.results.length
            ? [{ ...head, truncated: true, results: triggered.map((r) => row(r)) }]
            : []),
          { ...head, truncated: true, results: interesting.map((r) => row(r)) },
        ]),
    { ...head, truncated: true, results: failed.map((r) => row(r)) },
  ];
  for (const a of attempts) {
    const s = JSON.stringify(a);
    if (Buffer.byteLength(s) <= limit) return s;
  }
  // Failures alone are too long: keep as many as fit, with errors cut short.
  const out = { ...head, truncated: true, results: [] as object[] };
  for (const f of failed) {
    out.results.push({ ...row(f), e: f.error.slice(0, 200) });
    if (Buffer.byteLength(JSON.stringify(out)) > limit) {
      out.results.pop();
      break;
    }
  }
  return JSON.stringify(out);
}

/**
 * Writes the summary when running in a Pod: the kubelet mounts the termination-message file
 * (so it exists), or KUBERNETES_SERVICE_HOST is set, or the path was passed explicitly and its
 * directory exists. On a workstation the default /dev/termination-log is left alone.
 * Returns the path written, or undefined.
 */
export function writeTerminationMessage(file: string, explicit: boolean, report: Report): string | undefined {
  const dir = path.dirname(file);
  const inPod = fs.existsSync(file) || Boolean(process.env.KUBERNETES_SERVICE_HOST);
  if (!(inPod || explicit) || !fs.existsSync(dir)) return undefined;
  try {
    fs.writeFileSync(file, terminationSummary(report));
    return file;
  } catch {
    return undefined; // best effort: the report on stdout is the primary output
  }
}
