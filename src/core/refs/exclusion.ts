// Exclusion patterns for node-side removal: images matching any pattern are never removed.
//
// A pattern is written like a reference in which `*` matches any run of characters (including
// `/`, `:` and `@`). So that people can write patterns the way they write images, the non-wildcard
// parts are normalized like a reference (`nginx:*` -> `docker.io/library/nginx:*`, `busybox` ->
// `docker.io/library/busybox:latest`) and then matched against every alias of an image: each
// normalized tag ref, each digest ref, and the image ID.
//
// Rules beyond plain normalization, each chosen so a pattern protects what its author meant:
// - `*` alone matches every image.
// - A pattern starting with `*` spans the registry already, so it is matched as written
//   (`*/nginx:*`, `*:latest`); so is an ID pattern starting with `sha256:`.
// - A `*` in the first component makes that component a registry-host pattern (`*.gcr.io/app:*`).
// - On docker.io a single path component gets `library/` unless it starts with `*`
//   (`docker.io/*` means all of Docker Hub, `docker.io/ngi*` means docker.io/library/ngi*).
// - `:latest` is added only when the pattern has no tag, no digest and no `*` in its last path
//   component (`docker.io/library/*` already covers every tag).
// - A tag of exactly `*` means "any version of this repository": it also matches the digest refs
//   (`app:*` -> `app:*` and `app@*`), so an image pulled by digest only is protected too.
// - An image ID pattern also matches digest refs with that digest; a tag+digest pattern also
//   matches the digest ref alone (the runtime records tag and digest refs separately).
// Because the literal text around `*` must match exactly, `localhost:5000/app:*` matches
// `localhost:5000/app:v1` but neither `localhost:5000/app2:v1`, `localhost:5001/app:v1` nor
// `localhost:5000/app/sub:v1` (the `:` must follow `app` directly).
import { isAll, isAlnumAnyCase, isHexLower } from './chars.js';
import {
  checkDigest,
  checkDomainAndPort,
  checkRemoteName,
  checkTag,
  parseDigestOrId,
  precheck,
  splitTagDigest,
} from './normalize.js';

export interface ExclusionMatcher {
  /** The pattern as the user wrote it (reported back when it matches). */
  readonly pattern: string;
  /** Normalized globs; the image is excluded if any alias matches any of them. */
  readonly globs: readonly string[];
}

export type CompileResult = { ok: true; matcher: ExclusionMatcher } | { ok: false; reason: string };

export function compileExclusion(pattern: string): CompileResult {
  const pre = precheck(pattern);
  if (pre) return { ok: false, reason: pre.replace('reference', 'pattern') };
  const globs = pattern.includes('*') ? compileWildcard(pattern) : compileExact(pattern);
  return Array.isArray(globs)
    ? { ok: true, matcher: { pattern, globs } }
    : { ok: false, reason: globs.reason };
}

/** Returns the pattern of the first matcher that matches any alias, or undefined. */
export function matchesExclusion(
  matchers: readonly ExclusionMatcher[],
  aliases: readonly string[],
): string | undefined {
  const texts = new Set<string>();
  for (const alias of aliases) {
    texts.add(alias);
    // Runtimes already report normalized aliases; normalizing again costs little and makes
    // familiar aliases (nginx:1.25, a bare ID) match too.
    const p = parseDigestOrId(alias);
    if (p.kind === 'id') texts.add(p.id);
    else if (p.kind === 'ref') texts.add(p.ref.normalized);
  }
  for (const m of matchers) {
    for (const glob of m.globs) for (const t of texts) if (globMatch(glob, t)) return m.pattern;
  }
  return undefined;
}

/**
 * `*`-only glob. The literal segments between stars must appear in order; the first is anchored
 * at the start, the last at the end, and each middle one is taken at its leftmost position, which
 * is always safe with `*` as the only wildcard. Stars never backtrack, so the cost is one forward
 * pass of string searches over the text: no regular expression, no exponential case.
 */
export function globMatch(glob: string, text: string): boolean {
  const parts = glob.split('*');
  const first = parts[0]!;
  if (parts.length === 1) return glob === text;
  const last = parts[parts.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last))
    return false;
  const end = text.length - last.length;
  let pos = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const seg = parts[i]!;
    if (seg === '') continue;
    const at = text.indexOf(seg, pos);
    if (at < 0 || at + seg.length > end) return false;
    pos = at + seg.length;
  }
  return true;
}

