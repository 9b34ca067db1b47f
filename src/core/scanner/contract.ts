// Eraser's scanner contract (eraser-dev/eraser pkg/utils, pkg/scanners/template), as the scanner
// side sees it: the shared folder and its files, the completion message, the image list's JSON
// shape, and inv's optional per-image extension. docs/scanner-contract.md states it point by
// point. Pure: parsing and shaping only; the files are read in ./shared-files.ts.

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
export const CRI_SOCKET = '/run/cri/cri.sock';
/** Where Eraser mounts its configuration; inv passes --config explicitly. */
export const DEFAULT_CONFIG_PATH = '/config/controller_manager_config.yaml';

/** The most a candidate list may hold: far more than any node stores (bounds memory). */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;
export const MAX_IMAGES = 20_000;
/** CVE ids carried per image in the extension (the report shows the first few). */
export const MAX_CVES = 5;

/** One image as the contract carries it (Go: unversioned.Image). */
export interface ContractImage {
  image_id: string;
  names?: string[];
  digests?: string[];
}

export type ScanStatus = 'vulnerable' | 'eol' | 'scan-failed';

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

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 4096);

/**
 * The collector's list, checked: a JSON array of {image_id, names?, digests?}. Throws an Error
 * naming the first problem; unknown keys are ignored, as Go's decoder does.
 */
export function parseImageList(text: string): ContractImage[] {
  if (Buffer.byteLength(text) > MAX_LIST_BYTES) {
    throw new Error(`image list is larger than ${MAX_LIST_BYTES} bytes`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`image list is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(data)) throw new Error('image list is not a JSON array');
  if (data.length > MAX_IMAGES) throw new Error(`image list has more than ${MAX_IMAGES} images`);
  return data.map((item: unknown, i) => {
    const o = item as Record<string, unknown> | null;
    if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error(`image ${i} is not an object`);
    const id = o.image_id;
    if (typeof id !== 'string' || id === '' || id.length > 512) {
      throw new Error(`image ${i} has no image_id`);
    }
    for (const k of ['names', 'digests'] as const) {
      if (o[k] !== undefined && o[k] !== null && !isStringArray(o[k])) {
        throw new Error(`image ${i} (${id}): ${k} is not an array of strings`);
      }
    }
    const img: ContractImage = { image_id: id };
    if (isStringArray(o.names) && o.names.length) img.names = o.names;
    if (isStringArray(o.digests) && o.digests.length) img.digests = o.digests;
    return img;
  });
}

/** The answer's bytes: Eraser's array shape, with the extension on each image. */
export function serializeAnswer(images: readonly AnsweredImage[]): string {
  return JSON.stringify(
    images.map((i) => ({
      image_id: i.image_id,
      ...(i.names?.length ? { names: i.names } : {}),
      ...(i.digests?.length ? { digests: i.digests } : {}),
      ...(i.inv ? { inv: i.inv } : {}),
    })),
  );
}

/** The references to try for an image, in Eraser's order: repo digests first, then names. */
export function scanRefs(img: ContractImage): string[] {
  return [...new Set([...(img.digests ?? []), ...(img.names ?? [])])];
}
