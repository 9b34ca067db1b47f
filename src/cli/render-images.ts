// Renders the image report (`inv images`): tables with cli-table3, JSON/YAML of the rows, and
// `-o name` (one image, namespace or registry per line) for scripts.
import type { ReportRows } from '../core/report/image-report.js';
import { table, toJson, toYaml } from './style.js';

export type ReportOutput = 'table' | 'wide' | 'json' | 'yaml' | 'name';

/** At most this many users per cell in -o wide; the count says how many there are. */
const WIDE_USERS = 5;

export function renderImageReport(report: ReportRows, output: ReportOutput): string {
  if (output === 'json') return toJson(report);
  if (output === 'yaml') return toYaml(report);
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
  const wide = output === 'wide';
  if (report.by === 'namespace') {
    const t = table(['NAMESPACE', 'IMAGES', 'REGISTRIES', 'USERS']);
    for (const r of report.rows) t.push([r.namespace, r.images, r.registries, r.userCount]);
    return `${t.toString()}\n`;
  }
  if (report.by === 'registry') {
    const t = table(['REGISTRY', 'IMAGES', 'NAMESPACES', 'USERS']);
    for (const r of report.rows) t.push([r.registry, r.images, r.namespaces, r.userCount]);
    return `${t.toString()}\n`;
  }
  const t = table(['IMAGE', 'NAMESPACES', 'KINDS', 'USERS', ...(wide ? ['WHO'] : [])]);
  for (const r of report.rows) {
    const who = r.namespaces.flatMap((n) => n.users.map((u) => `${n.namespace}/${u}`));
    const shown =
      who.slice(0, WIDE_USERS).join('\n') + (r.userCount > WIDE_USERS ? `\n(${r.userCount} in all)` : '');
    t.push([
      r.image,
      r.namespaces.map((n) => n.namespace).join(','),
      r.kinds.join(','),
      r.userCount,
      ...(wide ? [shown] : []),
    ]);
  }
  return `${t.toString()}\n`;
}
