// The compact summary written to the Pod's termination-message file, so the controller reads
// per-node results from the Pod status without needing RBAC for logs. The kubelet keeps at most
// 4096 bytes, so the summary degrades in steps until it fits: full list, then only the
// non-trivial results, then counts plus failures, then counts alone.
import fs from 'node:fs';
import path from 'node:path';
import { bytesFreed, type Outcome, type Report, type Result } from './types.js';

export const TERMINATION_MESSAGE_LIMIT = 4096;

type Counts = Partial<Record<Outcome, number>>;

function counts(results: readonly Result[]): Counts {
  const c: Counts = {};
  for (const r of results) c[r.outcome] = (c[r.outcome] ?? 0) + 1;
  return c;
}

// Short keys: the budget is tight. t=target, i=image ID, o=outcome, e=error (or, for
// protected, the reason).
const row = (r: Result) => {
  const e = r.error || (r.outcome === 'protected' ? r.detail : '');
  return { t: r.target, i: r.imageId, o: r.outcome, ...(e ? { e } : {}) };
};

export function terminationSummary(report: Report, limit = TERMINATION_MESSAGE_LIMIT): string {
  const head = {
    node: report.node,
    runtime: `${report.runtime.name} ${report.runtime.version}`,
    counts: counts(report.results),
    /** Bytes freed (or, in a dry run, that would be), as the runtime listed the images. */
    bytes: bytesFreed(report.results),
  };
  const interesting = report.results.filter((r) => r.outcome !== 'removed' && r.outcome !== 'would-remove');
  const failed = report.results.filter((r) => r.outcome === 'failed');
  const attempts: object[] = [
    { ...head, results: report.results.map(row) },
    { ...head, truncated: true, results: interesting.map(row) },
    { ...head, truncated: true, results: failed.map(row) },
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
