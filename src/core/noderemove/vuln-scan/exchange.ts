// Scan mode of `inv node-remove`: between deciding and removing, the `*` candidates go to the
// scanner beside the worker and only those it names go (answer.ts decides, pipes.ts
// talks). Fail closed: a scanner that crashes, hangs, answers garbage or too much, or never
// answers, removes nothing on this node, and the node fails with the reason.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { severityRank } from '../../contract/severity.js';
import { AnswerError, candidateList, narrow, parseAnswer, type ScanPolicy } from './answer.js';
import { readScanErase, readScanFailed, ScanPipeError, sendComplete, writeCollectScan } from './pipes.js';
import { countFailures, parseScanFailures, type ScanFailure } from '../../contract/scan-failures.js';
import type { Decision, Result, ScanReport, VulnInfo } from '../types.js';
import { removes } from '../../contract/worker-summary.js';

export interface ScanOptions extends ScanPolicy {
  /** The shared folder (/run/eraser.sh/shared-data in the worker Pod). */
  dir: string;
  /** inv's own deadline for the answer, from handing over the candidates. */
  timeoutMs: number;
  /** The scanner's --config file and the digest it must have (checked before anything is sent). */
  configFile?: string;
  configSha256?: string;
  maxAnswerBytes?: number;
  /** How long the scanner may take to start reading `complete` (default 10 s). */
  completeWaitMs?: number;
  signal?: AbortSignal;
}

export interface ScanOutcome {
  decisions: Decision[];
  vulns: Map<string, VulnInfo>;
  warnings: string[];
  report: ScanReport;
}

/** A scanner configuration file that is not what the controller recorded: nothing is sent. */
function checkConfig(opts: ScanOptions): void {
  if (!opts.configFile || !opts.configSha256) return;
  const fd = fs.openSync(opts.configFile, 'r');
  let text: Buffer;
  try {
    const buf = Buffer.allocUnsafe(1024 * 1024 + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    text = buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
  const sum = createHash('sha256').update(text).digest('hex');
  if (sum !== opts.configSha256.toLowerCase())
    throw new ScanPipeError(
      `the scanner configuration ${opts.configFile} is not the one the controller wrote (sha256 ${sum})`,
    );
}

/**
 * Runs the exchange and narrows the decisions. Never throws for the scanner's faults: they come
 * back as a report with `failed` and decisions that remove nothing.
 */
export async function scanAndNarrow(decisions: readonly Decision[], opts: ScanOptions): Promise<ScanOutcome> {
  const candidates = candidateList(decisions);
  const started = Date.now();
  const report: ScanReport = {
    candidates: candidates.length,
    vulnerable: 0,
    kept: 0,
    cves: 0,
    highestSeverity: '',
    ms: 0,
  };
  try {
    checkConfig(opts);
    writeCollectScan(opts.dir, JSON.stringify(candidates));
    const text = await readScanErase(opts.dir, {
      deadline: started + opts.timeoutMs,
      maxBytes: opts.maxAnswerBytes,
      signal: opts.signal,
    });
    const answer = parseAnswer(text);
    // inv's scanner says which images it could not judge (Eraser's say nothing of them).
    const failedText = readScanFailed(opts.dir);
    let failures: ScanFailure[] = [];
    if (failedText !== undefined) {
      try {
        failures = parseScanFailures(failedText);
      } catch (e) {
        throw new AnswerError((e as Error).message);
      }
    }
    const n = narrow(decisions, answer, opts, failures);
    report.ms = Date.now() - started;
    if (n.failures.length) report.failures = countFailures(n.failures.map((f) => f.reason));
    return { decisions: n.decisions, vulns: n.vulns, warnings: n.warnings, report };
  } catch (e) {
    if (!(e instanceof ScanPipeError || e instanceof AnswerError || (e as NodeJS.ErrnoException).code))
      throw e;
    report.ms = Date.now() - started;
    report.failed = `scan failed, nothing removed on this node: ${(e as Error).message}`;
    return { decisions: failClosed(decisions, report.failed), vulns: new Map(), warnings: [], report };
  }
}

/** No candidate goes; one failed row carries the reason (the node's reason in the job). */
function failClosed(decisions: readonly Decision[], reason: string): Decision[] {
  const kept = decisions.filter((d) => d.action === 'keep');
  return [
    { target: '*', imageId: '', aliases: [], size: 0, action: 'keep', outcome: 'failed', detail: reason },
    ...kept,
  ];
}

/**
 * After the removals: results get what the scanner said; a named image a container took in the
 * meantime is `vulnerable-kept`; the report's counts are filled in.
 */
export function annotate(
  results: Result[],
  vulns: ReadonlyMap<string, VulnInfo>,
  report: ScanReport,
): Result[] {
  let best = -1;
  const out = results.map((r): Result => {
    const v = r.imageId ? vulns.get(r.imageId) : undefined;
    if (!v) return r;
    const gone = removes(r.outcome);
    const kept = r.outcome === 'vulnerable-kept' || (r.outcome === 'in-use' && v.status === 'vulnerable');
    if (!gone && !kept) return { ...r, vuln: v };
    if (gone) report.vulnerable++;
    else report.kept++;
    report.cves += v.cveCount ?? 0;
    const rank = severityRank(v.highestSeverity);
    if (rank > best) {
      best = rank;
      report.highestSeverity = v.highestSeverity ?? '';
    }
    return gone || r.outcome === 'vulnerable-kept'
      ? { ...r, vuln: v }
      : { ...r, outcome: 'vulnerable-kept', detail: `in-use: ${r.detail}`, vuln: v };
  });
  return out;
}

/**
 * Lets the scanner exit, whatever happened; what went wrong is a warning, not a failure. After a
 * failed scan the scanner may be dead or stuck: it gets a second, not ten, to listen.
 */
export async function finishScan(opts: ScanOptions, failed = false): Promise<string | undefined> {
  try {
    const what = await sendComplete(opts.dir, failed ? 1000 : (opts.completeWaitMs ?? 10_000), opts.signal);
    return what === 'sent' || what === 'written as a file'
      ? undefined
      : `scanner not told to finish: ${what}`;
  } catch (e) {
    return `scanner not told to finish: ${(e as Error).message}`;
  }
}
