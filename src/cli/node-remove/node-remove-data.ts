// The machine-readable report of `inv node-remove` (the shape the erase controller parses), apart
// from the table renderer: -o json, which every worker Pod prints, then loads neither the table
// nor the spinner libraries (35 ms of a profiled 330 ms one-image run).
import { bytesFreed, type Report } from '../../core/noderemove/types.js';
import { traitsOf } from '../../core/contract/worker-summary.js';
import type { WorkerReportRow } from '../../core/contract/removal-record.js';

/** The machine-readable report: exactly these keys, in this order. */
export function reportData(report: Report) {
  return {
    node: report.node,
    runtime: {
      name: report.runtime.name,
      version: report.runtime.version,
      apiVersion: report.runtime.apiVersion,
    },
    // The rows the erase controller reads from the worker's log into the removal record.
    results: report.results.map((r) => ({
      ...({
        target: r.target,
        imageId: r.imageId,
        aliases: r.aliases,
        size: r.size,
        outcome: r.outcome,
        error: r.error,
        reason: traitsOf(r.outcome).error ? '' : r.detail,
      } satisfies WorkerReportRow),
      // Scan mode only: what the scanner said of the image.
      ...(r.vuln ? { vulnerability: r.vuln } : {}),
      /** Seconds the node's record has seen it unused (threshold and minimum-age runs only). */
      ...(r.unusedForMs !== undefined ? { unusedForSeconds: Math.floor(r.unusedForMs / 1000) } : {}),
    })),
    /** Bytes the removed images took (would take, in a dry run), each image once. */
    bytesFreed: bytesFreed(report.results),
    /** A real run that removed images: what the runtime measured (contract/freed-space.ts). */
    ...(Array.isArray(report.freed)
      ? { imageFsUsed: { before: report.freed[0], after: report.freed[1] } }
      : report.freed
        ? { freedNotMeasured: report.freed }
        : {}),
    warnings: [...(report.warnings ?? [])],
    ...(report.scan ? { scan: report.scan } : {}),
    /** A threshold run: the image file system (bytes) before and, estimated, after. */
    ...(report.imageFs
      ? {
          imageFs: {
            used: report.imageFs.used,
            capacity: report.imageFs.capacity,
            available: report.imageFs.available,
            mountPoint: report.imageFs.mountPoint,
            highPercent: report.imageFs.highPercent,
            lowPercent: report.imageFs.lowPercent,
            usedAfter: report.imageFs.usedAfter,
          },
        }
      : {}),
  };
}

/** The report as `-o json` prints it (the same formatting as style.ts toJson). */
export function reportJson(report: Report): string {
  return `${JSON.stringify(reportData(report), null, 2)}\n`;
}
