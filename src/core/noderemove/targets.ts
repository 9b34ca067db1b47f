// Parses removal targets with the project's reference parser (src/core/refs). The ID check
// comes first (parseDigestOrId), because `sha256:<hex>` is otherwise a valid reference.
import { parseDigestOrId } from '../refs/normalize.js';
import type { Target } from './types.js';

export const PRUNE_ALL = '*';

export function parseTarget(input: string): Target {
  if (input === PRUNE_ALL) return { kind: 'all', input };
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
