// Image reference normalization: our own port of github.com/distribution/reference
// `ParseNormalizedNamed` followed by `TagNameOnly` (see shared spec image-refs.md).
//
// Why hand-written: the inventory keys every Image on the normalized string, so we must agree
// byte-for-byte with the kubelet/containerd, and the npm parsers either follow an older grammar
// or use backtracking regular expressions that hang on crafted input. This scanner first caps
// the input length, then splits on fixed separators and checks each piece with single-pass
// character loops, so every step is linear in the (capped) input length.
import {
  isAll,
  isAlnumAnyCase,
  isAlnumLower,
  isDigit,
  isHexAnyCase,
  isHexLower,
  isUpper,
  isWordChar,
} from './chars.js';

export type NormalizedRef = {
  domain: string;
  path: string;
  tag?: string;
  digest?: string;
  /** domain/path (just path in the rare case the library itself leaves the domain empty). */
  name: string;
  /** name[:tag][@digest]; `:latest` is added only when there is neither a tag nor a digest. */
  normalized: string;
};

export type NormalizeResult = { ok: true; ref: NormalizedRef } | { ok: false; reason: string };

/**
 * Our own cap, checked before anything else so adversarial input costs O(cap). The library has no
 * overall cap, but a valid reference is a host plus at most 255 + 128 + 135 characters, so 4096
 * leaves ample room for any real registry host.
 */
export const MAX_REFERENCE_LENGTH = 4096;
/** distribution/reference RepositoryNameTotalLengthMax: applies to the path (without domain). */
export const MAX_REPOSITORY_NAME_LENGTH = 255;
/** From the tag grammar `[\w][\w.-]{0,127}`. */
export const MAX_TAG_LENGTH = 128;

const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO_PREFIX = 'library/';
const DEFAULT_TAG = 'latest';

/** Registered digest algorithms and their hex lengths (go-digest: sha256, sha384, sha512). */
const DIGEST_HEX_LENGTHS: ReadonlyMap<string, number> = new Map([
  ['sha256', 64],
  ['sha384', 96],
  ['sha512', 128],
]);

/** Parses and normalizes an image reference the way the kubelet and containerd do. */
export function normalizeRef(input: string): NormalizeResult {
  const pre = precheck(input);
  if (pre) return fail(pre);
  // The library refuses a bare image ID as a name (it would otherwise become docker.io/library/<hex>).
  if (isBareId(input)) return fail('bare 64-hex identifier is not a name');
  const [domain, remainder] = splitDockerDomain(input);
  return parse(`${domain}/${remainder}`);
}

/**
 * Shared guards for every user-facing string we treat as a reference (also used by exclusion
 * patterns): empty, over-long, whitespace. The grammar has no whitespace anywhere, and the kubelet
 * does not trim, so " nginx" is an invalid reference rather than something we quietly fix.
 */
export function precheck(input: unknown): string | undefined {
  if (typeof input !== 'string') return 'reference is not a string';
  if (input.length > MAX_REFERENCE_LENGTH) return `reference too long (max ${MAX_REFERENCE_LENGTH})`;
  if (input.trim() === '') return 'empty reference';
  if (/\s/.test(input)) return 'whitespace in reference';
  return undefined;
}

/** True for exactly 64 lowercase hex characters (the library's anchoredIdentifierRegexp). */
export function isBareId(s: string): boolean {
  return s.length === 64 && isAll(s, isHexLower);
}

export type DigestOrId =
  { kind: 'id'; id: string } | { kind: 'ref'; ref: NormalizedRef } | { kind: 'invalid'; reason: string };

/**
 * For node-side commands that accept either an image ID or a reference. The ID check must come
 * first: `sha256:<64 hex>` is otherwise a *valid* reference (docker.io/library/sha256 with a
 * 64-character tag), and a bare 64-hex string is rejected as a name.
 */
export function parseDigestOrId(input: string): DigestOrId {
  const pre = precheck(input);
  if (pre) return { kind: 'invalid', reason: pre };
  const hex = input.startsWith('sha256:') ? input.slice('sha256:'.length) : input;
  if (hex.length === 64 && isAll(hex, isHexAnyCase)) {
    // Image IDs are lowercase; we refuse rather than lowercase, like the digest rules.
    if (!isAll(hex, isHexLower)) return { kind: 'invalid', reason: 'image ID must be lowercase hex' };
    return { kind: 'id', id: `sha256:${hex}` };
  }
  const r = normalizeRef(input);
  return r.ok ? { kind: 'ref', ref: r.ref } : { kind: 'invalid', reason: r.reason };
}

/**
 * The library's splitDockerDomain: the first `/`-separated component is a registry host only if
 * it is `localhost`, contains `.` or `:`, or has uppercase letters; otherwise the reference is on
 * Docker Hub. `index.docker.io` folds to `docker.io`, and single-component Docker Hub names get
 * `library/`. Runs on the raw input (tag and digest still attached), exactly like the library.
 */
