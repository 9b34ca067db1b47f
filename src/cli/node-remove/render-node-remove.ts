// Output of `inv node-remove`: the JSON/YAML report (a fixed shape the controller parses) or a
// readable kubectl-style table (short image IDs, long values truncated to the terminal; -o wide
// shows full IDs and every value) with a one-line summary.
import { measuredText, readFreed } from '../../core/contract/freed-space.js';
import { colors } from '../output/style.js';
import type { TemplateOutput } from '../flags.js';
import { renderData } from '../output/print-data.js';
import { renderTable, type TableOptions } from '../output/table.js';
import { formatBytes } from '../../core/size.js';
import { bytesFreed, imageCounts, type Outcome, type Report } from '../../core/noderemove/types.js';
import { reportData } from './node-remove-data.js';
import { describeAge } from '../../core/noderemove/trigger/trigger.js';
import { formatPercent, percentOf } from '../../core/noderemove/trigger/image-fs.js';
import type { ImageFsReport } from '../../core/noderemove/types.js';
import { traitsOf } from '../../core/contract/worker-summary.js';

/** "Image fs /var/lib/containerd/...: 82.10% of 100 GiB (high 80%, low 70%) -> 69.95%". */
export function imageFsLine(f: ImageFsReport): string {
  const before = formatPercent(percentOf(f));
  const after = formatPercent(percentOf({ used: f.usedAfter, capacity: f.capacity }));
  return (
    `Image fs ${f.mountPoint}: ${formatBytes(f.used)} of ${formatBytes(f.capacity)}, ${before} ` +
    `(high ${f.highPercent}%, low ${f.lowPercent}%)${f.usedAfter !== f.used ? ` -> ${after}` : ''}`
  );
}

export { reportData } from './node-remove-data.js';

/** "unused for 9d" after the detail, unless the detail already says how long. */
const withAge = (detail: string, ms: number | undefined) =>
  ms === undefined || /unused for|first seen unused/.test(detail)
    ? detail
    : [detail, describeAge(ms)].filter(Boolean).join('; ');

const shortId = (id: string) => (id.startsWith('sha256:') ? id.slice(7, 19) : id.slice(0, 12));

export function renderReport(
  report: Report,
  output: 'table' | 'wide' | 'json' | 'yaml' | TemplateOutput,
  opts: TableOptions = {},
): string {
  const doc = reportData(report);
  const data = renderData(doc, output, { items: doc.results, noHeaders: opts.noHeaders });
  if (data !== undefined) return data;
  const c = colors();
  const paint = (o: Outcome) => c[traitsOf(o).colour];
  const rt = `${report.runtime.name} ${report.runtime.version} (CRI ${report.runtime.apiVersion})`;
  let out = opts.noHeaders ? '' : `${c.bold(`Node ${report.node || '(unnamed)'}`)}  ${c.dim(rt)}\n`;
  if (report.imageFs && !opts.noHeaders) out += `${imageFsLine(report.imageFs)}\n`;
  if (report.results.length === 0) return opts.noHeaders ? '' : `${out}${c.dim('no images matched\n')}`;
  const wide = output === 'wide';
  const rows = report.results.map((r) => [
    r.target,
    wide ? r.imageId : shortId(r.imageId),
    paint(r.outcome)(r.outcome),
    r.aliases.filter((a) => a !== r.imageId).join(',') || '-',
    withAge(r.error || r.detail || '', r.unusedForMs),
  ]);
  out += renderTable(
    [
      { header: 'TARGET', shrink: true, minWidth: 16, ref: true, collapse: true },
      { header: 'IMAGE ID' },
      { header: 'OUTCOME' },
      { header: 'NAMES', shrink: true, minWidth: 16 },
      { header: 'DETAIL', shrink: true, minWidth: 12 },
    ],
    rows,
    { ...opts, wide },
  );
  if (opts.noHeaders) return out;
  const counts = Object.entries(imageCounts(report.results)) as [Outcome, number][];
  out += `${counts.map(([o, n]) => `${n} ${paint(o)(o)}`).join(', ')}`;
  const freed = bytesFreed(report.results);
  const dry = report.results.some((r) => r.outcome === 'would-remove');
  if (freed > 0) out += `; ${dry ? 'would free' : 'freed'} ${formatBytes(freed)}`;
  // The runtime's own figure beside the estimate (contract/freed-space.ts).
  const m = readFreed(report.freed);
  if (freed > 0 && !dry && m) out += measuredText(freed, m, formatBytes);
  out += '\n';
  return out;
}
