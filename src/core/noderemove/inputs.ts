// Reading node-remove's inputs: targets from --images and --imagelist, exclusion patterns from
// --exclude-file, and the --timeout duration. Every problem is an InputError (exit 2): with bad
// input nothing is removed at all.
import fs from 'node:fs';
import { parseDurationMs } from '../duration.js';
import path from 'node:path';
import { unpackProtectedSet, type ProtectedSet } from '../erase/worker/protected-set.js';

export class InputError extends Error {}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read ${what} ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`${what} ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

function stringArray(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw new InputError(`${what} must be a JSON array of strings`);
  }
  return v;
}

/** `--imagelist FILE`: a JSON array of targets. */
export function readImageList(file: string): string[] {
  return stringArray(readJson(file, 'image list'), `image list ${file}`);
}

/** `--exclude-file FILE`: a JSON array of patterns, or `{"excluded": [...]}` (eraser's format). */
export function readExcludeFile(file: string): string[] {
  const v = readJson(file, 'exclude file');
  if (Array.isArray(v)) return stringArray(v, `exclude file ${file}`);
  if (v && typeof v === 'object' && 'excluded' in v) {
    return stringArray((v as { excluded: unknown }).excluded, `"excluded" in exclude file ${file}`);
  }
  throw new InputError(`exclude file ${file} must be a JSON array or {"excluded": [...]}`);
}

/** `--images a,b` (repeatable flag values are joined too); empty items are ignored. */
export function splitImages(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `--call-timeout`: a duration with its unit (500ms, 5s, 1m), positive. */
export function parseTimeout(text: string): number {
  let ms: number;
  try {
    ms = parseDurationMs(text, '--call-timeout');
  } catch (e) {
    throw new InputError((e as Error).message);
  }
  if (ms <= 0) throw new InputError('--call-timeout must be positive');
  return ms;
}

/** Each protected-set file is a ConfigMap value (at most 1 MiB); the whole set at most this. */
const MAX_PROTECTED_BYTES = 256 * 1024 * 1024;

/**
 * `--protected-dir DIR`: the job's protected set, one JSON file per ConfigMap chunk (the mounted
 * volume also holds kubelet's `..data` links, which are skipped). Anything unreadable is an
 * InputError: a `*` prune then removes nothing rather than run without its protection.
 */
export function readProtectedDir(dir: string): ProtectedSet {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch (e) {
    throw new InputError(`cannot read the protected-image directory ${dir}: ${(e as Error).message}`);
  }
  if (names.length === 0) throw new InputError(`the protected-image directory ${dir} holds no *.json file`);
  let total = 0;
  const chunks = names.sort().map((n) => {
    const file = path.join(dir, n);
    let text: string;
    try {
      const size = fs.statSync(file).size;
      total += size;
      if (total > MAX_PROTECTED_BYTES)
        throw new InputError(`the protected-image files in ${dir} exceed 256 MiB`);
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(`cannot read protected-image file ${file}: ${(e as Error).message}`);
    }
    return { name: file, text };
  });
  try {
    return unpackProtectedSet(chunks);
  } catch (e) {
    throw new InputError(`protected-image file ${(e as Error).message}`);
  }
}
