// How `inv erase` and `inv erase status` draw an EraseReport: a few summary lines, one row per
// node, and each node's targets and images (a dry run's point: which images would go). Also the
// one-line progress the spinner and non-TTY stderr show while a job runs.
import { measuredText } from '../../core/contract/freed-space.js';
import type { Outcome } from '../../core/contract/worker-summary.js';
import { printOut } from '../output/wrap.js';
import type { JobEvent } from '../../core/erase-request/follow.js';
import {
  reportNodeTraits,
  type EraseReport,
  type ImageOutcome,
  type NodeReport,
} from '../../core/erase-request/report.js';
import { formatBytes } from '../../core/size.js';
import { renderTable, terminalWidth, type Column } from '../output/table.js';
import { usagePercent } from '../../core/contract/trigger-results.js';
import { colors } from '../output/style.js';
import type { TemplateOutput } from '../flags.js';
import { parseSortBy, renderData, sortItems } from '../output/print-data.js';

export interface EraseRenderOptions {
  wide?: boolean;
  noHeaders?: boolean;
  width?: number;
}

/** "1m05s", "12s", "2h03m". */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Image IDs as crictl shows them: the first 13 hex digits, without "sha256:". */
export const shortImageId = (id: string): string => id.replace(/^sha256:/, '').slice(0, 13);

/** "imagelist-3-ab12c: 2 running, 1 pending, 5/8 finished (4 succeeded, 1 failed, 0 skipped), 1m05s" */
export function progressLine(r: EraseReport, elapsedMs: number): string {
  const n = r.nodes;
  const who = r.job ?? `imagelist/${r.imageList}`;
  if (!r.job)
    return `${who}: waiting for the controller to start the job, ${formatElapsed(elapsedMs)}${
      elapsedMs >= 30_000 ? ' (no job yet: does the daemon run its erase controllers? see its logs)' : ''
    }`;
  const finished = n.succeeded + n.failed + n.skipped;
  if (r.phase === 'Queued')
    return `${who}: not started, ${r.message ?? 'queued'}, ${formatElapsed(elapsedMs)}`;
  if (n.desired === 0 && r.phase === 'Running') return `${who}: choosing nodes, ${formatElapsed(elapsedMs)}`;
  return `${who}: ${n.running} running, ${n.pending} pending, ${finished}/${n.desired} finished (${n.succeeded} succeeded, ${n.failed} failed, ${n.skipped} skipped), ${formatElapsed(elapsedMs)}`;
}

// Fits 80 columns with node names and reasons truncated; -o wide splits KEPT into its reasons
// and adds the worker Pod.
const nodeColumns = (dry: boolean): Column[] => [
  { header: 'NODE', shrink: true, minWidth: 10 },
  { header: 'OUTCOME' },
  { header: dry ? 'WOULD REMOVE' : 'REMOVED', align: 'right' },
  { header: 'KEPT', align: 'right' },
  { header: 'IN USE', align: 'right', wide: true },
  { header: 'EXCLUDED', align: 'right', wide: true },
  { header: 'PROTECTED', align: 'right', wide: true },
  { header: 'FAILED', align: 'right' },
  { header: dry ? 'WOULD FREE' : 'FREED', align: 'right' },
  { header: 'POD', wide: true },
  { header: 'REASON', shrink: true, minWidth: 10 },
];

function nodeRow(n: NodeReport, dry: boolean): string[] {
  const c = colors();
  const color = c[reportNodeTraits(n.outcome).colour];
  return [
    n.node,
    color(n.outcome),
    String(dry ? n.wouldRemove : n.removed),
    String(n.inUse + n.excluded + n.protected),
    String(n.inUse),
    String(n.excluded),
    String(n.protected),
    String(n.failed),
    formatBytes(n.bytes),
    n.pod ?? '',
    n.reason,
  ];
}

/** "81.20%->69.95%" (before -> after, of the image file system), "-" without a measurement. */
function imageFsCell(n: NodeReport): string {
  if (!n.imageFs) return '-';
  const before = usagePercent(Math.round(n.imageFs.before * 100));
  const after = usagePercent(Math.round(n.imageFs.after * 100));
  return after === before ? before : `${before}->${after}`;
}