export function splitDockerDomain(name: string): [domain: string, remainder: string] {
  const slash = name.indexOf('/');
  if (slash < 0) return [DEFAULT_DOMAIN, OFFICIAL_REPO_PREFIX + name];
  const maybeDomain = name.slice(0, slash);
  const maybeRemote = name.slice(slash + 1);
  let domain: string;
  let remainder: string;
  if (maybeDomain === 'localhost') {
    [domain, remainder] = [maybeDomain, maybeRemote];
  } else if (maybeDomain === LEGACY_DEFAULT_DOMAIN) {
    [domain, remainder] = [DEFAULT_DOMAIN, maybeRemote];
  } else if (maybeDomain.includes('.') || maybeDomain.includes(':')) {
    [domain, remainder] = [maybeDomain, maybeRemote];
  } else if (maybeDomain.toLowerCase() !== maybeDomain) {
    [domain, remainder] = [maybeDomain, maybeRemote];
  } else {
    [domain, remainder] = [DEFAULT_DOMAIN, name];
  }
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = OFFICIAL_REPO_PREFIX + remainder;
  return [domain, remainder];
}

/**
 * The name, tag and digest of a reference as written (`name[:tag][@digest]`): the digest after the
 * first `@`, the tag after the last `:` that follows the last `/` (so a registry port is never a
 * tag). Nothing is checked. The one split of both the normalizer and exclusion patterns.
 */
export function splitTagDigest(s: string): { name: string; tag?: string; digest?: string } {
  const at = s.indexOf('@');
  const beforeDigest = at < 0 ? s : s.slice(0, at);
  const digest = at < 0 ? undefined : s.slice(at + 1);
  const lastColon = beforeDigest.lastIndexOf(':');
  const hasTag = lastColon > beforeDigest.lastIndexOf('/');
  const name = hasTag ? beforeDigest.slice(0, lastColon) : beforeDigest;
  const tag = hasTag ? beforeDigest.slice(lastColon + 1) : undefined;
  return { name, tag, digest };
}

/**
 * The library's Parse on `domain/remainder`, as deterministic splits instead of one regex:
 * - `@` cannot occur in a name or tag, so the first `@` starts the digest;
 * - `:` occurs in a name only inside the host (before the first `/`) and never in a tag, so a `:`
 *   after the last `/` is the tag separator;
 * - the name is `host/remote-name` when the first component is a valid host (the regex's optional
 *   domain group is greedy), else the whole name must be a remote name with an empty domain
 *   (e.g. `a_b.c/foo`: splitDockerDomain calls `a_b.c` a host, the regex does not; we mirror that).
 */
function parse(s: string): NormalizeResult {
  const { name, tag, digest } = splitTagDigest(s);

  const firstSlash = name.indexOf('/');
  const host = firstSlash < 0 ? undefined : name.slice(0, firstSlash);
  const rest = firstSlash < 0 ? name : name.slice(firstSlash + 1);
  let domain: string;
  let path: string;
  const hostReason = host === undefined ? 'no host' : checkDomainAndPort(host);
  const restReason = checkRemoteName(rest);
  if (host !== undefined && hostReason === undefined && restReason === undefined) {
    [domain, path] = [host, rest];
  } else if (restReason === undefined && checkRemoteName(name) === undefined) {
    [domain, path] = ['', name];
  } else {
    // Explain the part splitDockerDomain chose as the host first: that is how the user wrote it.
    return fail(host !== undefined && hostReason !== undefined ? hostReason : (restReason ?? 'invalid name'));
  }

  if (path.length > MAX_REPOSITORY_NAME_LENGTH)
    return fail(`name too long (max ${MAX_REPOSITORY_NAME_LENGTH})`);
  if (tag !== undefined) {
    const reason = checkTag(tag);
    if (reason) return fail(reason);
  }
  if (digest !== undefined) {
    const reason = checkDigest(digest);
    if (reason) return fail(reason);
  }

  const fullName = domain === '' ? path : `${domain}/${path}`;
  let normalized = fullName;
  if (tag !== undefined) normalized += `:${tag}`;
  if (digest !== undefined) normalized += `@${digest}`;
  if (tag === undefined && digest === undefined) normalized += `:${DEFAULT_TAG}`;
  const ref: NormalizedRef = { domain, path, name: fullName, normalized };
  if (tag !== undefined) ref.tag = tag;
  else if (digest === undefined) ref.tag = DEFAULT_TAG;
  if (digest !== undefined) ref.digest = digest;
  return { ok: true, ref };
}

/**
 * domainAndPort := host [":" port]; host := domain-name | "[" IPv6 "]";
 * domain-name components are `[a-zA-Z0-9]` runs with inner `-`, joined by `.`; port := [0-9]+.
 * Returns a reason, or undefined when valid.
 */
