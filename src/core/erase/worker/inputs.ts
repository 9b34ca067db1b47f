// The inputs a job hands its workers through ConfigMaps: the image list, the exclusions and the
// chunks of the protected set. PURE.
//
// Anyone allowed to create ConfigMaps in the workers' namespace can create an object under a
// name the controller is about to use, with the labels and annotations it would stamp. So the
// controller records, write-ahead in the job's status, each input's name and the SHA-256 of its
// content, and passes the digests in the worker Pod's spec (which only it writes): a worker
// refuses any mounted input whose bytes do not match (`inv node-remove --imagelist-sha256`...),
// and its node fails closed with that reason. The names carry a random part chosen at planning,
// so nobody can claim one before the job is planned; a name found taken anyway (by someone who
// read the job's status and raced the controller) by an object the controller did not create is
// never used: the input moves to a fresh random name.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../contract/sha256.js';
import {
  excludeConfigMapName,
  imagesConfigMapName,
  protectedConfigMapName,
  type JobInput,
} from '../api/types.js';
import { SCANNER_ROLE } from './scanner-container.js';

export type { JobInput };

export const IMAGES_ROLE = 'images';
export const EXCLUDE_ROLE = 'exclude';
export const protectedRole = (i: number): string => `protected-${i}`;

/** A name may move to a fresh one this many times (a name taken again and again is an attack). */
export const MAX_RENAMES = 3;

/** The file content of a list input (what listConfigMap stores). */
export const listContent = (items: readonly string[]): string => JSON.stringify(items);

/**
 * The contents of a job's inputs by role, in the order the worker reads them; in scan mode also
 * the scanner's configuration file (worker/scanner-container.ts), verified like the others.
 */
export function inputContents(
  images: readonly string[],
  exclusions: readonly string[],
  protectedChunks: readonly string[],
  scannerConfig?: string,
): Map<string, string> {
  const out = new Map<string, string>([
    [IMAGES_ROLE, listContent(images)],
    [EXCLUDE_ROLE, listContent(exclusions)],
  ]);
  protectedChunks.forEach((c, i) => out.set(protectedRole(i), c));
  if (scannerConfig !== undefined) out.set(SCANNER_ROLE, scannerConfig);
  return out;
}

/**
 * The names (the job's name, the role and 10 random characters) and the digests of the
 * contents. The random part is what makes a name unclaimable: a name derived from the job's
 * name alone could be taken by anyone who may create ConfigMaps in the workers' namespace
 * before the job even exists. `suffix` is for tests.
 */
export function planInputs(
  job: string,
  contents: ReadonlyMap<string, string>,
  suffix: () => string = () => randomSuffix(10),
): JobInput[] {
  return [...contents].map(([role, text]) => ({
    role,
    name: `${firstName(job, role)}-${suffix()}`,
    sha256: sha256Hex(text),
  }));
}

function firstName(job: string, role: string): string {
  if (role === IMAGES_ROLE) return imagesConfigMapName(job);
  if (role === EXCLUDE_ROLE) return excludeConfigMapName(job);
  if (role === SCANNER_ROLE) return `${job}-scanner`;
  const m = /^protected-(\d+)$/.exec(role);
  if (!m) throw new Error(`unknown job input ${role}`);
  return protectedConfigMapName(job, Number(m[1]));
}

/** How many times an input has moved: names end in -r<n><5 random characters>. */
export function renames(input: JobInput): number {
  const m = /-r(\d)[a-z0-9]{5}$/.exec(input.name);
  return m ? Number(m[1]) : 0;
}

/** The input under a fresh name nobody could have guessed; `suffix` is for tests. */
export function renamed(job: string, input: JobInput, suffix = randomSuffix(5)): JobInput {
  return { ...input, name: `${firstName(job, input.role)}-r${renames(input) + 1}${suffix}` };
}

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(n: number): string {
  return [...randomBytes(n)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
}

/**
 * The inputs a planned job records, or, for a job planned before inputs were recorded, its
 * first names without digests (its workers then run unverified, as they were planned).
 */
export function jobInputs(
  job: string,
  recorded: readonly JobInput[] | undefined,
  chunks: number,
): JobInput[] {
  if (recorded?.length) return [...recorded];
  const roles = [IMAGES_ROLE, EXCLUDE_ROLE, ...Array.from({ length: chunks }, (_, i) => protectedRole(i))];
  return roles.map((role) => ({ role, name: firstName(job, role), sha256: '' }));
}

export const inputOf = (inputs: readonly JobInput[], role: string): JobInput | undefined =>
  inputs.find((i) => i.role === role);

export const protectedInputs = (inputs: readonly JobInput[]): JobInput[] =>
  inputs
    .filter((i) => i.role.startsWith('protected-'))
    .sort((a, b) => Number(a.role.slice(10)) - Number(b.role.slice(10)));
