// Warnings about exclusions that probably do not protect what their author meant. An
// exclusion without a tag or digest is a ref, so it means `:latest` only (`--exclude delta`
// protects docker.io/library/delta:latest and nothing else). That stays the rule, as for
// every other ref; but when such a pattern matches no image while other tags of the same
// repository are on the node, the operator most likely meant them, so we say so.
import { globMatch, matchesExclusion, type ExclusionMatcher } from '../../refs/exclusion.js';
import { parseDigestOrId } from '../../refs/normalize.js';
import { aliasesOf, type ImageView } from './in-use.js';

/** True when the pattern as written has neither a tag nor a digest. */
function untagged(pattern: string): boolean {
  if (pattern.includes('@')) return false;
  const last = pattern.slice(pattern.lastIndexOf('/') + 1);
  return !last.includes(':');
}

/** Repository (normalized name) of a tag or digest ref; undefined for IDs and garbage. */
function repositoryOf(alias: string): string | undefined {
  const p = parseDigestOrId(alias);
  return p.kind === 'ref' ? p.ref.name : undefined;
}

export function untaggedExclusionWarnings(
  exclusions: readonly ExclusionMatcher[],
  images: readonly ImageView[],
): string[] {
  const out: string[] = [];
  for (const m of exclusions) {
    // Only the `<name>:latest` that the missing tag turned into.
    if (!untagged(m.pattern) || m.globs.length !== 1 || !m.globs[0]!.endsWith(':latest')) continue;
    if (images.some((img) => matchesExclusion([m], aliasesOf(img)) !== undefined)) continue;
    const repoGlob = m.globs[0]!.slice(0, -':latest'.length);
    const others = new Set<string>();
    for (const img of images) {
      for (const alias of [...img.repoTags, ...img.repoDigests]) {
        const repo = repositoryOf(alias);
        if (repo !== undefined && globMatch(repoGlob, repo)) others.add(alias);
      }
    }
    if (others.size === 0) continue;
    const names = [...others].sort();
    const shown =
      names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
    out.push(
      `exclusion ${JSON.stringify(m.pattern)} has no tag, so it protects only ${m.globs[0]}, which is not on this node; ` +
        `it does not protect ${shown}. Write ${JSON.stringify(`${m.pattern}:*`)} to protect every tag.`,
    );
  }
  return out;
}
