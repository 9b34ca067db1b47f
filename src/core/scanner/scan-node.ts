// One node's scan, scanner side: receive the candidates, scan each with Trivy through the node's
// containerd (or, on CRI-O, from the node's image store served on loopback), answer with the non-compliant ones, wait for the remover's `complete`. The order
// and the rules are those of Eraser's template and Trivy scanner (ReceiveImages, scan, SendImages,
// Finish); the deadline is the configuration's timeout.total for the scanning, as in Eraser.
import path from 'node:path';
import { parseImageList, scanRefs, serializeAnswer } from './contract.js';
import {
  COLLECT_SCAN,
  COMPLETE_MESSAGE,
  ERASE_COMPLETE_SCAN,
  MAX_LIST_BYTES,
  SCAN_ERASE,
  type AnsweredImage,
  type ContractImage,
} from '../contract/scanner-contract.js';
import {
  SCAN_FAILED_FILE,
  serializeScanFailures,
  type ScanFailureReason,
} from '../contract/scan-failures.js';
import { readBounded, waitForFile, writeAtomically } from './shared-files.js';
import type { RunTrivy } from './run-trivy.js';
import { trivyArgs, type TrivyImageSource } from './trivy-args.js';
import { readStoreImage, UnreadableImage } from './crio-store.js';
import type { Served, StoreRegistry } from './store-registry.js';
import type { TrivyScannerConfig } from './trivy-config.js';
import { judgeReport } from './trivy-report.js';

export type Log = (msg: string, fields?: Record<string, unknown>) => void;

/** CRI-O: the node's store, mounted read-only, and the loopback registry that serves it. */
export interface CrioStoreSource {
  root: string;
  registry: StoreRegistry;
  /** The most bytes served for one image (its layers, uncompressed). */
  maxImageBytes: number;
}

export interface ImageScanResult {
  image: ContractImage;
  status: 'ok' | 'vulnerable' | 'eol' | 'scan-failed';
  answered: AnsweredImage | undefined;
  reason?: string;
  /** Why a scan failed, as a code (scan-failures.ts). */
  code?: ScanFailureReason;
}

/** Trivy's words for a vulnerability database it cannot open, download or read. */
const DB_ERROR =
  /\bDB error\b|failed to (open|download|init\w*|load) (the )?(vulnerability )?db\b|trivy\.db/i;

/** Scans each image in turn; what is left when the deadline passes counts as failed to scan. */
export async function scanImages(
  images: readonly ContractImage[],
  config: TrivyScannerConfig,
  env: Record<string, string>,
  runTrivy: RunTrivy,
  deadline: number,
  log: Log,
  store?: CrioStoreSource,
): Promise<ImageScanResult[]> {
  const results: ImageScanResult[] = [];
  for (const image of images) {
    results.push(await scanOne(image, config, env, runTrivy, deadline, log, store));
  }
  return results;
}

async function scanOne(
  image: ContractImage,
  config: TrivyScannerConfig,
  env: Record<string, string>,
  runTrivy: RunTrivy,
  deadline: number,
  log: Log,
  store?: CrioStoreSource,
): Promise<ImageScanResult> {
  const failed = (reason: string, code: ScanFailureReason): ImageScanResult => {
    log('scan failed', { imageID: image.image_id, reason, code });
    return {
      image,
      status: 'scan-failed',
      reason,
      code,
      answered: config.deleteFailedImages ? { ...image, inv: { status: 'scan-failed' } } : undefined,
    };
  };
  // containerd: Trivy reads the image by each of its names in turn (Eraser's order). CRI-O: by
  // its id, from the store, served on loopback; an image the store cannot give fails here.
  let refs = scanRefs(image);
  let source: TrivyImageSource = 'containerd';
  let served: Served | undefined;
  if (store) {
    try {
      const stored = await readStoreImage(store.root, image.image_id);
      const bytes = stored.layers.reduce((n, l) => n + l.diffSize, 0);
      if (bytes > store.maxImageBytes)
        throw new UnreadableImage(
          `its layers are ${bytes} bytes, more than the per-image limit of ${store.maxImageBytes} bytes (maxImageSize)`,
        );
      served = store.registry.serve(stored, store.maxImageBytes);
    } catch (e) {
      if (!(e instanceof UnreadableImage)) throw e;
      return failed(`CRI-O's store cannot give the image: ${e.message}`, 'unreadable-image');
    }
    refs = [served.ref];
    source = 'remote';
  }
  try {
    return await scanRefsInTurn(image, refs, source, served, config, env, runTrivy, deadline, log, failed);
  } finally {
    served?.close();
  }
}

