// Parses removal targets with the project's reference parser (src/core/refs). Image IDs come
// first, because `sha256:<hex>` is otherwise a valid reference (docker.io/library/sha256 with a
// hex tag) and a short hex string a valid name (docker.io/library/<hex>:latest): read that way,
// an ID typed as crictl shows it would silently match nothing.
//
// ID rules, as crictl (containerd's digest index) reads them: a full ID or a prefix of at least
// 12 hex digits, with or without `sha256:`. `sha256:` always starts an ID, so anything else after
// it is invalid. A bare 12-63 hex string is first a name, like containerd tries it (an image
// tagged docker.io/library/<hex>:latest wins), then an ID prefix.
import { isAll, isHexAnyCase, isHexLower } from '../refs/chars.js';
import { parseDigestOrId, precheck } from '../refs/normalize.js';
import type { Target } from './types.js';

export { PRUNE_ALL } from '../constants.js';
import { PRUNE_ALL } from '../constants.js';

/** Shortest ID prefix accepted: what crictl and docker display. */
export const MIN_ID_PREFIX = 12;
const FULL_ID = 64;

const ID_RULE = `an image ID is sha256: followed by ${MIN_ID_PREFIX} to ${FULL_ID} lowercase hex digits (the full ID or an unambiguous prefix)`;

export function parseTarget(input: string): Target {
  if (input === PRUNE_ALL) return { kind: 'all', input };
  const pre = precheck(input);
  if (pre) return { kind: 'invalid', input, reason: pre };
  if (input.startsWith('sha256:')) {
    const hex = input.slice('sha256:'.length);
    if (hex.length >= MIN_ID_PREFIX && hex.length <= FULL_ID && isAll(hex, isHexLower)) {
      return hex.length === FULL_ID
        ? { kind: 'id', input, id: input }
        : { kind: 'id-prefix', input, prefix: hex };
    }
    if (hex.length >= MIN_ID_PREFIX && hex.length <= FULL_ID && isAll(hex, isHexAnyCase)) {
      return { kind: 'invalid', input, reason: 'image ID must be lowercase hex' };
    }
    return { kind: 'invalid', input, reason: ID_RULE };
  }
  if (input.length >= MIN_ID_PREFIX && input.length < FULL_ID && isAll(input, isHexLower)) {
    const p = parseDigestOrId(input);
    return {
      kind: 'id-prefix',
      input,
      prefix: input,
      ...(p.kind === 'ref' ? { ref: p.ref.normalized } : {}),
    };
  }
  const p = parseDigestOrId(input);
  if (p.kind === 'invalid') return { kind: 'invalid', input, reason: p.reason };
  if (p.kind === 'id') return { kind: 'id', input, id: p.id };
  // `name:tag@digest` pins the content: the runtime records the digest ref separately, so the
  // digest is what identifies the image.
  if (p.ref.digest !== undefined) return { kind: 'digest', input, ref: `${p.ref.name}@${p.ref.digest}` };
  return { kind: 'tag', input, ref: p.ref.normalized };
}

/** Normalized form of a name the runtime reports (tag ref, digest ref or ID); undefined if unparseable. */
export function normalizeAlias(alias: string): string | undefined {
  const p = parseDigestOrId(alias);
  if (p.kind === 'id') return p.id;
  if (p.kind === 'ref')
    return p.ref.digest !== undefined ? `${p.ref.name}@${p.ref.digest}` : p.ref.normalized;
  return undefined;
}
