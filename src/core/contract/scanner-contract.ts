// Eraser's scanner contract (eraser-dev/eraser pkg/utils, pkg/scanners/template), written once:
// the shared folder and its files, the completion message, the socket the scanner reaches the
// runtime by, the image list's JSON shape and its limits, and inv's optional per-image
// extension. Every side imports it: the worker Pod's spec (../worker/scanner-container.ts), the
// collector and remover (noderemove/vuln-scan/pipes.ts, answer.ts) and the scanner
// (scanner/contract.ts, scan-node.ts). docs/scan-mode.md, "The scanner contract" states it point by point; the
// failed-scan extension file is ./scan-failures.ts.

/** The emptyDir every container of the worker Pod mounts. */
export const SHARED_DIR = '/run/eraser.sh/shared-data';
/** Written by the collector (inv node-remove): the candidates, as JSON. */
export const COLLECT_SCAN = 'collectScan';
/** Written by the scanner: the images to remove, as JSON. */
export const SCAN_ERASE = 'scanErase';
/** Written by the remover when it is done: exactly COMPLETE_MESSAGE. */
export const ERASE_COMPLETE_SCAN = 'eraseCompleteScan';
export const COMPLETE_MESSAGE = 'complete';
/** Where the node's CRI socket is mounted in the scanner container. */
export const CRI_SOCKET_IN_SCANNER = '/run/cri/cri.sock';
/**
 * inv's, not Eraser's: where a CRI-O node's image store (containers/storage, the administrator's
 * scanners.<name>.storageHostPath) is mounted read-only in the scanner container.
 */
export const CRIO_STORE_IN_SCANNER = '/run/inv/crio-storage';
/** Where Eraser mounts its configuration; inv passes --config explicitly. */
export const DEFAULT_CONFIG_PATH = '/config/controller_manager_config.yaml';

/**
 * The limits of one list, the candidates as the answer (the answer names at most what it was
 * given): far more than any node stores, so they bound memory and never a real node.
 */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;
export const MAX_LIST_IMAGES = 50_000;
/** CVE ids carried per image in the extension (the report shows the first few). */
export const MAX_CVES = 5;

/** One image as the contract carries it (Go: unversioned.Image). */
export interface ContractImage {
  image_id: string;
  names?: string[];
  digests?: string[];
}

export type ScanStatus = 'vulnerable' | 'eol' | 'scan-failed';
export const SCAN_STATUSES: readonly ScanStatus[] = ['vulnerable', 'eol', 'scan-failed'];

/**
 * inv's optional extension of an answered image, under the key `inv`. Eraser's remover (Go's
 * encoding/json) ignores unknown keys, so an answer with it is still a valid Eraser answer.
 */
export interface InvScanExtension {
  status: ScanStatus;
  cveCount?: number;
  /** CRITICAL, HIGH, MEDIUM, LOW or UNKNOWN. */
  highestSeverity?: string;
  /** At most MAX_CVES ids, most severe first. */
  cves?: string[];
}

export interface AnsweredImage extends ContractImage {
  inv?: InvScanExtension;
}
