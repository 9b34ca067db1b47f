// How `inv erase history` draws the removal record: one row per image of each node's record,
// newest node first, fitted to the terminal (80 columns hold AGE, NODE, OUTCOME, SIZE, IMAGE and
// REASON; -o wide adds the job, the image ID and the target, never truncated). What the record
// does not hold is said under the table, on stderr: rows past the per-node bound, rows the
// controller could not read, parts the retention already deleted.
import type { EraseHistory, HistoryNode } from '../../core/erase-request/history-report.js';
import { formatBytes } from '../../core/size.js';
import { renderTable, type Column, type TableOptions } from '../output/table.js';

/** kubectl's age: "45s", "12m", "5h", "3d". */
export function shortAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

const COLUMNS: Column[] = [
  { header: 'AGE', minWidth: 3 },
  { header: 'NODE', shrink: true, minWidth: 8 },
  { header: 'OUTCOME', minWidth: 7 },
  { header: 'SIZE', align: 'right', minWidth: 4 },
  { header: 'IMAGE', shrink: true, ref: true, minWidth: 20 },
  { header: 'REASON', shrink: true, minWidth: 6 },
  { header: 'JOB', wide: true },
  { header: 'ID', wide: true },
  { header: 'TARGET', wide: true },
];

export function renderHistory(doc: EraseHistory, now: number, opts: TableOptions): string {
  const rows: string[][] = [];
  for (const n of doc.records) {
    const age = shortAge(now - Date.parse(n.finishedAt));
    for (const i of n.images)
      rows.push([
        age,
        n.node,
        i.outcome,
        i.size ? formatBytes(i.size) : '',
        i.names[0] ?? i.id,
        i.reason,
        n.job,
        i.id,
        i.target,
      ]);
  }
  return rows.length ? renderTable(COLUMNS, rows, opts) : '';
}

/** What the record of each node does not hold, one line each (empty when it holds everything). */
export function historyNotes(records: readonly HistoryNode[]): string[] {
  const out: string[] = [];
  for (const n of records) {
    const where = `node ${n.node} of job ${n.job}`;
    if (n.beyond)
      out.push(`${where}: ${n.beyond} more image(s) past the record's bound, counted, not listed`);
    if (n.unrecorded) out.push(`${where}: images not recorded: ${n.unrecorded}`);
    if (n.missingParts)
      out.push(`${where}: ${n.missingParts} part(s) of the record deleted by the retention`);
  }
  return out;
}
