// Renders `inv check` results like `linkerd check`: a heading per group, one line per check
// (√ pass, ‼ warning, - not installed, × failure) with what was found, and a hint under each
// line that is not a pass.
import type { CheckResult } from '../../core/check/checks.js';
import type { Output } from '../flags.js';
import { renderData } from '../output/print-data.js';
import { reportDocument } from '../output/output-shape.js';
import { colors } from '../output/style.js';

const MARKS: Record<CheckResult['status'], (c: ReturnType<typeof colors>) => string> = {
  pass: (c) => c.green('√'),
  warn: (c) => c.yellow('‼'),
  skip: (c) => c.dim('-'),
  fail: (c) => c.red('×'),
};

export function renderChecks(results: CheckResult[], output: Output): string {
  const ok = results.every((r) => r.status !== 'fail');
  const doc = reportDocument('CheckReport', { passed: ok, checks: results });
  const data = renderData(doc, output, { items: results });
  if (data !== undefined) return data;
  const c = colors();
  const lines: string[] = [];
  let group = '';
  for (const r of results) {
    if (r.group !== group) {
      if (group) lines.push('');
      group = r.group;
      lines.push(group, '-'.repeat(group.length));
    }
    const mark = MARKS[r.status](c);
    lines.push(`${mark} ${r.name}${r.detail ? `: ${r.detail}` : ''}`);
    if (r.status !== 'pass' && r.hint) lines.push(`    ${c.dim(`hint: ${r.hint}`)}`);
  }
  lines.push('', `Status check results are ${ok ? c.green('√') : c.red('×')}`);
  return `${lines.join('\n')}\n`;
}