// One row per image and outcome, over every node: "legacy-tool:0.9  would-remove  2 nodes  4 MB".
const imageColumns: Column[] = [
  { header: 'IMAGE', shrink: true, minWidth: 16, ref: true },
  { header: 'OUTCOME' },
  { header: 'NODES', shrink: true, minWidth: 7 },
  { header: 'SIZE', align: 'right' },
  { header: 'ID', wide: true },
  { header: 'TARGETS', wide: true },
  { header: 'DETAIL', shrink: true, minWidth: 10 },
];

interface ImageGroup {
  name: string;
  id: string;
  outcome: Outcome;
  size: number;
  nodes: string[];
  targets: Set<string>;
  details: Set<string>;
}

/** The nodes' image rows grouped by image (or, matching none, by target) and outcome. */
export function groupImages(nodes: readonly NodeReport[]): ImageGroup[] {
  const groups = new Map<string, ImageGroup>();
  for (const n of nodes)
    for (const i of n.images ?? []) {
      const key = `${i.image || `target:${i.target}`}|${i.outcome}`;
      let g = groups.get(key);
      if (!g) {
        const name = i.names.length ? i.names.join(', ') : i.image ? shortImageId(i.image) : i.target;
        g = {
          name,
          id: i.image,
          outcome: i.outcome,
          size: i.size,
          nodes: [],
          targets: new Set(),
          details: new Set(),
        };
        groups.set(key, g);
      }
      if (!g.nodes.includes(n.node)) g.nodes.push(n.node);
      g.targets.add(i.target);
      // Scan mode: the scanner's why (CVE count, highest severity, first CVE IDs) beside the rule's.
      const why = [i.detail, vulnText(i.vulnerability)].filter(Boolean).join('; ');
      if (why) g.details.add(why);
    }
  return [...groups.values()];
}

function imageRow(g: ImageGroup, wide: boolean): string[] {
  const details = [...g.details];
  return [
    g.name,
    g.outcome,
    wide || g.nodes.length === 1 ? g.nodes.join(',') : `${g.nodes.length} nodes`,
    g.size ? formatBytes(g.size) : '-',
    g.id || '-',
    [...g.targets].join(','),
    details.length > 1 ? `${details[0]} (+${details.length - 1} more)` : (details[0] ?? ''),
  ];
}

/** The human view: summary lines, the node table, the image table. */
export function renderEraseReport(r: EraseReport, o: EraseRenderOptions = {}): string {
  const c = colors();
  const dry = r.dryRun;
  let out = '';
  const t = { wide: o.wide, noHeaders: o.noHeaders, width: o.width };
  if (r.results.length) {
    // A threshold run: each node's image file system usage, before -> after.
    const fs = r.results.some((n) => n.imageFs);
    const cols = nodeColumns(dry);
    const rows = r.results.map((n) => nodeRow(n, dry));
    if (fs) {
      cols.splice(cols.length - 1, 0, { header: 'IMAGE FS' });
      for (const [i, n] of r.results.entries()) rows[i]!.splice(rows[i]!.length - 1, 0, imageFsCell(n));
    }
    out += renderTable(cols, rows, t);
  }
  // A dry run and a real run show the same rows: every image by name, over every node.
  const withImages = r.results.filter((n) => n.images);
  if (withImages.length) {
    const rows = groupImages(withImages).map((g) => imageRow(g, Boolean(o.wide)));
    if (rows.length) out += `${out ? '\n' : ''}${renderTable(imageColumns, rows, t)}`;
    const cut = withImages.filter((n) => n.imagesTruncated).map((n) => n.node);
    if (cut.length)
      out += `(the list of ${cut.join(', ')} was shortened to fit the worker's 4 KiB termination message: removed and would-remove rows were left out, the counts above are complete)\n`;
  }
  if (o.noHeaders) return out;
  const phaseColor =
    r.phase === 'Completed'
      ? c.green
      : r.phase === 'Running' || r.phase === 'Queued' || r.phase === 'Cancelled'
        ? c.yellow
        : c.red;
  const n = r.nodes;
  const who = r.job ?? `imagelist/${r.imageList}`;
  if (out) out += '\n';
  out += `${who}: ${phaseColor(r.phase)}${dry ? ' (dry run)' : ''}, ${n.desired} node(s): ${n.succeeded} succeeded, ${n.failed} failed, ${n.skipped} skipped${n.running + n.pending ? `, ${n.running} running, ${n.pending} pending` : ''}\n`;
  if (r.message) out += `${r.message}\n`;
  const freedOn = r.results.filter((x) => x.bytes > 0).length;
  out += dry
    ? `would remove ${r.wouldRemove} image(s), would free ${formatBytes(r.bytesWouldFree)} on ${freedOn} node(s)`
    : `removed ${r.removed} image(s), freed ${formatBytes(r.bytesFreed)} on ${freedOn} node(s)${measuredLine(r)}`;
  out += r.protected ? `; ${r.protected} referenced image(s) kept by the inventory's protection\n` : '\n';
  if (r.collisions.length) out += `collisions: ${r.collisions.join(', ')}\n`;
  return out;
}

