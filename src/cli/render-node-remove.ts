// Output of `inv node-remove`: the JSON/YAML report (a fixed shape the controller parses) or a
// readable table with a one-line summary.
import { colors, table, toJson, toYaml } from './style.js';
import { formatBytes } from '../core/size.js';
import { bytesFreed, type Outcome, type Report } from '../core/noderemove/types.js';
import { reportData } from './node-remove-data.js';

export { reportData } from './node-remove-data.js';

const shortId = (id: string) => (id.startsWith('sha256:') ? id.slice(7, 19) : id.slice(0, 12));

export function renderReport(report: Report, output: 'table' | 'json' | 'yaml'): string {
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
  let out = `${c.bold(`Node ${report.node || '(unnamed)'}`)}  ${c.dim(rt)}\n`;
  if (report.results.length === 0) return `${out}${c.dim('no images matched\n')}`;
  const t = table(['TARGET', 'IMAGE', 'OUTCOME', 'NAMES', 'DETAIL']);
  for (const r of report.results) {
    const names = r.aliases.filter((a) => a !== r.imageId).join('\n');
    t.push([r.target, shortId(r.imageId), paint[r.outcome](r.outcome), names, r.error || r.detail]);
  }
  out += `${t.toString()}\n`;
  const counts = new Map<Outcome, number>();
  for (const r of report.results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  out += `${[...counts].map(([o, n]) => `${n} ${paint[o](o)}`).join(', ')}`;
  const freed = bytesFreed(report.results);
  const dry = report.results.some((r) => r.outcome === 'would-remove');
  if (freed > 0) out += `; ${dry ? 'would free' : 'freed'} ${formatBytes(freed)}`;
  out += '\n';
  return out;
}
