// Image string fields of declared source kinds (`imageFields` in a SourceKinds entry): kinds that
// name images outside any Pod template, such as kube-fledged's ImageCache
// (`spec.cacheSpec[*].images[*]`), OpenKruise's ImagePullJob (`spec.image`) and Tekton's Task
// (`spec.steps[*].image`). The path grammar is parsed once, when the file is loaded, so a bad
// path is refused there with its entry named; reading a path is one walk of the fields it names,
// linear in what it reaches (its depth is the path's, at most MAX_SEGMENTS). Pure.
//
//   path    = segment *("." segment)
//   segment = name *"[*]"          a field, then each element of the list it holds
//   name    = [A-Za-z_][A-Za-z0-9_]*
//
// A path names strings: `spec.image` one, `spec.images[*]` each element of a list. A missing or
// null value names nothing (the field is optional); any other value where the path expects a
// string, a list or a map is a problem, reported like an invalid image ref, never thrown. Maps'
// values are not read: a map's keys are not fields a path can name.
import { MAX_REFERENCE_LENGTH } from '../refs/normalize.js';
import { describeValue } from '../guards.js';

/** One step of a parsed path: a field of a map, or each element of a list. */
export type FieldStep = { field: string } | { each: true };

export interface ImageFieldPath {
  /** The path as the administrator wrote it, for messages. */
  readonly text: string;
  readonly steps: readonly FieldStep[];
}

/** What one path names in one object: an image as written, or why a value there is not one. */
export interface FieldImage {
  /** The concrete place: `spec.steps[2].image`. */
  at: string;
  image?: string;
  problem?: string;
}

export const IMAGE_FIELD_LIMITS = {
  /** Characters in a path. */
  maxLength: 256,
  /** Fields in a path (`spec.steps[*].image` has three). */
  maxSegments: 16,
  /** `[*]` in a path: each multiplies what one object can name. */
  maxWildcards: 4,
} as const;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Segments that would reach an object's prototype when the stripper builds the path.
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

export class ImageFieldPathError extends Error {}

/** Parses `text`; throws ImageFieldPathError saying what is wrong and where. */
export function parseImageFieldPath(text: string): ImageFieldPath {
  const bad = (why: string) => new ImageFieldPathError(`image field path ${JSON.stringify(text)}: ${why}`);
  if (text.length === 0) throw bad('empty');
  if (text.length > IMAGE_FIELD_LIMITS.maxLength)
    throw bad(`longer than ${IMAGE_FIELD_LIMITS.maxLength} characters`);
  const segments = text.split('.');
  if (segments.length > IMAGE_FIELD_LIMITS.maxSegments)
    throw bad(`more than ${IMAGE_FIELD_LIMITS.maxSegments} fields`);
  const steps: FieldStep[] = [];
  let wildcards = 0;
  for (const [i, seg] of segments.entries()) {
    const b = seg.indexOf('[');
    const name = b < 0 ? seg : seg.slice(0, b);
    let rest = b < 0 ? '' : seg.slice(b);
    if (!name) throw bad(`field ${i + 1} ${JSON.stringify(seg)} has no name (write name or name[*])`);
    if (!NAME.test(name))
      throw bad(`field ${i + 1} ${JSON.stringify(name)} is not a field name ([A-Za-z_][A-Za-z0-9_]*)`);
    if (FORBIDDEN.has(name)) throw bad(`field ${i + 1} ${JSON.stringify(name)} is not allowed`);
    steps.push({ field: name });
    while (rest.startsWith('[*]')) {
      steps.push({ each: true });
      wildcards++;
      rest = rest.slice(3);
    }
    if (rest)
      throw bad(
        `field ${i + 1} ${JSON.stringify(seg)}: only [*] (each element of a list) may follow a name, not ${JSON.stringify(rest)}`,
      );
  }
  if (wildcards > IMAGE_FIELD_LIMITS.maxWildcards)
    throw bad(`more than ${IMAGE_FIELD_LIMITS.maxWildcards} [*]`);
  if (steps[0] && 'field' in steps[0] && steps[0].field === 'metadata')
    throw bad('metadata holds no images (start at spec or another field)');
  return { text, steps };
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof Date) &&
  !(v instanceof Uint8Array);