/**
 * The nodes' runtimes' own figure beside the estimate (", measured 3.1 MB (the listed sizes count
 * a shared layer once per image)"), and how many nodes could not measure it.
 */
function measuredLine(r: EraseReport): string {
  let out = '';
  if (r.bytesMeasured !== undefined && r.bytesMeasuredEstimate !== undefined) {
    out += measuredText(r.bytesMeasuredEstimate, { bytesMeasured: r.bytesMeasured }, formatBytes);
    // Only some nodes measured: say which share of the estimate the figure compares with.
    if (r.bytesMeasuredEstimate !== r.bytesFreed)
      out += ` on ${r.results.filter((x) => x.bytesMeasured !== undefined).length} node(s) whose listed sizes are ${formatBytes(r.bytesMeasuredEstimate)}`;
  }
  if (r.freedNotMeasured) out += `; not measured on ${r.freedNotMeasured} node(s)`;
  return out;
}

/** `inv erase status`: the job's identity and timing first, then the same view as `inv erase`. */
export function renderJobStatus(r: EraseReport, now: number, o: EraseRenderOptions = {}): string {
  if (o.noHeaders) return renderEraseReport(r, o);
  const lines = [
    `Job:        ${r.job ?? '-'}`,
    `ImageList:  ${r.imageList}${r.generation !== null ? ` (generation ${r.generation})` : ''}`,
    `Request:    ${r.dryRun ? 'dry run: ' : ''}${r.images.map((i) => (i === '*' ? '* (every unused image)' : i)).join(', ')}`,
    `Phase:      ${r.phase}`,
  ];
  if (r.startTime) {
    const start = Date.parse(r.startTime);
    const end = r.completionTime ? Date.parse(r.completionTime) : now;
    lines.push(
      `Started:    ${r.startTime} (${formatElapsed(now - start)} ago)`,
      r.completionTime
        ? `Finished:   ${r.completionTime} (took ${formatElapsed(end - start)})`
        : `Running:    ${formatElapsed(end - start)}`,
    );
  }
  return `${lines.join('\n')}\n\n${renderEraseReport(r, o)}`;
}

/** The Events section of `inv erase status`, as kubectl describe shows it. */
export function renderEvents(events: JobEvent[], now: number, o: EraseRenderOptions = {}): string {
  if (events.length === 0) return 'Events:  <none>\n';
  const rows = events.map((e) => [
    e.last ? formatElapsed(now - Date.parse(e.last)) : '-',
    e.type,
    e.reason,
    e.count > 1 ? `${e.message} (x${e.count})` : e.message,
  ]);
  return `Events:\n${renderTable(
    [
      { header: 'LAST SEEN' },
      { header: 'TYPE' },
      { header: 'REASON' },
      { header: 'MESSAGE', shrink: true, minWidth: 20 },
    ],
    rows,
    { wide: o.wide, width: o.width },
  )}`;
}

