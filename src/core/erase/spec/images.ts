// Validation of image lists and exclusion patterns, up front: a typo is an error naming the
// entry, not a worker Pod per node failing on it.
import { compileExclusion } from '../../refs/exclusion.js';
import { parseDigestOrId } from '../../refs/normalize.js';

import { scopeProblems, SPEC_WORDS, type ScopeSpec } from '../../refs/scope.js';
import { keepNewestProblem } from '../../contract/keep-newest-bound.js';

export { PRUNE_ALL } from '../../constants.js';
import { PRUNE_ALL } from '../../constants.js';

/** Returns one message per invalid entry ([] when the list is fine). */
export function validateImages(images: readonly string[]): string[] {
  const problems: string[] = [];
  if (images.length === 0)
    problems.push('the image list is empty: give at least one image, or * for every unused image');
  for (const img of images) {
    if (img === PRUNE_ALL) continue;
    const p = parseDigestOrId(img);
    if (p.kind === 'invalid') problems.push(`invalid image ${JSON.stringify(img)}: ${p.reason}`);
  }
  return problems;
}

/**
 * What is wrong with a `*` prune's narrowing (spec.scope, spec.keepNewest), in the spec's words;
 * the CRD says the same where CEL can, but the patterns' grammar is checked only here (and by
 * `inv erase`, which names its flags instead: `words`).
 */
export function narrowingProblems(
  spec: { images?: readonly string[]; scope?: ScopeSpec; keepNewest?: number },
  words = { ...SPEC_WORDS, keepNewest: 'spec.keepNewest' },
): string[] {
  const problems = scopeProblems(spec.scope, words);
  if (spec.keepNewest !== undefined) {
    const p = keepNewestProblem(spec.keepNewest, words.keepNewest);
    if (p) problems.push(p);
  }
  const narrowed = (spec.scope?.only?.length ?? 0) + (spec.scope?.except?.length ?? 0) > 0;
  const all = spec.images?.length === 1 && spec.images[0] === PRUNE_ALL;
  if ((narrowed || spec.keepNewest !== undefined) && !all)
    problems.push(
      `${words.only}, ${words.except} and ${words.keepNewest} narrow a "*" prune: the images must be ["*"] alone`,
    );
  return problems;
}

/**
 * The targets as a person reads them, for the ImageList's IMAGES printer column (status.targets):
 * `nginx:1.25, redis:7 (+3 more)` instead of a JSON array; Docker Hub's default prefixes dropped,
 * `*` spelled out, at most about `max` characters.
 */
export function summarizeImages(images: readonly string[], max = 60): string {
  const shown = images.map((i) =>
    i === PRUNE_ALL ? '* (every unused image)' : i.replace(/^docker\.io\/(library\/)?/, ''),
  );
  let out = '';
  for (let k = 0; k < shown.length; k++) {
    const next = out ? `${out}, ${shown[k]}` : shown[k]!;
    const rest = shown.length - k - 1;
    const suffix = rest ? ` (+${rest} more)` : '';
    if (out && next.length + suffix.length > max) return `${out} (+${shown.length - k} more)`;
    out = next;
  }
  return out.length > max * 2 ? `${out.slice(0, max * 2 - 1)}…` : out;
}

/**
 * summarizeImages, and for a narrowed `*` prune what narrows it: `* (only ci.example.com/**;
 * except ci.example.com/base:*; keep newest 2)`, at most about `max` characters.
 */
export function summarizeTargets(
  spec: { images?: readonly string[]; scope?: ScopeSpec; keepNewest?: number },
  max = 60,
): string {
  const parts: string[] = [];
  if (spec.scope?.only?.length) parts.push(`only ${spec.scope.only.join(', ')}`);
  if (spec.scope?.except?.length) parts.push(`except ${spec.scope.except.join(', ')}`);
  if (spec.keepNewest !== undefined) parts.push(`keep newest ${spec.keepNewest}`);
  const all = spec.images?.length === 1 && spec.images[0] === PRUNE_ALL;
  if (!all || parts.length === 0) return summarizeImages(spec.images ?? [], max);
  const out = `* (${parts.join('; ')})`;
  return out.length > max * 2 ? `${out.slice(0, max * 2 - 1)}…` : out;
}

/** Exclusion ConfigMap data: every value is a JSON array of patterns or {"excluded": [...]}. */
export function parseExclusionData(source: string, data: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const [key, text] of Object.entries(data ?? {})) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new Error(`exclusion list ${source} key ${key}: not valid JSON: ${(e as Error).message}`);
    }
    const list = Array.isArray(v)
      ? v
      : v && typeof v === 'object'
        ? (v as { excluded?: unknown }).excluded
        : undefined;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string'))
      throw new Error(
        `exclusion list ${source} key ${key}: must be a JSON array of patterns or {"excluded": [...]}`,
      );
    for (const pattern of list as string[]) {
      const c = compileExclusion(pattern);
      if (!c.ok)
        throw new Error(
          `exclusion list ${source} key ${key}: invalid pattern ${JSON.stringify(pattern)}: ${c.reason}`,
        );
      out.push(pattern);
    }
  }
  return out;
}
