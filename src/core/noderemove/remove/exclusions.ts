// Exclusion patterns for node-remove: the operator's (--exclude, --exclude-file) plus defaults
// that protect the upstream sandbox ("pause") image even where no sandbox uses it yet: removing
// it would break the next pod start on an offline node. The runtime's own sandbox image and
// the images backing sandboxes are handled in sandbox.ts and in-use.ts.
import { compileExclusion, type ExclusionMatcher } from '../../refs/exclusion.js';

/** The upstream pause image under its current and older registry names. */
export const DEFAULT_SANDBOX_EXCLUSIONS = [
  'registry.k8s.io/pause:*',
  'k8s.gcr.io/pause:*',
  'gcr.io/google_containers/pause:*',
] as const;

export class ExclusionError extends Error {}

/** Compiles patterns; any invalid pattern is bad input (the caller exits 2). */
export function compileAll(patterns: readonly string[]): ExclusionMatcher[] {
  return patterns.map((p) => {
    const r = compileExclusion(p);
    if (!r.ok) throw new ExclusionError(`invalid exclusion pattern ${JSON.stringify(p)}: ${r.reason}`);
    return r.matcher;
  });
}
