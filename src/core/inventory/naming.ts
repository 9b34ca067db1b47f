// Image CR names: one per (namespace, normalized ref), so the name must be a pure function of the
// normalized ref. Refs are not valid object names (uppercase tags, '/', ':', '@', '_'), so the
// name is a readable slug plus a short hash of the exact ref: the slug is for humans, the hash
// keeps refs that slug alike apart (tag case, '_' vs '-', truncated tails).
import { createHash } from 'node:crypto';

/** DNS-1123 subdomain limit for object names. */
export const MAX_NAME_LENGTH = 253;
/** 40 bits: a collision needs ~10^6 distinct refs in one namespace to become likely. */
export const HASH_LENGTH = 10;
const MAX_SLUG_LENGTH = MAX_NAME_LENGTH - 1 - HASH_LENGTH;
/** Digest hex kept in the slug; the full digest is in the hash and in spec.image. */
const DIGEST_HEX_IN_SLUG = 12;

export function imageResourceName(normalized: string): string {
  const hash = createHash('sha256').update(normalized).digest('hex').slice(0, HASH_LENGTH);
  const slug = readableSlug(normalized);
  return slug ? `${slug}-${hash}` : hash;
}

function readableSlug(normalized: string): string {
  const familiar = shortenDigest(familiarForm(normalized));
  const full = slugify(familiar);
  if (full.length <= MAX_SLUG_LENGTH) return full;
  // Too long: keep the repository's last path component with its tag (what people recognize)
  // and cut the registry/namespace part; cut the tail itself only if it alone is too long.
  const lastSlash = familiar.lastIndexOf('/');
  const tail = slugify(familiar.slice(lastSlash + 1));
  if (tail.length >= MAX_SLUG_LENGTH - 1) return trimSeparators(tail.slice(0, MAX_SLUG_LENGTH));
  const head = trimSeparators(
    slugify(familiar.slice(0, Math.max(lastSlash, 0))).slice(0, MAX_SLUG_LENGTH - tail.length - 1),
  );
  return head ? `${head}-${tail}` : tail;
}

/** Drops the implied Docker Hub parts, as `docker images` shows them: nginx:1.25, bitnami/redis:7. */
function familiarForm(ref: string): string {
  if (ref.startsWith('docker.io/library/')) return ref.slice('docker.io/library/'.length);
  if (ref.startsWith('docker.io/')) return ref.slice('docker.io/'.length);
  return ref;
}

/** name@sha256:<64 hex> -> name@sha256:<12 hex>, like short image IDs. */
function shortenDigest(ref: string): string {
  const at = ref.indexOf('@');
  if (at < 0) return ref;
  const colon = ref.indexOf(':', at);
  if (colon < 0) return ref;
  return ref.slice(0, colon + 1 + DIGEST_HEX_IN_SLUG);
}

/**
 * Lowercase; every character other than [a-z0-9.] becomes '-'; each run of separators becomes a
 * single '.' (if it was exactly one '.') or '-', and none is left at either end. So every '.' and
 * '-' sits between alphanumerics, which makes each dot-separated part a valid DNS-1123 label.
 */
function slugify(s: string): string {
  let out = '';
  let sep: '' | '.' | '-' = '';
  for (const ch of s.toLowerCase()) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
      if (sep && out) out += sep;
      sep = '';
      out += ch;
    } else {
      sep = sep === '' && ch === '.' ? '.' : '-';
    }
  }
  return out;
}

function trimSeparators(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && (s[start] === '-' || s[start] === '.')) start++;
  while (end > start && (s[end - 1] === '-' || s[end - 1] === '.')) end--;
  return s.slice(start, end);
}
