// Exclusion patterns for node-remove: the operator's (--exclude, --exclude-file) plus defaults
// that protect the sandbox ("pause") image. Running sandboxes use it, but CRI does not list
// sandboxes as containers, so the in-use check cannot see that; removing it would break the
// next pod start on an offline node.
import { compileExclusion, type ExclusionMatcher } from '../refs/exclusion.js';

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

/**
 * The runtime's configured sandbox image, from CRI Status(verbose) info when the runtime
 * publishes it: containerd puts its CRI config JSON under info.config (sandboxImage); other
 * runtimes may use other keys, which are tried too. undefined when not discoverable.
 */
export function sandboxImageFromStatusInfo(info: Record<string, string>): string | undefined {
  for (const value of Object.values(info)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      continue;
    }
    if (parsed && typeof parsed === 'object') {
      const o = parsed as Record<string, unknown>;
      for (const k of ['sandboxImage', 'pauseImage', 'pause_image', 'sandbox_image']) {
        if (typeof o[k] === 'string' && o[k]) return o[k] as string;
      }
    }
  }
  return undefined;
}
