// Scans that failed, as one contract for the scanner (inv node-scan), the worker (inv
// node-remove), the controller and its metrics. PURE.
//
// Eraser's contract has no word for "could not judge": its answer (scanErase) lists what to
// remove, so an image a scanner failed on is either named there (deleteFailedImages) or looks
// clean. inv's scanner also writes the file `scanFailed` into the shared folder, before its
// answer: one entry per image it could not judge, with a reason code and the scanner's words.
// Eraser's remover never reads it; inv's worker reads it once the answer is complete and reports
// those images as `scan-failed`, kept. A scanner without the file (Eraser's) can only fail as a
// whole (exit status, no answer, a bad answer), which the worker and the controller detect.

/** The extension file in the shared folder, written (renamed into place) before scanErase. */
export const SCAN_FAILED_FILE = 'scanFailed';
/** The most bytes of it read: one entry per image of a 20,000-image list, with its reason. */
export const MAX_SCAN_FAILED_BYTES = 8 * 1024 * 1024;
/** The longest reason carried per image. */
export const MAX_SCAN_FAILURE_MESSAGE = 300;

/**
 * Why a scan failed, as a metric label: few values, so a dashboard can group by them.
 * Per image (inv's scanner): db, timeout, scanner-error, no-reference, bad-report,
 * unreadable-image (CRI-O's store could not give the image: a layer missing, an unsupported driver).
 * Per node (any scanner): no-answer, invalid-answer, scanner-exit, config-mismatch, other.
 */
export const SCAN_FAILURE_REASONS = [
  'db',
  'timeout',
  'scanner-error',
  'no-reference',
  'bad-report',
  'unreadable-image',
  'no-answer',
  'invalid-answer',
  'scanner-exit',
  'config-mismatch',
  'other',
] as const;
export type ScanFailureReason = (typeof SCAN_FAILURE_REASONS)[number];

export const isScanFailureReason = (v: unknown): v is ScanFailureReason =>
  typeof v === 'string' && (SCAN_FAILURE_REASONS as readonly string[]).includes(v);

/** One image the scanner could not judge. */
export interface ScanFailure {
  image_id: string;
  reason: ScanFailureReason;
  /** The scanner's words (Trivy's last error line, the timeout), bounded. */
  message: string;
}

/** Counts of failed scans by reason (a worker's summary, a node's result). */
export type ScanFailureCounts = Partial<Record<ScanFailureReason, number>>;

export function serializeScanFailures(failures: readonly ScanFailure[]): string {
  return JSON.stringify(
    failures.map((f) => ({ ...f, message: f.message.slice(0, MAX_SCAN_FAILURE_MESSAGE) })),
  );
}

/** The file's entries; throws an Error naming the first problem (the node then fails closed). */
export function parseScanFailures(text: string): ScanFailure[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`${SCAN_FAILED_FILE} is not JSON`);
  }
  if (!Array.isArray(doc)) throw new Error(`${SCAN_FAILED_FILE} is not a list`);
  return doc.map((e: unknown, i) => {
    const o = e as Record<string, unknown> | null;
    if (
      !o ||
      typeof o !== 'object' ||
      typeof o.image_id !== 'string' ||
      !o.image_id ||
      o.image_id.length > 512
    )
      throw new Error(`entry ${i} of ${SCAN_FAILED_FILE} has no image_id`);
    return {
      image_id: o.image_id,
      reason: isScanFailureReason(o.reason) ? o.reason : 'other',
      message: typeof o.message === 'string' ? o.message.slice(0, MAX_SCAN_FAILURE_MESSAGE) : '',
    };
  });
}

/** The counts by reason of `failures`. */
export function countFailures(reasons: readonly ScanFailureReason[]): ScanFailureCounts {
  const out: ScanFailureCounts = {};
  for (const r of reasons) out[r] = (out[r] ?? 0) + 1;
  return out;
}

/**
 * The reason code of a whole node's failed scan, from the worker's or the controller's reason
 * text (noderemove/vuln-scan/exchange.ts and pipes.ts, pod.ts write these sentences; the node
 * result stores only the text). test/unit/noderemove/scan-failures.test.ts drives those producers, so a
 * reworded sentence fails there instead of being counted as `other`.
 */
export function nodeFailureReason(text: string): ScanFailureReason {
  if (/the scanner exited with code/.test(text)) return 'scanner-exit';
  if (/scanner configuration .* is not the one/.test(text)) return 'config-mismatch';
  if (/never answered|did not finish its answer|answered nothing/.test(text)) return 'no-answer';
  if (/answer is (not|more than)|answer has no|named \d+ images, more than|scanFailed/.test(text))
    return 'invalid-answer';
  return 'other';
}