type Globs = string[] | { reason: string };

function compileExact(pattern: string): Globs {
  const p = parseDigestOrId(pattern);
  if (p.kind === 'invalid') return { reason: p.reason };
  if (p.kind === 'id') return [p.id, `*@${p.id}`];
  const { ref } = p;
  // Both tag and digest: the runtime lists `name:tag` and `name@digest` as separate aliases.
  return ref.tag !== undefined && ref.digest !== undefined
    ? [ref.normalized, `${ref.name}@${ref.digest}`]
    : [ref.normalized];
}

function compileWildcard(pattern: string): Globs {
  if (isAll(pattern, (c) => c === 0x2a /* * */)) return ['*'];
  if (!isAll(pattern, isPatternChar)) return { reason: 'invalid character in pattern' };
  if (pattern.startsWith('sha256:')) {
    if (!isAll(pattern.slice('sha256:'.length), (c) => isHexLower(c) || c === 0x2a)) {
      return { reason: 'image ID pattern must be sha256:<lowercase hex and *>' };
    }
    return [pattern, `*@${pattern}`];
  }
  if (pattern.startsWith('*')) return [pattern];

  const [domain, remainder] = splitPatternDomain(pattern);
  const { name: path, tag, digest } = splitTagDigest(remainder);

  // Validate the literal parts with each `*` standing for one harmless character ('a' is valid in
  // hosts, paths, tags and hex), so a pattern that could never match a valid ref is refused.
  const reason =
    checkDomainAndPort(asLiteral(domain)) ??
    checkRemoteName(asLiteral(path)) ??
    (tag === undefined ? undefined : checkTag(asLiteral(tag))) ??
    (digest === undefined ? undefined : checkDigestPattern(digest));
  if (reason) return { reason };

  const name = `${domain}/${path}`;
  const lastComponent = path.slice(path.lastIndexOf('/') + 1);
  if (tag === undefined && digest === undefined) {
    return [lastComponent.includes('*') ? name : `${name}:latest`];
  }
  if (tag === '*' && digest === undefined) return [`${name}:*`, `${name}@*`];
  const full = `${name}${tag === undefined ? '' : `:${tag}`}${digest === undefined ? '' : `@${digest}`}`;
  return tag !== undefined && digest !== undefined ? [full, `${name}@${digest}`] : [full];
}

/** splitDockerDomain, plus the pattern rules in the header comment (host wildcards, `library/`). */
function splitPatternDomain(pattern: string): [domain: string, remainder: string] {
  const slash = pattern.indexOf('/');
  if (slash < 0) return ['docker.io', `library/${pattern}`];
  const first = pattern.slice(0, slash);
  const rest = pattern.slice(slash + 1);
  let domain: string;
  let remainder: string;
  if (
    first === 'localhost' ||
    first.includes('*') ||
    first.includes('.') ||
    first.includes(':') ||
    first.toLowerCase() !== first
  ) {
    [domain, remainder] = [first === 'index.docker.io' ? 'docker.io' : first, rest];
  } else {
    [domain, remainder] = ['docker.io', pattern];
  }
  if (domain === 'docker.io' && !remainder.includes('/') && !remainder.startsWith('*')) {
    remainder = `library/${remainder}`;
  }
  return [domain, remainder];
}

function checkDigestPattern(digest: string): string | undefined {
  if (!digest.includes('*')) return checkDigest(digest);
  const colon = digest.indexOf(':');
  const algorithm = colon < 0 ? digest : digest.slice(0, colon);
  const hex = colon < 0 ? '' : digest.slice(colon + 1);
  if (colon < 0 && !algorithm.includes('*')) return 'digest must be <algorithm>:<hex>';
  if (!algorithm.includes('*') && !['sha256', 'sha384', 'sha512'].includes(algorithm)) {
    return 'unsupported digest algorithm (sha256, sha384 or sha512)';
  }
  if (!isAll(hex, (c) => isHexLower(c) || c === 0x2a))
    return 'digest pattern must be <algorithm>:<lowercase hex and *>';
  return undefined;
}

function asLiteral(s: string): string {
  return s.replaceAll('*', 'a');
}

/** Characters that can appear in a reference, plus `*`. */
function isPatternChar(c: number): boolean {
  return isAlnumAnyCase(c) || '._-/:@[]*'.includes(String.fromCharCode(c));
}
