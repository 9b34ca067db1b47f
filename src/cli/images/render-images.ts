// Renders the image report (`inv images`): kubectl-style tables fitted to the terminal, the
// ImageReport document (docs/output.md) for -o json|yaml, and -o name for scripts. `inv images`
// groups the Image resources of many namespaces into one row per ref, so there is no single
// object to name: -o name prints the refs (or the namespaces, or the registries, with --by).
import type { ReportRows } from '../../core/report/image-report.js';
import { reportDocument } from '../output/output-shape.js';
import type { TemplateOutput } from '../flags.js';
import { renderData } from '../output/print-data.js';
import { renderTable, type TableOptions } from '../output/table.js';

export type ReportOutput = 'table' | 'wide' | 'json' | 'yaml' | 'name' | TemplateOutput;

/** At most this many users per cell in -o wide; the count says how many there are. */
const WIDE_USERS = 5;

export function imageReportDocument(report: ReportRows, source: 'cluster' | 'files') {
  return reportDocument('ImageReport', { source, by: report.by, rows: report.rows });
}

export function renderImageReport(
  report: ReportRows,
  output: ReportOutput,
  opts: TableOptions & { source?: 'cluster' | 'files' } = {},
): string {
  // json, yaml and kubectl's templates; custom-columns prints one line per row.
  const data = renderData(imageReportDocument(report, opts.source ?? 'cluster'), output, {
    items: report.rows,
    noHeaders: opts.noHeaders,
  });
  if (data !== undefined) return data;
  if (output === 'name') {
    const names =
      report.by === 'image'
        ? report.rows.map((r) => r.image)
        : report.by === 'namespace'
          ? report.rows.map((r) => r.namespace)
          : report.rows.map((r) => r.registry);
    return names.length ? `${names.join('\n')}\n` : '';
  }
  if (report.rows.length === 0) return ''; // the command says "no image matched" on stderr
  const t = { ...opts, wide: output === 'wide' };
  const right = { align: 'right' as const };
  if (report.by === 'namespace') {
    return renderTable(
      [
        { header: 'NAMESPACE', shrink: true },
        { header: 'IMAGES', ...right },
        { header: 'REGISTRIES', ...right },
        { header: 'USERS', ...right },
      ],
      report.rows.map((r) => [r.namespace, String(r.images), String(r.registries), String(r.userCount)]),
      t,
    );
  }
  if (report.by === 'registry') {
    return renderTable(
      [
        { header: 'REGISTRY', shrink: true },
        { header: 'IMAGES', ...right },
        { header: 'NAMESPACES', ...right },
        { header: 'USERS', ...right },
      ],
      report.rows.map((r) => [r.registry, String(r.images), String(r.namespaces), String(r.userCount)]),
      t,
    );
  }
  return renderTable(
    [
      { header: 'IMAGE', shrink: true, minWidth: 24, ref: true },
      { header: 'USERS', ...right },
      { header: 'KINDS' },
      { header: 'NAMESPACES', shrink: true, minWidth: 12, collapse: true },
      { header: 'WHO', wide: true },
    ],
    report.rows.map((r) => {
      const who = r.namespaces.flatMap((n) => n.users.map((u) => `${n.namespace}/${u}`));
      const shown =
        who.slice(0, WIDE_USERS).join(',') + (r.userCount > WIDE_USERS ? ` (${r.userCount} in all)` : '');
      return [
        r.image,
        String(r.userCount),
        r.kinds.join(','),
        r.namespaces.map((n) => n.namespace).join(','),
        shown,
      ];
    }),
    t,
  );
}
