// Reading node-remove's inputs: targets from --images and --imagelist, exclusion patterns from
// --exclude-file, and the --timeout duration. Every problem is an InputError (exit 2): with bad
// input nothing is removed at all.
import fs from 'node:fs';
import { parseDurationMs } from '../duration.js';
import path from 'node:path';
import { unpackProtectedSet, type ProtectedSet } from '../contract/protected-set.js';
import { sha256Hex } from '../contract/sha256.js';

export class InputError extends Error {}

/**
 * The erase controller passes, in the worker Pod's spec (which only it writes), the SHA-256 of
 * each input it put in a ConfigMap; a mounted file with other content was not written by the
 * controller (a forged or replaced ConfigMap) and is refused: the node removes nothing.
 */
function verify(bytes: Buffer, expected: string | undefined, what: string, file: string): void {
  if (expected === undefined) return;
  const got = sha256Hex(bytes);
  if (got !== expected.toLowerCase())
    throw new InputError(
      `${what} ${file} does not match the digest the erase controller recorded (sha256 ${got.slice(0, 12)}…, expected ${expected.slice(0, 12)}…): it was not written by the controller; nothing was removed`,
    );
}

function readJson(file: string, what: string, sha256?: string): unknown {
  let text: string;
  try {
    const bytes = fs.readFileSync(file);
    verify(bytes, sha256, what, file);
    text = bytes.toString('utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
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

/** `--imagelist FILE`: a JSON array of targets (its SHA-256 checked when given). */
export function readImageList(file: string, sha256?: string): string[] {
  return stringArray(readJson(file, 'image list', sha256), `image list ${file}`);
}

/** `--exclude-file FILE`: a JSON array of patterns, or `{"excluded": [...]}` (eraser's format). */
export function readExcludeFile(file: string, sha256?: string): string[] {
  const v = readJson(file, 'exclude file', sha256);
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
export function readProtectedDir(dir: string, sha256?: readonly string[]): ProtectedSet {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch (e) {
    throw new InputError(`cannot read the protected-image directory ${dir}: ${(e as Error).message}`);
  }
  if (names.length === 0) throw new InputError(`the protected-image directory ${dir} holds no *.json file`);
  // protected-<i>.json in chunk order (protected-10 after protected-9), as the digests are given.
  const order = (n: string) => Number(/(\d+)\.json$/.exec(n)?.[1] ?? -1);
  names.sort((a, b) => order(a) - order(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (sha256 && sha256.length !== names.length)
    throw new InputError(
      `the protected-image directory ${dir} holds ${names.length} file(s), the erase controller recorded ${sha256.length}; nothing was removed`,
    );
  let total = 0;
  const chunks = names.map((n, i) => {
    const file = path.join(dir, n);
    let text: string;
    try {
      const size = fs.statSync(file).size;
      total += size;
      if (total > MAX_PROTECTED_BYTES)
        throw new InputError(`the protected-image files in ${dir} exceed 256 MiB`);
      const bytes = fs.readFileSync(file);
      verify(bytes, sha256?.[i], 'protected-image file', file);
      text = bytes.toString('utf8');
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
