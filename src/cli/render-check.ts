// Renders `inv check` results like `linkerd check`: a heading per group, one line per check
// (✔ pass, ‼ warning, × failure) with what was found, and a hint under each failure.
import type { CheckResult } from '../core/check/checks.js';
import type { OutputFormat } from './flags.js';
import { reportDocument } from './output-shape.js';
import { colors, toJson, toYaml } from './style.js';

export function renderChecks(results: CheckResult[], output: OutputFormat): string {
  const ok = results.every((r) => r.status !== 'fail');
  const doc = reportDocument('CheckReport', { passed: ok, checks: results });
  if (output === 'json') return toJson(doc);
  if (output === 'yaml') return toYaml(doc);
  const c = colors();
  const lines: string[] = [];
  let group = '';
  for (const r of results) {
    if (r.group !== group) {
      if (group) lines.push('');
      group = r.group;
      lines.push(group, '-'.repeat(group.length));
    }
    const mark = r.status === 'pass' ? c.green('√') : r.status === 'warn' ? c.yellow('‼') : c.red('×');
    lines.push(`${mark} ${r.name}${r.detail ? `: ${r.detail}` : ''}`);
    if (r.status !== 'pass' && r.hint) lines.push(`    ${c.dim(`hint: ${r.hint}`)}`);
  }
  lines.push('', `Status check results are ${ok ? c.green('√') : c.red('×')}`);
  return `${lines.join('\n')}\n`;
}