async function scanRefsInTurn(
  image: ContractImage,
  refs: string[],
  source: TrivyImageSource,
  served: Served | undefined,
  config: TrivyScannerConfig,
  env: Record<string, string>,
  runTrivy: RunTrivy,
  deadline: number,
  log: Log,
  failed: (reason: string, code: ScanFailureReason) => ImageScanResult,
): Promise<ImageScanResult> {
  if (refs.length === 0) return failed('no name or repo digest to scan by', 'no-reference');
  let lastReason = '';
  let lastCode: ScanFailureReason = 'other';
  for (const ref of refs) {
    const left = deadline - Date.now();
    if (left <= 0) return failed('timeout.total passed before this image was scanned', 'timeout');
    const timeoutMs = Math.min(config.perImageMs, left);
    const run = await runTrivy(trivyArgs(config, ref, timeoutMs, source), env, timeoutMs);
    if (run.spawnError) return failed(`cannot run Trivy: ${run.spawnError}`, 'scanner-error');
    if (run.timedOut) {
      lastReason = `Trivy did not finish within ${Math.round(timeoutMs / 1000)}s`;
      lastCode = 'timeout';
    } else if (run.overflow) {
      lastReason = "Trivy's report is too large";
      lastCode = 'bad-report';
    } else if (run.code !== 0 && served?.error()) {
      // Trivy failed because the store could not give a layer: that is the reason, not Trivy's.
      lastReason = `CRI-O's store cannot give the image: ${served.error()}`;
      lastCode = 'unreadable-image';
    } else if (run.code !== 0) {
      lastReason = `Trivy exited ${run.code}: ${lastLine(run.stderrTail)}`;
      lastCode = DB_ERROR.test(run.stderrTail) ? 'db' : 'scanner-error';
    } else {
      try {
        const verdict = judgeReport(run.stdout, config.deleteEOLImages);
        log('scanned', { imageID: image.image_id, ref, ...verdict });
        if (verdict.status === 'ok') return { image, status: 'ok', answered: undefined };
        return { image, status: verdict.status, answered: { ...image, inv: verdict } };
      } catch (e) {
        lastReason = (e as Error).message;
        lastCode = 'bad-report';
      }
    }
    log('scan of a reference failed', { imageID: image.image_id, ref, reason: lastReason });
  }
  return failed(lastReason, lastCode);
}

/**
 * The line of Trivy's stderr that says why: its last FATAL or ERROR line, or a Go panic's own
 * line (a crash ends with a stack trace, whose last line names only a source file); else the
 * last line.
 */
const lastLine = (text: string) => {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.trim());
  const telling = lines.filter((l) => /^panic: |\b(FATAL|ERROR)\b/.test(l)).slice(-1)[0];
  return (telling ?? lines.slice(-1)[0])?.slice(0, 300) ?? '(no message)';
};

export interface NodeScanOptions {
  sharedDir: string;
  config: TrivyScannerConfig;
  env: Record<string, string>;
  runTrivy: RunTrivy;
  log: Log;
  /** How long to wait for the remover's `complete` after answering. */
  finishWaitMs: number;
  /** Set on CRI-O nodes: images are read from the node's store, not through containerd. */
  store?: CrioStoreSource;
}

export interface NodeScanSummary {
  images: number;
  vulnerable: number;
  eol: number;
  failed: number;
  answered: number;
  completed: boolean;
}

/** The whole scanner side; throws on a broken contract (no list, bad list): nothing answered. */
export async function runNodeScanPipeline(o: NodeScanOptions): Promise<NodeScanSummary> {
  const started = Date.now();
  const deadline = started + o.config.totalMs;
  const collect = path.join(o.sharedDir, COLLECT_SCAN);
  await waitForFile(collect, deadline, 'the candidate list');
  const images = parseImageList(await readBounded(collect, MAX_LIST_BYTES, deadline, 'the candidate list'));
  o.log('received images', { count: images.length });
  const results = await scanImages(images, o.config, o.env, o.runTrivy, deadline, o.log, o.store);
  const answer = results.flatMap((r) => (r.answered ? [r.answered] : []));
  // The images it could not judge first (inv's extension, scan-failures.ts): whoever reads the
  // answer finds them beside it.
  writeAtomically(
    o.sharedDir,
    SCAN_FAILED_FILE,
    serializeScanFailures(
      results.flatMap((r) =>
        r.status === 'scan-failed'
          ? [{ image_id: r.image.image_id, reason: r.code ?? 'other', message: r.reason ?? '' }]
          : [],
      ),
    ),
  );
  writeAtomically(o.sharedDir, SCAN_ERASE, serializeAnswer(answer));
  const count = (s: ImageScanResult['status']) => results.filter((r) => r.status === s).length;
  const summary: NodeScanSummary = {
    images: images.length,
    vulnerable: count('vulnerable'),
    eol: count('eol'),
    failed: count('scan-failed'),
    answered: answer.length,
    completed: false,
  };
  o.log('answered', { ...summary, seconds: Math.round((Date.now() - started) / 1000) });
  const complete = path.join(o.sharedDir, ERASE_COMPLETE_SCAN);
  const finishBy = Date.now() + o.finishWaitMs;
  await waitForFile(complete, finishBy, "the remover's completion");
  const message = await readBounded(complete, 64, finishBy, "the remover's completion");
  if (message !== COMPLETE_MESSAGE) {
    throw new Error(
      `${ERASE_COMPLETE_SCAN} holds ${JSON.stringify(message.slice(0, 64))}, not ${COMPLETE_MESSAGE}`,
    );
  }
  return { ...summary, completed: true };
}
