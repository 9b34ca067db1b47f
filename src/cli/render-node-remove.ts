// Output of `inv node-remove`: the JSON/YAML report (a fixed shape the controller parses) or a
// readable kubectl-style table (short image IDs, long values truncated to the terminal; -o wide
// shows full IDs and every value) with a one-line summary.
import { colors, toJson, toYaml } from './style.js';
import { renderTable, type TableOptions } from './table.js';
import { formatBytes } from '../core/size.js';
import { bytesFreed, type Outcome, type Report } from '../core/noderemove/types.js';
import { reportData } from './node-remove-data.js';

export { reportData } from './node-remove-data.js';

const shortId = (id: string) => (id.startsWith('sha256:') ? id.slice(7, 19) : id.slice(0, 12));

export function renderReport(
  report: Report,
  output: 'table' | 'wide' | 'json' | 'yaml',
  opts: TableOptions = {},
): string {
  if (output === 'json') return toJson(reportData(report));
  if (output === 'yaml') return toYaml(reportData(report));
  const c = colors();
  const paint: Record<Outcome, (s: string) => string> = {
    removed: c.green,
    'would-remove': c.cyan,
    'in-use': c.yellow,
    pinned: c.yellow,
    'sandbox-image': c.dim,
    excluded: c.dim,
    protected: c.yellow,
    'not-present': c.dim,
    invalid: c.red,
    failed: c.red,
  };
  const rt = `${report.runtime.name} ${report.runtime.version} (CRI ${report.runtime.apiVersion})`;
  let out = opts.noHeaders ? '' : `${c.bold(`Node ${report.node || '(unnamed)'}`)}  ${c.dim(rt)}\n`;
  if (report.results.length === 0) return opts.noHeaders ? '' : `${out}${c.dim('no images matched\n')}`;
  const wide = output === 'wide';
  const rows = report.results.map((r) => [
    r.target,
    wide ? r.imageId : shortId(r.imageId),
    paint[r.outcome](r.outcome),
    r.aliases.filter((a) => a !== r.imageId).join(',') || '-',
    r.error || r.detail || '',
  ]);
  out += renderTable(
    [
      { header: 'TARGET', shrink: true, minWidth: 16 },
      { header: 'IMAGE ID' },
      { header: 'OUTCOME' },
      { header: 'NAMES', shrink: true, minWidth: 16 },
      { header: 'DETAIL', shrink: true, minWidth: 12 },
    ],
    rows,
    { ...opts, wide },
  );
  if (opts.noHeaders) return out;
  const counts = new Map<Outcome, number>();
  for (const r of report.results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  out += `${[...counts].map(([o, n]) => `${n} ${paint[o](o)}`).join(', ')}`;
  const freed = bytesFreed(report.results);
  const dry = report.results.some((r) => r.outcome === 'would-remove');
  if (freed > 0) out += `; ${dry ? 'would free' : 'freed'} ${formatBytes(freed)}`;
  out += '\n';
  return out;
}