export function checkDomainAndPort(d: string): string | undefined {
  let hostEnd: number;
  if (d.startsWith('[')) {
    hostEnd = d.indexOf(']');
    if (hostEnd < 0) return 'invalid IPv6 address';
    const inner = d.slice(1, hostEnd);
    if (inner === '' || !isAll(inner, (c) => isHexAnyCase(c) || c === 0x3a /* : */)) {
      return 'invalid IPv6 address';
    }
    hostEnd += 1;
  } else {
    const colon = d.indexOf(':');
    hostEnd = colon < 0 ? d.length : colon;
    for (const comp of d.slice(0, hostEnd).split('.')) {
      if (comp === '' || !isAll(comp, (c) => isAlnumAnyCase(c) || c === 0x2d /* - */)) {
        return 'invalid registry host';
      }
      if (comp.startsWith('-') || comp.endsWith('-')) return 'invalid registry host';
    }
  }
  if (hostEnd === d.length) return undefined;
  const port = d.slice(hostEnd);
  if (port.length < 2 || port[0] !== ':' || !isAll(port.slice(1), isDigit)) return 'invalid registry port';
  return undefined;
}

/**
 * remote-name := path-component ("/" path-component)*, checked in place (no split, no substrings)
 * because this runs on every name and adversarial names can have thousands of components.
 */
export function checkRemoteName(p: string): string | undefined {
  let start = 0;
  for (;;) {
    let end = p.indexOf('/', start);
    if (end < 0) end = p.length;
    const reason = checkPathComponent(p, start, end);
    if (reason) return reason;
    if (end === p.length) return undefined;
    start = end + 1;
  }
}

/**
 * path-component := [a-z0-9]+ (separator [a-z0-9]+)*, separator := "." | "_" | "__" | "-"+,
 * for p[start, end). The checks are ordered so the reason names the most useful rule (uppercase
 * first: the library never lowercases, and that is the most common mistake).
 */
function checkPathComponent(p: string, start: number, end: number): string | undefined {
  if (start === end) return 'empty path component in repository name';
  let upper = false;
  let other = false;
  for (let i = start; i < end; i++) {
    const c = p.charCodeAt(i);
    if (isUpper(c)) upper = true;
    else if (!isAlnumLower(c) && c !== 0x2e && c !== 0x5f && c !== 0x2d) other = true;
  }
  if (upper) return 'uppercase letters in repository name';
  if (other) return 'invalid character in repository name';
  if (!isAlnumLower(p.charCodeAt(start)) || !isAlnumLower(p.charCodeAt(end - 1))) {
    return 'repository name components must start and end with a letter or digit';
  }
  // Every maximal run of separators must be ".", "_", "__" or all dashes.
  let i = start;
  while (i < end) {
    const c = p.charCodeAt(i);
    if (isAlnumLower(c)) {
      i++;
      continue;
    }
    let j = i + 1;
    let dashes = c === 0x2d;
    while (j < end && !isAlnumLower(p.charCodeAt(j))) {
      if (p.charCodeAt(j) !== 0x2d) dashes = false;
      j++;
    }
    const len = j - i;
    const ok = dashes || len === 1 || (len === 2 && c === 0x5f && p.charCodeAt(i + 1) === 0x5f);
    if (!ok) return 'invalid separator in repository name';
    i = j;
  }
  return undefined;
}

/** tag := [\w][\w.-]{0,127}; case is kept. */
export function checkTag(t: string): string | undefined {
  if (t === '') return 'empty tag';
  if (t.length > MAX_TAG_LENGTH) return `tag too long (max ${MAX_TAG_LENGTH})`;
  if (!isWordChar(t.charCodeAt(0))) return 'invalid tag';
  if (!isAll(t, (c) => isWordChar(c) || c === 0x2e || c === 0x2d)) return 'invalid tag';
  return undefined;
}

/**
 * digest := algorithm ":" hex. The reference grammar accepts any well-formed algorithm and 32+
 * hex digits (either case), but go-digest then only accepts registered algorithms with their exact
 * length of lowercase hex, so that is the effective rule.
 */
export function checkDigest(d: string): string | undefined {
  const colon = d.indexOf(':');
  if (colon <= 0) return 'digest must be <algorithm>:<hex>';
  const algorithm = d.slice(0, colon);
  const hex = d.slice(colon + 1);
  const want = DIGEST_HEX_LENGTHS.get(algorithm);
  if (want === undefined) return 'unsupported digest algorithm (sha256, sha384 or sha512)';
  if (hex.length !== want || !isAll(hex, isHexAnyCase)) return `digest must be ${algorithm}:<${want} hex>`;
  if (!isAll(hex, isHexLower)) return 'digest hex must be lowercase';
  return undefined;
}

function fail(reason: string): NormalizeResult {
  return { ok: false, reason };
}