/**
 * Everything `path` names in `o`, in document order. Missing and null values name nothing; a
 * value of the wrong shape is one problem at its place (its contents are not walked).
 */
export function imagesAt(o: unknown, path: ImageFieldPath): FieldImage[] {
  const out: FieldImage[] = [];
  walk(o, path.steps, 0, '', out);
  return out;
}

function walk(v: unknown, steps: readonly FieldStep[], i: number, at: string, out: FieldImage[]): void {
  if (v === undefined || v === null) return;
  const step = steps[i];
  if (!step) {
    if (typeof v === 'string') out.push({ at, image: v });
    else out.push({ at, problem: `${at} is ${describeValue(v)}, not a string` });
    return;
  }
  if ('each' in step) {
    if (!Array.isArray(v)) return void out.push({ at, problem: `${at} is ${describeValue(v)}, not a list` });
    for (let j = 0; j < v.length; j++) walk(v[j], steps, i + 1, `${at}[${j}]`, out);
    return;
  }
  if (!isMap(v)) {
    // The root is always a map; below it, `at` names the value that should have been one.
    return void out.push({ at, problem: `${at} is ${describeValue(v)}, not a map` });
  }
  walk(
    Object.hasOwn(v, step.field) ? v[step.field] : undefined,
    steps,
    i + 1,
    at ? `${at}.${step.field}` : step.field,
    out,
  );
}

/**
 * What `paths` reach in `o`, and nothing else, at the same places: the stripped form of an
 * object, which `imagesAt` reads exactly as it reads the whole object. A string longer than any
 * reference is cut just past that length (it stays invalid, and a cache holds no megabyte of it);
 * a value of the wrong shape is kept as a scalar or an empty map or list, which says the same.
 */
export function projectImageFields(
  o: unknown,
  paths: readonly ImageFieldPath[],
  into: Record<string, unknown>,
): void {
  for (const path of paths) project(o, path.steps, 0, [], into);
}

function project(
  v: unknown,
  steps: readonly FieldStep[],
  i: number,
  trail: (string | number)[],
  into: Record<string, unknown>,
): void {
  if (v === undefined || v === null) return;
  const step = steps[i];
  const place = () => set(into, trail, small(v));
  if (!step) return place();
  if ('each' in step) {
    if (!Array.isArray(v)) return place();
    if (!v.length) return;
    for (let j = 0; j < v.length; j++) project(v[j], steps, i + 1, [...trail, j], into);
    return;
  }
  if (!isMap(v)) return place();
  project(
    Object.hasOwn(v, step.field) ? v[step.field] : undefined,
    steps,
    i + 1,
    [...trail, step.field],
    into,
  );
}

function small(v: unknown): unknown {
  if (typeof v === 'string')
    return v.length > MAX_REFERENCE_LENGTH ? v.slice(0, MAX_REFERENCE_LENGTH + 1) : v;
  if (Array.isArray(v)) return [];
  if (isMap(v)) return {};
  return v;
}

/** Sets `v` at `trail` (numbers index lists), creating maps and lists on the way; keeps what is there. */
function set(root: Record<string, unknown>, trail: readonly (string | number)[], v: unknown): void {
  if (!trail.length) return;
  let o: Record<string | number, unknown> = root;
  for (let k = 0; k < trail.length - 1; k++) {
    const key = trail[k]!;
    let next = o[key];
    if (next === undefined || next === null || typeof next !== 'object')
      o[key] = next = typeof trail[k + 1] === 'number' ? [] : {};
    o = next as Record<string | number, unknown>;
  }
  const last = trail.at(-1)!;
  if (o[last] === undefined) o[last] = v;
}
