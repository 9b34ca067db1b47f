// Eraser's scanner contract as the scanner side uses it: the collector's list parsed, the answer
// shaped. The contract itself (paths, shapes, limits) is written once in
// ../contract/scanner-contract.ts. Pure: parsing and shaping only; the files
// are read in ./shared-files.ts.

import {
  MAX_LIST_BYTES,
  MAX_LIST_IMAGES,
  type AnsweredImage,
  type ContractImage,
} from '../contract/scanner-contract.js';

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
  if (data.length > MAX_LIST_IMAGES) throw new Error(`image list has more than ${MAX_LIST_IMAGES} images`);
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
