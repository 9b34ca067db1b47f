// Renders `inv scan` results: tables grouped by namespace, or the same data as JSON/YAML.
import type { OfflineReport } from '../core/inventory/manifests.js';
import type { ImageOutcome } from '../core/inventory/reconcile.js';
import type { ScanReport } from '../core/inventory/scan.js';
import type { OutputFormat } from './flags.js';
import { colors, table, toJson, toYaml } from './style.js';
import { abbreviate } from '../core/refs/abbreviate.js';

function changeLabel(o: ImageOutcome, dryRun: boolean): string {
  const c = colors();
  if (o.result === 'failed') return c.red(`${o.change} failed: ${o.error ?? ''}`);
  // Skipped work (a name taken by someone else's Image, a namespace being deleted) is never
  // shown as done, whatever was planned.
  if (o.result === 'skipped' || o.change === 'conflict') return c.yellow(`skipped: ${o.error ?? ''}`);
  const words = {
    create: ['created', 'would create'],
    update: ['updated', 'would update'],
    delete: ['deleted', 'would delete'],
    none: ['unchanged', 'unchanged'],
  } as const;
  const w = words[o.change][dryRun ? 1 : 0];
  if (o.change === 'create') return c.green(w);
  if (o.change === 'delete') return c.red(w);
  if (o.change === 'update') return c.cyan(`${w} (kinds were ${o.previousKinds || '-'})`);
  return c.dim(w);
}

export function scanReportData(report: ScanReport, dryRun: boolean) {
  return {
    dryRun,
    namespaces: report.results.map((r) => ({
      namespace: r.namespace,
      counts: r.counts,
      writes: r.writes,
      images: r.images,
      invalid: r.invalid.map((i) => ({
        namespace: i.namespace,
        source: i.source,
        container: i.container,
        image: i.image,
        reason: i.reason,
      })),
      errors: r.errors,
      warnings: r.warnings,
    })),
    failures: report.failures,
  };
}

export function renderScanReport(report: ScanReport, output: OutputFormat, dryRun = false): string {
  if (output === 'json') return toJson(scanReportData(report, dryRun));
  if (output === 'yaml') return toYaml(scanReportData(report, dryRun));
  const c = colors();
  let out = '';
  for (const r of report.results) {
    const { created, updated, deleted, unchanged } = r.counts;
    const summary = dryRun
      ? `dry run, ${r.images.filter((i) => i.change !== 'none').length} change(s) planned`
      : `${created} created, ${updated} updated, ${deleted} deleted, ${unchanged} unchanged`;
    out += `${c.bold(`Namespace ${r.namespace}`)}  ${c.dim(summary)}\n`;
    if (r.images.length === 0) {
      out += c.dim('  no images referenced\n');
    } else {
      const t = table(['IMAGE', 'KINDS', 'CHANGE']);
      for (const o of r.images)
        t.push([o.image, o.change === 'delete' ? c.dim(o.kinds || '-') : o.kinds, changeLabel(o, dryRun)]);
      out += `${t.toString()}\n`;
    }
    for (const i of r.invalid) {
      out += c.yellow(
        `warning: ${i.source} container ${i.container}: invalid image ${JSON.stringify(abbreviate(i.image))}: ${i.reason}\n`,
      );
    }
    for (const w of r.warnings) out += c.yellow(`warning: ${w}\n`);
    out += '\n';
  }
  for (const f of report.failures) out += c.red(`error: namespace ${f.namespace}: ${f.error}\n`);
  return out;
}

export function renderOfflineReport(report: OfflineReport, output: OutputFormat): string {
  if (output === 'json') return toJson(report);
  if (output === 'yaml') return toYaml(report);
  const c = colors();
  let out = '';
  const namespaces = [
    ...new Set(report.images.map((i) => i.namespace).concat(report.invalid.map((i) => i.namespace))),
  ].sort();
  for (const ns of namespaces) {
    const imgs = report.images.filter((i) => i.namespace === ns);
    out += `${c.bold(`Namespace ${ns}`)}  ${c.dim(`${imgs.length} image(s)`)}\n`;
    if (imgs.length) {
      const t = table(['IMAGE', 'KINDS', 'NAME']);
      for (const i of imgs) t.push([i.image, i.kinds, c.dim(i.name)]);
      out += `${t.toString()}\n`;
    }
    for (const i of report.invalid.filter((x) => x.namespace === ns)) {
      out += c.yellow(
        `warning: ${i.source} container ${i.container}: invalid image ${JSON.stringify(abbreviate(i.image))}: ${i.reason}\n`,
      );
    }
    out += '\n';
  }
  if (!namespaces.length) out += c.dim('no workloads with images found\n');
  return out;
}