/** `-o name`: the job (or, before it exists, the list). */
export const reportName = (r: EraseReport): string =>
  r.job ? `imagejob/${r.job}\n` : `imagelist/${r.imageList}\n`;

export const ERASE_OUTPUTS = ['table', 'wide', 'name', 'json', 'yaml'] as const;
export type EraseOutput = (typeof ERASE_OUTPUTS)[number] | TemplateOutput;

/** Prints a report in the chosen output; `status` adds the job's identity and timing. */
export function printReport(
  r: EraseReport,
  output: EraseOutput,
  opts: { noHeaders?: boolean; status?: boolean; sortBy?: string },
): void {
  // What the run did not do, in every output (JSON carries it as notPresent); the exit code stays.
  for (const t of r.notPresent) process.stderr.write(`warning: ${t}: not present on any node\n`);
  // --sort-by orders the nodes in every format, as kubectl orders a list's items.
  if (opts.sortBy) r = { ...r, results: sortItems([...r.results], parseSortBy(opts.sortBy)) };
  // json, yaml and kubectl's templates; custom-columns prints one line per node.
  const data = renderData(r, output, { items: r.results, noHeaders: opts.noHeaders });
  if (data !== undefined) return void process.stdout.write(data);
  if (output === 'name') return void process.stdout.write(reportName(r));
  const o = { wide: output === 'wide', noHeaders: opts.noHeaders, width: terminalWidth() };
  printOut(opts.status ? renderJobStatus(r, Date.now(), o) : renderEraseReport(r, o), { wide: o.wide });
}

/** `inv erase --schedule`: the schedule written, when it runs next, and that nothing waits for it. */
export function renderScheduled(
  s: {
    imageList: string;
    generation: number;
    schedule: string;
    timeZone: string;
    suspended: boolean;
    nextRun: string | null;
  },
  output: EraseOutput,
): string {
  const data = renderData(s, output);
  if (data !== undefined) return data;
  if (output === 'name') return `imagelist/${s.imageList}\n`;
  return `imagelist/${s.imageList} generation ${s.generation}: schedule "${s.schedule}" (${s.timeZone})${
    s.suspended ? ', suspended' : `, next run ${s.nextRun}`
  }.\nNot waiting for a run: the erase controllers of \`inv watch\` start each run; \`kubectl get imagelist ${s.imageList}\` shows the last and next run.\n`;
}

/** `inv erase --no-wait` on a table: the request written, and how to follow it. */
export const renderSubmitted = (bin: string, list: string, generation: number): string =>
  `imagelist/${list} generation ${generation} submitted; follow it with \`${bin} erase status --name ${list} --follow\`\n`;

/** What `inv erase cancel` did. */
export interface CancelOutcome {
  job: string;
  cancelled: boolean;
  alreadyFinished: string | null;
  podsDeleted: string[];
  podsLeft: string[];
  cleanedUp: boolean | null;
}

/** `inv erase cancel`: the outcome in the chosen output (`wait`: whether the command waited for the cleanup). */
export function renderCancel(out: CancelOutcome, output: string, wait: boolean): string {
  const data = renderData(out, output);
  if (data !== undefined) return data;
  if (output === 'name') return `imagejob/${out.job}\n`;
  if (out.alreadyFinished) return `imagejob/${out.job} already ${out.alreadyFinished}: nothing to cancel\n`;
  return `imagejob/${out.job} cancelled: ${out.podsDeleted.length} worker Pod(s) deleted${
    out.cleanedUp ? ', job and its objects cleaned up' : wait ? '' : ', cleanup under way'
  }\n`;
}

/** Scan mode's why: "3 CVE(s), highest HIGH: CVE-1, CVE-2". */
function vulnText(v: ImageOutcome['vulnerability']): string {
  if (!v) return '';
  const count = v.cves === null ? 'vulnerable' : `${v.cves} CVE(s)`;
  return `${count}${v.severity ? `, highest ${v.severity}` : ''}${v.ids.length ? `: ${v.ids.join(', ')}` : ''}`;
}
