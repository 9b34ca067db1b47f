// Cutting an image reference to a column's width the way people read refs. The tag (or the
// digest's first characters) says which image it is, and the last path segment says what it
// is, so those stay; the middle (registry and path) gives way first:
//   docker.io/nicolaka/netshoot:v0.13  ->  docker.io/…/netshoot:v0.13  ->  do…netshoot:v0.13
//   ghcr.io/acme/migrate:v2@sha256:4c1e6a…  (the digest's start kept, its end cut)
// Anything that does not look like a ref is cut at the end, as other cells are.

const DIGEST_KEEP = 7; // hex digits of a digest still shown when the name must be cut too

/** Splits a ref into name, ":tag" and "@algo:hex" (each possibly empty). */
function parts(ref: string): { name: string; tag: string; digest: string } {
  const at = ref.indexOf('@');
  const digest = at >= 0 ? ref.slice(at) : '';
  const rest = at >= 0 ? ref.slice(0, at) : ref;
  const colon = rest.lastIndexOf(':');
  const tagged = colon > rest.lastIndexOf('/');
  return {
    name: tagged ? rest.slice(0, colon) : rest,
    tag: tagged ? rest.slice(colon) : '',
    digest,
  };
}

/** `s` cut at the end to `width` characters with "…". */
const cutEnd = (s: string, width: number): string =>
  [...s].length <= width ? s : [...s].slice(0, Math.max(0, width - 1)).join('') + '…';

/** The name cut in the middle to `width`: its last path segment whole when it fits, else its end. */
function cutMiddle(name: string, width: number): string {
  if (name.length <= width) return name;
  const slash = name.lastIndexOf('/');
  const tail = slash >= 0 ? name.slice(slash) : '';
  if (tail && tail.length + 2 <= width) return `${name.slice(0, width - 1 - tail.length)}…${tail}`;
  const room = width - 1;
  const head = Math.floor(room / 3);
  return `${name.slice(0, head)}…${name.slice(name.length - (room - head))}`;
}

/** `ref` in at most `width` characters, keeping the tag or the digest's start. */
export function shortenRef(ref: string, width: number): string {
  if ([...ref].length <= width) return ref;
  if (/\s/.test(ref) || width < 8) return cutEnd(ref, width);
  const { name, tag, digest } = parts(ref);
  const algo = digest ? digest.slice(0, digest.indexOf(':') + 1) : '';
  // The name and tag whole, the digest cut: enough of it to tell images apart.
  if (digest && name.length + tag.length + algo.length + DIGEST_KEEP + 1 <= width) return cutEnd(ref, width);
  // The name needs some room to be read: with a tag, the digest goes first ("@…" says so).
  const legible = Math.min(name.length, 12);
  const kept = digest ? `${digest.slice(0, algo.length + DIGEST_KEEP)}…` : '';
  const fit = (suffix: string, need: number) =>
    width - suffix.length >= need ? cutMiddle(name, width - suffix.length) + suffix : undefined;
  const out =
    fit(tag + kept, legible) ??
    (tag ? fit(tag + (digest ? '@…' : ''), Math.min(legible, 6)) : fit(kept, Math.min(legible, 6)));
  if (out) return out;
  return cutEnd(ref, width);
}
